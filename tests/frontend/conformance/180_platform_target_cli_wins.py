# feature: --target on the command line wins over the decorator's platform_target (legacy spelling nki.jit(fn, platform_target=...))
# args: --target trn2
# golden: np.array([[0]], np.float32)
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
from conflib import emit


def target_gen():
    return emit([nisa.get_nc_version() == nisa.nc_version.gen2])


target_gen = nki.jit(target_gen, mode="simulation", platform_target="trn1")
