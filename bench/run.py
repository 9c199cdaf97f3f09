"""Benchmarks nki-sim against numpy doing the same math, in one run on the same machine.

    /usr/bin/python3 bench/run.py [--nki-sim build/nki-sim] [--cases abc] [--repeat N] [--rounds R] [--check]

For each case it prints the end-to-end wall time of the nki-sim process (process start, compile, lower,
simulate, writing outputs), the same for numpy (best of 3), their ratio, and nki-sim's phase breakdown
(from `nki-sim --time-phases`: wall and CPU seconds per phase). CPU seconds are printed next to wall
seconds because on a shared, loaded machine wall time includes waiting for a core; `uptime` is printed at
the start and end. Issue #5's targets: (a) <= 2x numpy, (b) <= 3x numpy, (c) < 1 us of simulate time per
instruction. numpy should use OpenBLAS (Debian libopenblas0-pthread); the script prints which BLAS numpy
links. With --repeat N, nki-sim runs N times and the fastest end-to-end run is reported. With --rounds R the
whole comparison runs R times and a summary per case follows (every round's figure, median, min, max, and in
how many rounds the target was met): on a noisy machine one round says little.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(fn, repeat=3):
    """Best wall time and the CPU time (all threads of this process) of that run."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best = min(best, (dt, time.process_time() - c0))
    return best


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def parse_phases(stderr):
    phases = {}
    for m in re.finditer(r"^nki-sim: (\w+)\s+([0-9.]+)\s+([0-9.]+)$", stderr, re.M):
        phases[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return phases


def run_sim(exe, kernel, inputs, args=(), repeat=1, flags=()):
    """Best of `repeat` runs: (wall s, cpu s, phases {name: (wall, cpu)}). flags: extra nki-sim options."""
    best = None
    for _ in range(repeat):
        out = tempfile.mkdtemp(prefix="nkisim-bench-")
        cmd = [exe, kernel, "--inputs", *inputs, "-o", out, "-q", "--time-phases", *flags]
        for a in args:
            cmd += ["--arg", a]
        c0 = children_cpu()
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        cpu = children_cpu() - c0
        shutil.rmtree(out, ignore_errors=True)
        if p.returncode != 0:
            raise RuntimeError(p.stderr)
        res = (dt, cpu, parse_phases(p.stderr))
        if best is None or res[0] < best[0]:
            best = res
    return best


def phases_text(phases, instructions=None):
    order = ["inputs", "decode", "compile", "lower", "emit", "simulate", "outputs"]
    parts = [f"{k} {phases[k][0]:.3f}/{phases[k][1]:.3f}" for k in order if k in phases]
    text = "      phases wall/cpu s: " + ", ".join(parts)
    if instructions and "simulate" in phases:
        w, c = phases["simulate"]
        text += (f"\n      simulate per instruction: {w / instructions * 1e6:.3f} us wall, "
                 f"{c / instructions * 1e6:.3f} us cpu ({instructions} instructions)")
    return text


def check_overhead(label, exe, kernel, inputs, base, args=(), repeat=1):
    """--check (docs/checks.md): the same run with --check, and its simulate time against the plain run's."""
    sim = run_sim(exe, kernel, inputs, args, repeat, flags=("--check",))
    w0, c0 = base[2].get("simulate", (0, 0))
    w1, c1 = sim[2].get("simulate", (0, 0))
    print(f"      --check: simulate {w1:.3f} s wall / {c1:.3f} s cpu against {w0:.3f} / {c0:.3f} without: "
          f"{(w1 / w0 if w0 else 0):.2f}x wall, {(c1 / c0 if c0 else 0):.2f}x cpu")


RESULTS = []  # (case letter, end-to-end ratio, simulate us per instruction or None), one per report


def report(label, sim, np_best, instructions=None):
    sim_s, sim_cpu, phases = sim
    np_s, np_cpu = np_best
    print(f"{label}: nki-sim {sim_s:.3f} s wall ({sim_cpu:.3f} s cpu), numpy {np_s:.3f} s wall "
          f"({np_cpu:.3f} s cpu), ratio {sim_s / np_s:.2f}x wall")
    print(phases_text(phases, instructions))
    per_instr = phases["simulate"][0] / instructions * 1e6 if instructions and "simulate" in phases else None
    RESULTS.append((label[1], sim_s / np_s, per_instr))


# Issue #5's targets: (a) and (b) as end-to-end ratios to numpy, (c) as simulate us per instruction.
TARGETS = {"a": ("ratio", 2.0), "b": ("ratio", 3.0), "c": ("us/instr", 1.0)}


def summary(rounds):
    """After --rounds R: per case, every round's figure, its median and how many rounds met the target."""
    print(f"summary of {rounds} rounds:")
    for case in "abc":
        kind, limit = TARGETS[case]
        vals = [r[2] if kind == "us/instr" else r[1] for r in RESULTS if r[0] == case]
        vals = [v for v in vals if v is not None]
        if not vals:
            continue
        s = sorted(vals)
        median = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
        met = sum(v < limit if kind == "us/instr" else v <= limit for v in vals)
        print(f"  ({case}) {kind}: " + ", ".join(f"{v:.3f}" for v in vals) +
              f"; median {median:.3f}, min {s[0]:.3f}, max {s[-1]:.3f}; target {'<' if kind == 'us/instr' else '<='} "
              f"{limit:g} met in {met} of {len(vals)}")


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


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
    ap.add_argument("--cases", default="cab", help="which cases to run, e.g. 'c' or 'ab' (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="nki-sim runs per case (the fastest is reported)")
    ap.add_argument("--check", action="store_true",
                    help="also run every case with --check and print the simulate-time overhead (docs/checks.md)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run everything this many times and end with a summary per case (median, range, "
                         "rounds that met the target)")
    args = ap.parse_args()
    for r in range(max(1, args.rounds)):
        if args.rounds > 1:
            print(f"--- round {r + 1} of {args.rounds}")
        d = tempfile.mkdtemp(prefix="nkisim-bench-in-")
        try:
            rc = bench(d, args)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        if rc:
            return rc
    if args.rounds > 1:
        summary(args.rounds)
    return 0


def bench(d, args):
    exe = args.nki_sim
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, BLAS: {blas_name()}, cpus: {os.cpu_count()}")
    print(f"load at start: {uptime()}")

    if "c" in args.cases:  # many small instructions
        steps = 10000
        x = rng.standard_normal((128, 64), dtype=np.float32)
        np.save(os.path.join(d, "x.npy"), x)
        sim = run_sim(exe, os.path.join(ROOT, "bench", "small_ops.py"), [os.path.join(d, "x.npy")],
                      [f"steps={steps}"], args.repeat)
        ninstr = 2 * steps + 2

        def numpy_small():
            a = x.copy()
            for _ in range(steps):
                b = a * np.float32(0.5) + np.float32(1.0)
                a = np.maximum(a, b)
        report(f"(c) small ops, {ninstr} instructions", sim, timed(numpy_small, 1), ninstr)
        if args.check:
            check_overhead("c", exe, os.path.join(ROOT, "bench", "small_ops.py"), [os.path.join(d, "x.npy")], sim,
                           [f"steps={steps}"], args.repeat)

    mm = os.path.join(ROOT, "examples", "matmul_bf16.py")
    if "a" in args.cases and os.path.exists(mm):  # tiled bf16 matmul 2048^3
        n = 2048
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        np.save(os.path.join(d, "a.npy"), a)
        np.save(os.path.join(d, "b.npy"), b)
        try:
            sim = run_sim(exe, mm, [os.path.join(d, "a.npy:bfloat16"), os.path.join(d, "b.npy:bfloat16")],
                          repeat=args.repeat)
            report(f"(a) bf16 matmul {n}^3 vs numpy fp32 matmul", sim, timed(lambda: a @ b))
            if args.check:
                check_overhead("a", exe, mm, [os.path.join(d, "a.npy:bfloat16"), os.path.join(d, "b.npy:bfloat16")],
                               sim, repeat=args.repeat)
        except RuntimeError as e:
            print(f"(a) bf16 matmul: nki-sim failed: {str(e).splitlines()[0] if str(e) else e}")
    elif "a" in args.cases:
        print("(a) bf16 matmul: examples/matmul_bf16.py not present, skipped")

    sm = os.path.join(ROOT, "examples", "softmax.py")
    if "b" in args.cases and os.path.exists(sm):  # row softmax 4096 x 4096 fp32
        x = rng.standard_normal((4096, 4096), dtype=np.float32)
        np.save(os.path.join(d, "s.npy"), x)
        try:
            sim = run_sim(exe, sm, [os.path.join(d, "s.npy")], repeat=args.repeat)

            def numpy_softmax():
                m = x.max(axis=1, keepdims=True)
                e = np.exp(x - m)
                return e / e.sum(axis=1, keepdims=True)
            report("(b) softmax 4096x4096", sim, timed(numpy_softmax))
            if args.check:
                check_overhead("b", exe, sm, [os.path.join(d, "s.npy")], sim, repeat=args.repeat)
        except RuntimeError as e:
            print(f"(b) softmax: nki-sim failed: {str(e).splitlines()[0] if str(e) else e}")
    elif "b" in args.cases:
        print("(b) softmax: examples/softmax.py not present, skipped")
    print(f"load at end: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
