"""End to end (issue 13, nki-library moe_cte's silent NaN rows): rows of indices go one at a time through one
reused SBUF row and a PE transpose, while GpSimd-triggered (swdge) copies later in the program run ahead on
their own. Before the fix the back end triggered each next row load from the Tensor Engine, onto the DMA
queues GpSimd also uses; GpSimd's transfers completed first and satisfied the waits meant for the row loads,
so transposes read the previous row (a timed run differed from --functional and from numpy). The outputs
must match numpy, timed and functional alike (run() also compares the two runs byte for byte)."""

import numpy as np

from common import check, cli_outputs, finish, tmpdir, write_file

d = tmpdir()

KERNEL = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def rows_through_pe(x, y):
    T, P = x.shape
    out = nl.ndarray((P, T), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray(y.shape, dtype=y.dtype, buffer=nl.shared_hbm)
    row = nl.ndarray((1, P), dtype=nl.float32, buffer=nl.sbuf)
    cols = nl.ndarray((P, T), dtype=nl.float32, buffer=nl.sbuf)
    for t in nl.sequential_range(T):
        nisa.dma_copy(dst=row, src=x[t:t + 1, :])
        ps = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=ps, data=row)
        nisa.tensor_copy(dst=cols[:, t:t + 1], src=ps)
    nisa.dma_copy(dst=out, src=cols)
    for k in nl.sequential_range(y.shape[0] // P):
        tile = nl.ndarray((P, y.shape[1]), dtype=y.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=tile, src=y[k * P:(k + 1) * P, :], dge_mode=nisa.dge_mode.swdge)
        nisa.dma_copy(dst=out2[k * P:(k + 1) * P, :], src=tile, dge_mode=nisa.dge_mode.swdge)
    return out, out2
'''

path = write_file(d, "rows_through_pe.py", KERNEL)
rng = np.random.default_rng(13)
x = rng.random((8, 128), dtype=np.float32)
y = rng.random((1024, 64), dtype=np.float32)
for mode in ([], ["--functional"], ["--target", "trn1"]):
    got, got2 = cli_outputs(d, path, [x, y], *mode, n=2)
    if got is None:
        continue
    check(np.array_equal(got, x.T), f"rows_through_pe {mode}: every row transposed (max error {np.abs(got - x.T).max()})")
    check(np.array_equal(got2, y), f"rows_through_pe {mode}: the swdge copies")

finish()
