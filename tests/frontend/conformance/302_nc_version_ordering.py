# feature: nki.isa.nc_version members are ordered by generation (get_nc_version() >= nc_version.gen3); default target trn2
# golden: np.array([[1, 0, 1, 1, 0, 1]], np.float32)
import nki
import nki.isa as nisa
from conflib import emit


@nki.jit
def nc_version_ordering():
    v = nisa.get_nc_version()
    g = nisa.nc_version
    return emit([v >= g.gen3, v > g.gen3, v < g.gen4, g.gen2 <= v, v <= g.gen2, sorted([g.gen4, g.gen2])[0] == g.gen2])
