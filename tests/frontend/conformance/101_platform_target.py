# feature: nki.jit(platform_target=...) compiles the kernel for that target when the command line gives no --target (gen2 = trn1)
# golden: np.array([[1]], np.float32)
import nki
import nki.isa as nisa
from conflib import emit


@nki.jit(platform_target="trn1", mode="simulation", additional_compile_opt="-O1")
def platform_target():
    return emit([nisa.get_nc_version() == nisa.nc_version.gen2])
