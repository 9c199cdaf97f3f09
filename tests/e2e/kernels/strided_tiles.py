"""HBM written in narrow tiles whose rows lie far apart (sim/memory.cpp tracks such writes by 64-byte line):
`a` is x in every [128, 64] tile but the last, which holds the sentinel except its last 3 columns (12-byte
rows, not line-aligned, copied from x[:, 1001:1004]); `c` reads back 128 columns of a scratch tensor whose
first 64 columns were written: x there, the sentinel after."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def strided_tiles(x):
    P, N = x.shape
    F = 64
    a = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for j in nl.affine_range(N // F - 1):
        t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, j * F:(j + 1) * F])
        nisa.dma_copy(dst=a[:, j * F:(j + 1) * F], src=t)
    odd = nl.ndarray((P, 3), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=odd, src=x[:, 1001:1004])
    nisa.dma_copy(dst=a[:, N - 3:N], src=odd)
    scratch = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.private_hbm)
    h = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=h, src=x[:, 0:F])
    nisa.dma_copy(dst=scratch[:, 0:F], src=h)
    back = nl.ndarray((P, 2 * F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=back, src=scratch[:, 0:2 * F])
    c = nl.ndarray((P, 2 * F), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=c, src=back)
    return a, c
