"""Found only through -I: not next to the kernel."""
SCALES = (0.5, 2.0)


def scaled(x, k=0):
    return x * SCALES[k]
