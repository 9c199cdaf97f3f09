"""End to end (issue 13, nki-library moe_cte's silent NaN rows): rows of indices go one at a time through one
reused SBUF row and a PE transpose, while GpSimd-triggered (swdge) copies later in the program run ahead on
their own. Before the fix the back end triggered each next row load from the Tensor Engine, onto the DMA
queues GpSimd also uses; GpSimd's transfers completed first and satisfied the waits meant for the row loads,
so transposes read the previous row (a timed run differed from --functional and from numpy). Also with the
row loads triggered explicitly from the Tensor Engine, and with a dynamic loop (ir/loops.cpp emits the kernel).
The outputs must match numpy, timed and functional alike (run() also compares the two runs byte for byte)."""

import numpy as np

from common import check, cli_outputs, finish, tmpdir, write_file

d = tmpdir()

KERNEL = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def rows_through_pe(x, y, count):
    T, P = x.shape
    out = nl.ndarray((P, T), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray(y.shape, dtype=y.dtype, buffer=nl.shared_hbm)
    row = nl.ndarray((1, P), dtype=nl.float32, buffer=nl.sbuf)
    cols = nl.ndarray((P, T), dtype=nl.float32, buffer=nl.sbuf)
    for t in nl.sequential_range(T):
        nisa.dma_copy(dst=row, src=x[t:t + 1, :]{engine})
        ps = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=ps, data=row)
        nisa.tensor_copy(dst=cols[:, t:t + 1], src=ps)
    nisa.dma_copy(dst=out, src=cols)
    for k in nl.sequential_range(y.shape[0] // P):
        tile = nl.ndarray((P, y.shape[1]), dtype=y.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=y[k * P:(k + 1) * P, :], dge_mode=nisa.dge_mode.swdge)
        nisa.dma_copy(dst=out2[k * P:(k + 1) * P, :], src=tile, dge_mode=nisa.dge_mode.swdge)
    acc = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
{loop}
    out3 = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out3, src=acc)
    return out, out2, out3
'''

# A dynamic loop at the end makes the back end emit the whole kernel through ir/loops.cpp.
DYNAMIC_LOOP = """    n = nisa.register_alloc()
    nisa.register_load(n, count)

    def body(i):
        nisa.tensor_scalar(dst=acc, data=acc, op0=nl.add, operand0=1.0)

    nl.fori_loop(0, n, body)"""

rng = np.random.default_rng(13)
x = rng.random((8, 128), dtype=np.float32)
y = rng.random((1024, 64), dtype=np.float32)
count = np.array([[3]], dtype=np.int32)
# The row loads triggered as the back end chooses, or explicitly from the Tensor Engine (then they share DMA
# queues with GpSimd's); straight-line or with a dynamic loop.
for name, engine, loop in (("implicit", "", "    pass"), ("implicit_loop", "", DYNAMIC_LOOP),
                           ("tensor", ", engine=nisa.engine.tensor", "    pass"),
                           ("tensor_loop", ", engine=nisa.engine.tensor", DYNAMIC_LOOP)):
    path = write_file(d, f"rows_through_pe_{name}.py", KERNEL.format(engine=engine, loop=loop))
    for mode in ([], ["--functional"], ["--target", "trn1"]):
        got, got2, got3 = cli_outputs(d, path, [x, y, count], *mode, n=3)
        if got is None:
            continue
        what = f"rows_through_pe {name} {mode}"
        check(np.array_equal(got, x.T), f"{what}: every row transposed (max error {np.abs(got - x.T).max()})")
        check(np.array_equal(got2, y), f"{what}: the swdge copies")
        check(np.array_equal(got3, np.full((128, 1), 3.0 if loop != "    pass" else 0.0, np.float32)), f"{what}: the loop")

finish()
