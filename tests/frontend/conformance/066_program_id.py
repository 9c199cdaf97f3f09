# feature: SPMD queries without a launch grid: nl.program_id(0) == 0, nl.num_programs() == 1, nl.program_ndim() == 0
# golden: expect([0, 1, 0, 0, 1])
import nki
import nki.language as nl
from conflib import emit, expect


def shard():
    n = nl.num_programs() if nl.program_ndim() > 0 else 1
    pid = nl.program_id(0) if nl.program_ndim() > 0 else 0
    return pid, n


@nki.jit
def program_id():
    pid, n = shard()
    return emit([nl.program_id(0), nl.num_programs(), nl.program_ndim(), pid, n])
