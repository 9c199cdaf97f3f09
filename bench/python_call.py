"""Wall time of one in-process call from Python: a one-tile [128, 512] fp32 add (nki.jit kernel called with
numpy arrays; functional, as nki.simulate runs) and the timed nkisim.simulate of the same call.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_call.py [--repeat N]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
import nkisim  # noqa: E402
from kernels import current  # noqa: E402


def median_ms(fn, repeat):
    fn()  # the first call compiles; the program is cached for the next ones
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=200)
    n = ap.parse_args().repeat
    rng = np.random.default_rng(0)
    a, b = rng.random((128, 512), dtype=np.float32), rng.random((128, 512), dtype=np.float32)
    t = time.perf_counter()
    current.tile_add(a, b)
    print(f"first call (compile + simulate):          {(time.perf_counter() - t) * 1e3:7.3f} ms")
    for label, fn in [("tile_add(a, b) (functional)", lambda: current.tile_add(a, b)),
                      ("nkisim.simulate(tile_add, a, b) (timed)", lambda: nkisim.simulate(current.tile_add, a, b))]:
        med, best = median_ms(fn, n)
        print(f"{label:42s} median {med:7.3f} ms   min {best:7.3f} ms   ({n} calls)")


if __name__ == "__main__":
    main()
