"""Single-head attention in the legacy neuronxcc.nki style, written for nki-sim from the description of the
attention tutorial: scores on the Tensor Engine, a row softmax with reductions, P @ V accumulated in PSUM.

    out = softmax(q @ k.T / sqrt(d) [+ causal mask]) @ v

    nki-sim examples/legacy_attention.py --inputs q.npy k.npy v.npy [--arg causal=True]
        # q, k, v [S, d]: S a multiple of 128 and at most 512, d <= 128

Per block of 128 queries: scores = nc_matmul(q_blockT, kT) into PSUM; with causal=True the keys after the query
are set to -30000 by an affine_select over index tiles; the exponentials are normalised at the end (divided by
the row sums after P @ V). The transposed probabilities of each key block go through the Tensor Engine
(nc_transpose) and `psum += nc_matmul(...)` accumulates P @ V over the key blocks held in a par_dim block tensor.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def legacy_attention(q, k, v, causal=False):
    S, d = q.shape
    P = 128
    assert S % P == 0 and S <= 512 and d <= P, "S must be a multiple of 128 up to 512 and d at most 128"
    n = S // P
    out = nl.ndarray((S, d), dtype=q.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(P)[:, None]
    i_q = nl.arange(P)[None, :]
    i_d = nl.arange(d)[None, :]
    i_s = nl.arange(S)[None, :]
    kT = nl.load_transpose2d(k)  # [d, S]
    v_blocks = nl.ndarray((n, nl.par_dim(P), d), dtype=nl.float32, buffer=nl.sbuf)
    for j in nl.affine_range(n):
        v_blocks[j] = nl.load(v[j * P + i_p, i_d])
    for i in nl.affine_range(n):
        qT = nl.load_transpose2d(q[i * P:(i + 1) * P, 0:d])  # [d, 128]
        scores = nl.multiply(nisa.nc_matmul(qT, kT), d ** -0.5)  # [128, S], PSUM -> SBUF
        if causal:
            scores = nisa.affine_select(pred=(i * P + i_p >= i_s), on_true_tile=scores, on_false_value=-30000.0)
        row_max = nl.max(scores, axis=1, keepdims=True)
        probs = nl.exp(scores - row_max)
        row_sum = nl.sum(probs, axis=1, keepdims=True)
        acc = nl.zeros((P, d), dtype=nl.float32, buffer=nl.psum)
        for j in nl.affine_range(n):
            pT = nl.copy(nisa.nc_transpose(probs[i_p, j * P + i_q]))  # [keys, queries]
            acc += nisa.nc_matmul(pT, v_blocks[j])
        nl.store(out[i * P + i_p, i_d], value=nl.divide(acc, row_sum))
    return out
