# feature: an LNC=2 launch is a 1-D grid of 2: program_ndim() is 1, num_programs(axes=0) / num_programs() / num_programs(axes=(0,)) are 2
# args: --lnc 2
# golden: np.array([[1, 2, 2, 2]], np.float32)
import nki
import nki.language as nl
from conflib import emit


@nki.jit
def lnc2_program_ndim():
    return emit([nl.program_ndim(), nl.num_programs(axes=0), nl.num_programs(), nl.num_programs(axes=(0,))])
