# feature: with: __enter__/__exit__ order, as-targets, several items, __exit__ on return/break, exception suppression, nl.no_reorder
# golden: expect(compute())
import nki
import nki.language as nl
from conflib import emit, expect

LOG = []


class Ctx(nl.NKIObject):
    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        LOG.append("enter " + self.name)
        return self.name.upper()

    def __exit__(self, exc_type, exc, tb):
        LOG.append("exit " + self.name + (" " + exc_type.__name__ if exc_type is not None else ""))
        return self.suppress


def early(n):
    with Ctx("r"):
        return n * 2


def compute():
    LOG.clear()
    with Ctx("a") as a, Ctx("b") as b:
        LOG.append(a + b)
    with Ctx("s", suppress=True):
        LOG.append("body")
        raise ValueError("swallowed")
    try:
        with Ctx("p"):
            {}["missing"]
    except KeyError:
        LOG.append("propagated")
    LOG.append(str(early(21)))
    for i in range(3):
        with Ctx("loop" + str(i)):
            if i == 1:
                break
    with nl.no_reorder():
        LOG.append("no_reorder")
    return LOG


@nki.jit
def with_statement():
    return emit(compute())
