# feature: a static .ap() view outside its tensor that no instruction uses is not an error (the bounds are checked when the view is used: 314)
# input: a = rng.standard_normal((4, 32)).astype(np.float32)
# golden: a[:, 0:8] + a[:, 8:16]
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def ap_out_of_bounds_unused(a):
    out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((4, 32), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    acc = nl.ndarray((4, 8), nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for j in range(5):
        part = t.ap(pattern=[[32, 4], [1, 8]], offset=j * 8)  # j = 4 reaches element 39 of 32
        if j < 2:
            nisa.tensor_tensor(dst=acc, data1=acc, data2=part, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out
