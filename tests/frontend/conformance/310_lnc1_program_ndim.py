# feature: without a launch grid at LNC=1, program_ndim() is 0, num_programs(axes=0) is 1 and program_id(axis=0) is 0
# golden: np.array([[0, 1, 1, 0]], np.float32)
import nki
import nki.language as nl
from conflib import emit


@nki.jit
def lnc1_program_ndim():
    return emit([nl.program_ndim(), nl.num_programs(axes=0), nl.num_programs(None), nl.program_id(axis=0)])
