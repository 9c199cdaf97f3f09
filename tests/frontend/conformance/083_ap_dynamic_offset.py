# feature: .ap(scalar_offset=...) on an on-chip tensor (a dynamic offset for compute engines) is rejected with a
# located "not supported yet" error (on HBM tensors it drives indirect DMA: tests/e2e/test_dma_indirect.py)
# expect-error: {file}:12:9: error: ap(scalar_offset=...) (a dynamic offset) on an on-chip tensor is not supported yet by nki-sim
import nki
import nki.language as nl


@nki.jit
def ap_dynamic_offset():
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    idx = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    v = t.ap([[64, 128], [1, 8]], scalar_offset=idx)
    return None
