"""A fused elementwise chain on a ragged [P, F] input in the legacy style: every op is masked to the valid
rows and columns of the last partial tiles; tiles are updated with operators and `+=`.

    out = exp(-relu(2 * x + y)) * 0.5 + y,  for x, y [P, F], F <= 512

    nki-sim examples/legacy_fused_mask.py --inputs x.npy y.npy
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def legacy_fused_mask(x, y):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    for t in nl.affine_range((P + 127) // 128):
        rows = t * 128 + i_p
        m = (rows < P) & (i_f < F)
        tx = nl.load(x[rows, i_f], mask=m)
        ty = nl.load(y[rows, i_f], mask=m)
        z = nl.multiply(tx, 2.0, mask=m)
        z = nl.add(z, ty, mask=m)
        z = nl.relu(z, mask=m)
        z = nl.exp(nl.negative(z, mask=m), mask=m)
        z = nl.multiply(z, 0.5, mask=m)
        z += ty
        nl.store(out[rows, i_f], value=z, mask=m)
    return out
