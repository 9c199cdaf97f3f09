"""2-D average pooling in the legacy neuronxcc.nki style, written for nki-sim from the description of the
average-pool tutorial: channels on partitions, each k x k window gathered by 5-D index arithmetic on an SBUF
tile (nl.mgrid) and summed over its two window axes.

    out[c, i, j] = mean(x[c, k*i:k*i+k, k*j:k*j+k])

    nki-sim examples/legacy_avgpool.py --inputs x.npy [--arg pool_size=K]   # x [C, H, W], H and W multiples of K

Channel tiles are masked to the valid channels of the last partial tile; the pooled tiles are kept in a block
tensor `nl.ndarray((n_tiles, nl.par_dim(128), H // k, W // k), ...)` until they are stored.
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def legacy_avgpool(in_tensor, pool_size=2):
    C, H, W = in_tensor.shape
    k = pool_size
    assert H % k == 0 and W % k == 0, "the pool size must divide the height and the width"
    HO, WO = H // k, W // k
    P = 128
    n_tiles = (C + P - 1) // P
    out = nl.ndarray((C, HO, WO), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    pooled = nl.ndarray((n_tiles, nl.par_dim(P), HO, WO), dtype=in_tensor.dtype, buffer=nl.sbuf)
    for t in nl.affine_range(n_tiles):
        i_p, i_h, i_w = nl.mgrid[0:P, 0:H, 0:W]
        channel = t * P + i_p
        in_tile = nl.load(in_tensor[channel, i_h, i_w], mask=(channel < C))
        # window element (a, b) of output (i, j) is in_tile[:, k*i + a, k*j + b]
        i0, i1, i2, i3, i4 = nl.mgrid[0:P, 0:HO, 0:k, 0:WO, 0:k]
        window_sum = nl.sum(in_tile[i0, k * i1 + i2, k * i3 + i4], axis=[2, 4], mask=(t * P + i0 < C))
        pooled[t] = nl.multiply(window_sum, 1.0 / (k * k), mask=(t * P + i0 < C))
    for t in nl.affine_range(n_tiles):
        j_p, j_h, j_w = nl.mgrid[0:P, 0:HO, 0:WO]
        nl.store(out[t * P + j_p, j_h, j_w], value=pooled[t, j_p, j_h, j_w], mask=(t * P + j_p < C))
    return out
