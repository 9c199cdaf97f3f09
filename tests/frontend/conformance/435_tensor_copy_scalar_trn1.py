# feature: rejected: nisa.tensor_copy on the Scalar Engine on trn1 (NeuronCore-v2 has no tensor_copy there; activation with nl.copy is the way), a located error
# args: --target trn1
# expect-error: {file}:14:5: error: tensor_copy: the scalar engine has no tensor_copy on trn1 (NeuronCore-v2): use nisa.activation with op=nl.copy, or engine=nisa.vector_engine / gpsimd_engine
# input: a = rng.standard_normal((128, 64)).astype(np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def copy_on_act(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nisa.tensor_copy(dst=t, src=t, engine=nisa.scalar_engine)
    nl.store(out, value=t)
    return out
