"""A Mamba-like selective scan in the legacy neuronxcc.nki style, written for nki-sim from the description of the
fused Mamba tutorial: channels on partitions, the sequence on the free axis, a tensor_tensor_scan per state.

    h[b, c, s, l] = exp(delta[b, c, l] * A[c, s]) * h[b, c, s, l - 1] + delta[b, c, l] * B[b, s, l] * u[b, c, l]
    out[b, c, l]  = sum_s C[b, s, l] * h[b, c, s, l]

    nki-sim examples/legacy_mamba.py --inputs delta.npy u.npy A.npy B.npy C.npy
        # delta, u [batch, channels, seq]; A [channels, state]; B, C [batch, state, seq];
        # channels a multiple of 128, seq <= 512

Per batch the channel tiles live in block tensors `nl.ndarray((n_tiles, nl.par_dim(128), seq), ...)`: block t is
the [128, seq] tile of channels t*128 .. t*128+127.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def legacy_mamba(delta, u, A, B, C):
    batch, channels, seq_len = delta.shape
    _, state_size = A.shape
    P = 128
    assert channels % P == 0, "channels must be a multiple of 128"
    n_tiles = channels // P
    out = nl.ndarray((batch, channels, seq_len), dtype=delta.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(P)[:, None]
    i_l = nl.arange(seq_len)[None, :]
    i_s = nl.arange(state_size)[None, :]
    # A is the same for every batch: one [128, state] block per channel tile
    a_tiles = nl.ndarray((n_tiles, nl.par_dim(P), state_size), dtype=nl.float32, buffer=nl.sbuf)
    for t in nl.affine_range(n_tiles):
        a_tiles[t] = nl.load(A[t * P + i_p, i_s])
    for b in nl.affine_range(batch):
        delta_tiles = nl.ndarray((n_tiles, nl.par_dim(P), seq_len), dtype=nl.float32, buffer=nl.sbuf)
        du_tiles = nl.ndarray((n_tiles, nl.par_dim(P), seq_len), dtype=nl.float32, buffer=nl.sbuf)
        acc = nl.zeros((n_tiles, nl.par_dim(P), seq_len), dtype=nl.float32, buffer=nl.sbuf)
        for t in nl.affine_range(n_tiles):
            delta_tiles[t, i_p, i_l] = nl.load(delta[b, t * P + i_p, i_l])
            du_tiles[t] = delta_tiles[t] * nl.load(u[b, t * P + i_p, i_l])
        for s in nl.sequential_range(state_size):
            # B[b, s, :] and C[b, s, :] for every channel (partition)
            b_row = nl.broadcast_to(nl.load(B[b, s:s + 1, 0:seq_len]), shape=(P, seq_len))
            c_row = nl.broadcast_to(nl.load(C[b, s:s + 1, 0:seq_len]), shape=(P, seq_len))
            for t in nl.affine_range(n_tiles):
                # exp(delta * A[c, s]): the activation's per-partition scale
                decay = nisa.activation(op=nl.exp, data=delta_tiles[t], scale=a_tiles[t, :, s:s + 1])
                drive = du_tiles[t] * b_row
                h = nisa.tensor_tensor_scan(decay, drive, initial=0.0, op0=nl.multiply, op1=nl.add)
                acc[t] += h * c_row
        for t in nl.affine_range(n_tiles):
            nl.store(out[b, t * P + i_p, i_l], value=acc[t])
    return out
