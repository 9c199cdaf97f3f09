#!/usr/bin/env python3
"""Simulated vs published device times of whole kernels (issue 19's calibration set).

Runs AWS's public tutorial kernels from a checkout of aws-neuron/nki-samples (fused Mamba) and of
aws-neuron/aws-neuron-sdk (the matrix-multiplication optimisation steps) through `nki-sim --timing-only` and
prints, for each published point, the simulated figure next to the published one with the relative error,
then the median and maximum error. The corpora are not part of this repository; nothing here copies them.

  /usr/bin/python3 bench/fidelity.py --samples DIR --sdk DIR [--nki-sim build/nki-sim] [--json FILE]
                                     [--only mamba|matmul]

Published figures (device time and engine-active percentages from neuron-profile) and their sources. The Mamba
tutorial's Vector-active percentages are the profiler's "Selection Summary" over the Vector engine's own
instructions (its figures show the selection, e.g. 16.92-167.84 us of the 172.93 us mamba_v1 run), so they are
compared with busy time over the simulated Vector engine's first-to-last span; the matmul tutorial's come from
the profile summary, over the whole run.
  fused Mamba: aws-neuron-sdk nki/guides/tutorials/fused_mamba.rst (fp32, batch 1, state 16, one core; the
    tutorial predates Trn2, so the points run as trn1);
  matmul: aws-neuron-sdk nki/guides/tutorials/kernel-optimization.rst (fp32 lhs [4096, 8192], rhs [8192, 8192],
    trn2): the engine-active percentages of its text; the device times from its profile-summary figures
    (nki/img/how-to/v2-pe.png ... v5-pe.png: Tensor Engine active time / its percentage, e.g. 34.82 ms / 87.28% =
    39.894 ms for the tiled step; the M,N-blocked step's timeline, v4-full.png, ends at 28.41 ms).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

MAMBA = "src/nki_samples/tutorials/fused_mamba/mamba_nki_kernels.py"
MATMUL = "nki/examples/matrix_multiplication/matrix_multiplication_nki_kernels.py"

# (name, corpus, file, kernel, target, shapes, published {metric: value}); metrics: total_us, <engine>_active_pct.
POINTS = [
    ("mamba_v1 C=256 L=512", "samples", MAMBA, "mamba_v1", "trn1", ("mamba", 256, 512),
     {"total_us": 172.93, "vector_active_pct": 98.71}),
    ("mamba_v1 C=4096 L=512", "samples", MAMBA, "mamba_v1", "trn1", ("mamba", 4096, 512),
     {"total_us": 2340.0, "vector_active_pct": 92.16}),
    ("mamba_v2 C=4096 L=512", "samples", MAMBA, "mamba_v2", "trn1", ("mamba", 4096, 512),
     {"total_us": 1610.0, "vector_active_pct": 99.63}),
    ("mamba_v2 C=4096 L=8192", "samples", MAMBA, "mamba_v2", "trn1", ("mamba", 4096, 8192),
     {"total_us": 53330.0, "vector_active_pct": 58.93}),
    ("mamba_v3 C=4096 L=8192", "samples", MAMBA, "mamba_v3", "trn1", ("mamba", 4096, 8192),
     {"total_us": 27800.0, "vector_active_pct": 94.85}),
    ("matmul tiled", "sdk", MATMUL, "nki_matmul_tiled_", "trn2", ("matmul", 4096, 8192, 8192),
     {"total_us": 39894.0, "dma_active_pct": 99.93, "tensor_active_pct": 87.28}),
    ("matmul loads hoisted", "sdk", MATMUL, "nki_matmul_hoist_load_", "trn2", ("matmul", 4096, 8192, 8192),
     {"total_us": 28202.0, "dma_active_pct": 99.73, "tensor_active_pct": 99.85}),
    ("matmul M,N blocked", "sdk", MATMUL, "nki_matmul_block_free_dimension_", "trn2", ("matmul", 4096, 8192, 8192),
     {"total_us": 28410.0, "dma_active_pct": 95.70, "tensor_active_pct": 99.52}),
    ("matmul M,N,K blocked", "sdk", MATMUL, "nki_matmul_fully_optimized_", "trn2", ("matmul", 4096, 8192, 8192),
     {"total_us": 28302.0, "dma_active_pct": 21.54, "tensor_active_pct": 99.50, "vector_active_pct": 10.55}),
]


def inputs(shapes, folder):
    """Input .npy files for the point (values do not matter for --timing-only; shapes and dtypes do)."""
    kind = shapes[0]
    if kind == "mamba":
        _, c, l = shapes
        arrays = {"delta": (1, c, l), "u": (1, c, l), "A": (c, 16), "B": (1, 16, l), "C": (1, 16, l)}
    else:
        _, m, k, n = shapes
        arrays = {"lhsT": (k, m), "rhs": (k, n)}
    paths = []
    for name, shape in arrays.items():
        path = os.path.join(folder, "%s_%s.npy" % (name, "x".join(map(str, shape))))
        if not os.path.exists(path):
            np.save(path, np.zeros(shape, np.float32))
        paths.append(path)
    return paths


def engine_spans(trace_file):
    """{engine: (first start, last end) in ns} from a --trace file: the window a profile selection of the engine's
    instructions covers."""
    with open(trace_file) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = {}
    for e in events:
        if e.get("ph") != "X" or names.get(e.get("tid")) is None:
            continue
        name = names[e["tid"]]
        lo, hi = spans.get(name, (float("inf"), 0.0))
        spans[name] = (min(lo, e["ts"] * 1e3), max(hi, (e["ts"] + e["dur"]) * 1e3))
    return spans


def simulate(nki_sim, kernel_file, kernel, target, paths, folder, window):
    stats = os.path.join(folder, "stats.json")
    trace = os.path.join(folder, "trace.json")
    cmd = [nki_sim, kernel_file, "-k", kernel, "--target", target, "--timing-only", "--stats", stats, "-q",
           "--inputs"] + paths
    if window == "engine":
        cmd += ["--trace", trace, "--trace-detail=queues"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[0]
    with open(stats) as f:
        s = json.load(f)
    total = s["total_ns"]
    # The device time includes the runtime's launch preamble and teardown (device_ns); the engine-active
    # percentages are over the kernel's own span, as the profile summary's total_time excludes setup/teardown.
    got = {"total_us": s.get("device_ns", total) / 1e3}
    spans = engine_spans(trace) if window == "engine" else {}
    for engine, e in s["engines"].items():
        lo, hi = spans.get(engine, (0.0, total))
        got[engine + "_active_pct"] = 100.0 * e["busy_ns"] / (hi - lo) if hi > lo else 0.0
    return got, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", help="checkout of aws-neuron/nki-samples")
    ap.add_argument("--sdk", help="checkout of aws-neuron/aws-neuron-sdk")
    ap.add_argument("--nki-sim", default=os.path.join(HERE, "..", "build", "nki-sim"))
    ap.add_argument("--only", choices=["mamba", "matmul"])
    ap.add_argument("--json", help="write the rows as JSON")
    a = ap.parse_args()
    roots = {"samples": a.samples, "sdk": a.sdk}
    rows, errors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, corpus, rel, kernel, target, shapes, published in POINTS:
            if a.only and not kernel.startswith(a.only) and not name.startswith(a.only):
                continue
            if not roots[corpus]:
                continue
            path = os.path.join(roots[corpus], rel)
            window = "engine" if corpus == "samples" else "run"
            got, err = simulate(a.nki_sim, path, kernel, target, inputs(shapes, tmp), tmp, window)
            for metric, want in published.items():
                row = {"point": name, "target": target, "metric": metric, "published": want,
                       "simulated": None if got is None else got[metric], "error_pct": None, "note": err}
                if got is not None:
                    row["error_pct"] = 100.0 * (got[metric] - want) / want
                    errors.append(abs(row["error_pct"]))
                rows.append(row)
    print("%-26s %-6s %-20s %12s %12s %9s" % ("point", "target", "metric", "published", "simulated", "error"))
    for r in rows:
        if r["simulated"] is None:
            print("%-26s %-6s %-20s %12.2f %12s %9s  %s" % (r["point"], r["target"], r["metric"], r["published"],
                                                           "-", "-", r["note"]))
        else:
            print("%-26s %-6s %-20s %12.2f %12.2f %+8.1f%%" % (r["point"], r["target"], r["metric"], r["published"],
                                                              r["simulated"], r["error_pct"]))
    if errors:
        print("median |error| %.1f%%, max |error| %.1f%% over %d figures (%d points failed to run)" %
              (statistics.median(errors), max(errors), len(errors),
               len({r["point"] for r in rows if r["simulated"] is None})))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if rows else 2


if __name__ == "__main__":
    sys.exit(main())
