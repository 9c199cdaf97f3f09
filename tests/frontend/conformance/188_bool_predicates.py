# feature: a legacy comparison's bool tile is a predicate for tensor_copy_predicated and select_reduce
# input: a = rng.standard_normal((128, 32)).astype(np.float32)
# input: b = rng.standard_normal((128, 32)).astype(np.float32)
# golden: np.where(a > b, a, b)
# golden: np.where(a > 0, a, -1.0).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def bool_preds(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    pred = nl.greater(x, y)
    res = nl.copy(y)
    nisa.tensor_copy_predicated(src=x, dst=res, predicate=pred)
    nl.store(out, value=res)
    sel = nl.ndarray(a.shape, dtype=a.dtype)
    nisa.select_reduce(dst=sel, predicate=nl.greater(x, 0.0), on_true=x, on_false=-1.0)
    nl.store(out2, value=sel)
    return out, out2
