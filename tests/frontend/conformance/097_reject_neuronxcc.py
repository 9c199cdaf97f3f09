# feature: rejected: the legacy neuronxcc.nki API used inside a current-API (nki.jit) kernel (NKI 0.4+)
# expect-error: {file}:12:9: error: 'neuronxcc.nki.language.ndarray': the legacy neuronxcc.nki API cannot be used inside an nki.jit kernel (NKI 0.4+); use nki, nki.language and nki.isa instead
import neuronxcc.nki.language as legacy_nl

import nki
import nki.language as nl
from conflib import emit


@nki.jit
def reject_neuronxcc():
    t = legacy_nl.ndarray((1, 1), nl.float32, buffer=nl.sbuf)
    return emit([1])
