# feature: parsing a whole Python 3.11 file: decorators, classes, docstrings, annotations, async/await, match, ..., global statements in host code
# golden: expect(compute())
"""Module docstring: the whole file is parsed, only what the kernel reaches is evaluated."""
from __future__ import annotations

import functools
from typing import Optional, Tuple

import nki
import nki.language as nl
from conflib import emit, expect

COUNTER: int = 0


def counted(fn):
    """A decorator used on host code only."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global COUNTER
        COUNTER += 1
        return fn(*args, **kwargs)
    return wrapper


class HostHarness:
    """Host-side test harness class (never instantiated by the kernel)."""

    def __init__(self, n: int = 3) -> None:
        self.n = n

    async def run(self) -> list[int]:
        async with self.lock():
            return [x async for x in self.items()]

    def items(self):
        yield from range(self.n)

    def describe(self, value):
        match value:
            case {"kind": "tile", "size": int(size)} if size > 0:
                return f"tile of {size}"
            case [first, *rest]:
                return first
            case _:
                return None


def annotated(x: int, *, scale: float = 2.0, tag: Optional[str] = None) -> Tuple[int, float]:
    ...
    return x, x * scale


@counted
def decorated_host_only(x):
    return x


def compute():
    a, b = annotated(3, scale=1.5)
    lam = (lambda: (yield))  # a generator lambda: parsed, never called
    return [a, b, len(annotated.__name__)]


@nki.jit
def parse_whole_file():
    """Kernel docstring."""
    return emit(compute())


if __name__ == "__main__":
    import asyncio
    print(asyncio.run(HostHarness().run()))
