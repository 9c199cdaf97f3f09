# feature: object.__setattr__(obj, name, value) sets a field of a frozen dataclass (plain assignment stays a FrozenInstanceError), as a config helper that caches constant-file names does
# input: a = rng.standard_normal((4, 8)).astype(np.float32)
# golden: a * 3.0
from dataclasses import dataclass

import nki
import nki.isa as nisa
import nki.language as nl


@dataclass(frozen=True)
class Cfg(nl.NKIObject):
    scale: float = 1.0


@nki.jit
def object_setattr(a):
    cfg = Cfg()
    object.__setattr__(cfg, "scale", 3.0)
    try:
        cfg.scale = 5.0
    except AttributeError:
        pass
    out = nl.ndarray((4, 8), nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((4, 8), nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=cfg.scale)
    nisa.dma_copy(dst=out, src=t)
    return out
