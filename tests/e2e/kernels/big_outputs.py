"""Two outputs of 1 MiB or more (written in place into their files by the CLI, docs/performance.md): `a` is
x * 2 in every column but the last 512, which the kernel never writes (they keep the 0xFF sentinel); `b` is x
rounded to bfloat16 in every column."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def big_outputs(x):
    P, N = x.shape
    F = 512
    a = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    b = nl.ndarray((P, N), dtype=nl.bfloat16, buffer=nl.shared_hbm)
    for j in nl.affine_range(N // F):
        t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, j * F:(j + 1) * F])
        h = nl.ndarray((P, F), dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.tensor_copy(dst=h, src=t)
        nisa.dma_copy(dst=b[:, j * F:(j + 1) * F], src=h)
    for j in nl.affine_range(N // F - 1):
        t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, j * F:(j + 1) * F])
        u = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=u, data=t, op0=nl.multiply, operand0=2.0)
        nisa.dma_copy(dst=a[:, j * F:(j + 1) * F], src=u)
    return a, b
