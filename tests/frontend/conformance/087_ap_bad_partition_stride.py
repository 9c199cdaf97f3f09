# feature: .ap on SBUF whose first pair is not the partition dim (wrong stride) is rejected naming the expected stride
# expect-error: {file}:10:9: error: ap: the first [stride, count] pair is the partition dimension of 't' and its stride must be 64 (the float32 elements per partition), got 1
import nki
import nki.language as nl


@nki.jit
def ap_bad_partition_stride():
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    v = t.ap([[1, 64], [64, 128]])
    return None
