# feature: a legacy (neuronxcc.nki) kernel may use a plain Python class instance (not NKIObject), e.g. a module-level offset allocator
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
# golden: a + 3.0
import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
import neuronxcc.nki.language as nl


class Offsets:
    def __init__(self):
        self.next = 0

    def take(self, nbytes):
        addr = self.next
        self.next += nbytes
        return ncc.sbuf.mod_alloc(base_addr=addr)


offsets = Offsets()


@nki.jit
def plain_class(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.ndarray((128, 64), dtype=a.dtype, buffer=offsets.take(256))
    y = nl.ndarray((128, 64), dtype=a.dtype, buffer=offsets.take(256))
    x[...] = nl.load(a)
    y[...] = nl.add(x, 3.0)
    nl.store(out, value=y)
    return out
