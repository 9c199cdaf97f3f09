# feature: element writes t[i, j] = v into SBUF partitions off the engines' quadrant grid (i = 1, 2, ...) go through a DMA instead of failing the start-partition rule
# golden: (np.arange(8)[None, :] * 5 + np.arange(40)[:, None]).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def element_writes():
    out = nl.ndarray((40, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.zeros((40, 8), dtype=nl.float32)
    for i in nl.static_range(40):
        for j in nl.static_range(8):
            t[i, j] = j * 5 + i
    nl.store(out, value=t)
    return out
