# feature: type annotations on parameters, returns, variables and class fields (evaluated, ignored)
# golden: expect(compute() + [3])
from typing import Dict, List, Optional, Tuple

import nki
import nki.language as nl
import nki.typing as nt
from conflib import emit, expect


class Cfg(nl.NKIObject):
    tile: int = 128
    names: List[str] = None


def scale(x: float, factor: Optional[float] = None) -> float:
    result: float = x * (factor if factor is not None else 2.0)
    return result


def compute() -> List[float]:
    counts: Dict[str, int] = {"a": 1}
    pair: Tuple[int, int] = (3, 4)
    later: int
    return [scale(1.5), scale(1.5, 4.0), counts["a"], pair[1], Cfg().tile]


@nki.jit
def type_annotations(n: int = 3) -> nt.tensor:
    return emit(compute() + [n])
