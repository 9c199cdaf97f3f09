"""Row softmax in the legacy dataflow style: mgrid index tiles, a row mask for the last partial tile,
reductions with keepdims and tile operators.

    nki-sim examples/legacy_softmax.py --inputs x.npy      # x [N, D], D <= 512
"""
from neuronxcc import nki
import neuronxcc.nki.language as nl


@nki.jit
def legacy_softmax(x):
    N, D = x.shape
    out = nl.ndarray((N, D), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:D]
    for t in nl.affine_range((N + 127) // 128):
        rows = t * 128 + i_p
        valid = rows < N
        tile = nl.load(x[rows, i_f], mask=valid)
        row_max = nl.max(tile, axis=1, keepdims=True)
        e = nl.exp(tile - row_max, mask=valid)
        row_sum = nl.sum(e, axis=1, keepdims=True)
        nl.store(out[rows, i_f], value=e / row_sum, mask=valid)
    return out
