"""Benchmarks nki-sim against numpy doing the same math, in one run on the same machine.

    /usr/bin/python3 bench/run.py [--nki-sim build/nki-sim]

Prints wall times and ratios. Cases whose example kernel is missing are skipped with a note.
numpy should use OpenBLAS (Debian libopenblas0-pthread) for the matmul comparison; the script prints
which BLAS numpy links.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_sim(exe, kernel, inputs, args=(), extra=()):
    out = tempfile.mkdtemp(prefix="nkisim-bench-")
    cmd = [exe, kernel, "--inputs", *inputs, "-o", out, "-q", *extra]
    for a in args:
        cmd += ["--arg", a]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return dt, out


def blas_name():
    try:
        cfg = np.show_config(mode="dicts")  # numpy >= 1.25
        return str(cfg.get("Build Dependencies", {}).get("blas", {}).get("name", "?"))
    except TypeError:
        import io
        import contextlib
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            np.show_config()
        text = buf.getvalue()
        return "openblas" if "openblas" in text.lower() else "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nki-sim", default=os.path.join(ROOT, "build", "nki-sim"))
    args = ap.parse_args()
    exe = args.nki_sim
    d = tempfile.mkdtemp(prefix="nkisim-bench-in-")
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, BLAS: {blas_name()}")

    # (c) many small instructions.
    steps = 10000
    x = rng.standard_normal((128, 64), dtype=np.float32)
    np.save(os.path.join(d, "x.npy"), x)
    sim_s, _ = run_sim(exe, os.path.join(ROOT, "bench", "small_ops.py"), [os.path.join(d, "x.npy")], [f"steps={steps}"])
    ninstr = 2 * steps + 2

    def numpy_small():
        a = x.copy()
        for _ in range(steps):
            b = a * np.float32(0.5) + np.float32(1.0)
            a = np.maximum(a, b)
    np_s = timed(numpy_small, 1)
    print(f"(c) small ops: {ninstr} instructions, nki-sim {sim_s:.3f} s total "
          f"({sim_s / ninstr * 1e6:.2f} us/instruction incl. compile and process start), numpy {np_s:.3f} s, "
          f"ratio {sim_s / np_s:.2f}x")

    # (a) tiled bf16 matmul 2048^3 and (b) softmax 4096x4096 need their example kernels.
    mm = os.path.join(ROOT, "examples", "matmul_bf16.py")
    if os.path.exists(mm):
        n = 2048
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        np.save(os.path.join(d, "a.npy"), a)
        np.save(os.path.join(d, "b.npy"), b)
        try:
            sim_s, _ = run_sim(exe, mm, [os.path.join(d, "a.npy:bfloat16"), os.path.join(d, "b.npy:bfloat16")])
            np_s = timed(lambda: a @ b)
            print(f"(a) bf16 matmul {n}^3: nki-sim {sim_s:.3f} s, numpy fp32 {np_s:.3f} s, ratio {sim_s / np_s:.2f}x")
        except RuntimeError as e:
            print(f"(a) bf16 matmul: nki-sim failed: {e.splitlines()[0] if str(e) else e}")
    else:
        print("(a) bf16 matmul: examples/matmul_bf16.py not present, skipped")
    sm = os.path.join(ROOT, "examples", "softmax.py")
    if os.path.exists(sm):
        x = rng.standard_normal((4096, 4096), dtype=np.float32)
        np.save(os.path.join(d, "s.npy"), x)
        try:
            sim_s, _ = run_sim(exe, sm, [os.path.join(d, "s.npy")])

            def numpy_softmax():
                m = x.max(axis=1, keepdims=True)
                e = np.exp(x - m)
                return e / e.sum(axis=1, keepdims=True)
            np_s = timed(numpy_softmax)
            print(f"(b) softmax 4096x4096: nki-sim {sim_s:.3f} s, numpy {np_s:.3f} s, ratio {sim_s / np_s:.2f}x")
        except RuntimeError as e:
            print(f"(b) softmax: nki-sim failed: {str(e).splitlines()[0] if str(e) else e}")
    else:
        print("(b) softmax: examples/softmax.py not present, skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
