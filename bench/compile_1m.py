#!/usr/bin/env python3
"""Benchmark: compile a kernel whose meta-program unrolls to 1,000,000 nki.isa instructions.

    python3 bench/compile_1m.py [BUILD_DIR]     (default: build)

Generates the kernel in a temporary directory and times frontend::compile_to_ir with nki-bench-compile
(best of 3). The kernel is realistic meta-code: a helper function, a config dict, tuple unpacking,
arithmetic on loop indices, sliced views and nl.ds in a 1000 x 1000 loop nest, one tensor_tensor per
iteration. Target: under 2 s.
"""
import os
import subprocess
import sys
import tempfile

KERNEL = '''
import nki
import nki.language as nl
import nki.isa as nisa

CFG = {"tile": 128, "cols": 4}


def add_tile(dst, a, b, c, width):
    lo, hi = c * width, (c + 1) * width
    nisa.tensor_tensor(dst=dst[:, lo:hi], data1=a[:, lo:hi], data2=b[:, nl.ds(lo, width)], op=nl.add)


@nki.jit
def bench_1m(n_outer=1000, n_inner=1000):
    width, cols = CFG["tile"], CFG["cols"]
    out = nl.ndarray((128, width * cols), nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, width * cols), nl.float32, buffer=nl.sbuf)
    b = nl.ndarray((128, width * cols), nl.float32, buffer=nl.sbuf)
    acc = nl.ndarray((128, width * cols), nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(n_outer):
        for j in nl.affine_range(n_inner):
            add_tile(acc, a, b, (i + j) % cols, width)
    nisa.dma_copy(dst=out, src=acc)
    return out
'''


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    exe = os.path.join(build, "nki-bench-compile")
    d = tempfile.mkdtemp(prefix="nkisim-bench-")
    path = os.path.join(d, "bench_1m.py")
    with open(path, "w") as f:
        f.write(KERNEL)
    r = subprocess.run([exe, path, "--repeat", "3"], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(r.returncode)
    secs = float([l for l in r.stdout.splitlines() if l.startswith("compile_to_ir:")][0].split()[1])
    print(f"1,000,001 instructions compiled in {secs:.3f} s ({'under' if secs < 2 else 'OVER'} the 2 s target)")


if __name__ == "__main__":
    main()
