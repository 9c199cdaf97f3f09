# feature: on-chip view rules: the partition dim cannot be selected, broadcast, permuted away or stepped
# expect-error: {file}:11:9: error: permute: the partition dimension of an on-chip tensor must stay first
import nki
import nki.language as nl


@nki.jit
def view_rule_errors():
    t = nl.ndarray((128, 64), nl.float32, buffer=nl.sbuf)
    ok = t.permute((0, 1))
    p = t.permute((1, 0))
    return None
