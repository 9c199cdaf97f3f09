"""The matmul story of docs/guide/04-matmul.md quotes measured numbers: this runs every step of it with nki-sim,
checks each step's output against numpy, and checks that the guide's table shows exactly what the simulator
measures now, so the guide never goes stale. After a deliberate cost-model change, rewrite the table with

    NKISIM=build/nki-sim /usr/bin/python3 tests/docs/test_guide_numbers.py --update
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.environ.get("NKISIM_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NKISIM = os.environ.get("NKISIM") or os.path.join(ROOT, "build", "nki-sim")
GUIDE = os.path.join(ROOT, "docs", "guide", "04-matmul.md")
KERNELS = os.path.join(ROOT, "docs", "guide", "kernels")
K, M, N = 1024, 1024, 2048

# (row label in the guide's table, kernel, input dtype, extra nki-sim options)
NO_DMA = ["--param", "dma_engine_bytes_per_ns=1e6", "--param", "hbm_bytes_per_ns=1e6", "--param", "dma_fixed_ns=0",
          "--param", "dma_buffer_min_ns=0", "--param", "dma_page_ns=0", "--param", "dma_hwdge_ns=0"]
STEPS = [("1", "mm1_naive.py", "float32", []),
         ("2", "mm1_naive.py", "bfloat16", []),
         ("3", "mm3_reuse.py", "bfloat16", []),
         ("4", "mm4_need_order.py", "bfloat16", []),
         ("what-if", "mm3_reuse.py", "bfloat16", NO_DMA)]


def bf16(x):
    """Rounds float32 to bfloat16 (nearest even), kept as float32: what `FILE:bfloat16` gives the kernel."""
    u = x.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32)


def measure(work):
    rng = np.random.default_rng(7)
    lhs_t = rng.standard_normal((K, M), dtype=np.float32)
    rhs = rng.standard_normal((K, N), dtype=np.float32)
    np.save(os.path.join(work, "lhs_t.npy"), lhs_t)
    np.save(os.path.join(work, "rhs.npy"), rhs)
    cells = {}
    for label, kernel, dtype, extra in STEPS:
        out, stats = os.path.join(work, "out-" + label), os.path.join(work, label + ".json")
        subprocess.run([NKISIM, os.path.join(KERNELS, kernel), "--inputs", os.path.join(work, "lhs_t.npy") + ":" + dtype,
                        os.path.join(work, "rhs.npy") + ":" + dtype, "-o", out, "-q", "--stats", stats] + extra,
                       check=True)
        a, b = (lhs_t, rhs) if dtype == "float32" else (bf16(lhs_t), bf16(rhs))
        want = a.T.astype(np.float64) @ b.astype(np.float64)
        got = np.load(os.path.join(out, "output_0.npy"))
        assert got.shape == (M, N) and got.dtype == np.float32, (label, got.shape, got.dtype)
        err = np.abs(got - want).max()
        assert err < 1e-3, f"step {label}: max error {err}"
        s = json.load(open(stats))["cores"][0]
        cells[label] = [f"{s['total_ns'] / 1000:.2f} us", f"{s['engines']['tensor']['utilization_percent']:.1f}%",
                        f"{s['engines']['dma']['utilization_percent']:.1f}%", f"{s['dma']['bytes'] / 1e6:.1f} MB",
                        f"{s['mfu_estimated_percent']:.1f}%"]
    return cells


ROW = re.compile(r"^\| (?P<label>[^|]+?) \| (?P<what>[^|]+?) \|(?P<cells>( [^|]+ \|){5})$")


def main():
    update = "--update" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as work:
        cells = measure(work)
    lines = open(GUIDE, encoding="utf-8").read().split("\n")
    seen, wrong = set(), []
    for n, line in enumerate(lines):
        m = ROW.match(line)
        if not m or m.group("label") not in cells:
            continue
        label = m.group("label")
        seen.add(label)
        have = [c.strip() for c in m.group("cells").strip(" |").split(" | ")]
        if have != cells[label]:
            wrong.append(f"04-matmul.md:{n + 1}: step {label} says {have}, the simulator measures {cells[label]}")
            lines[n] = f"| {label} | {m.group('what')} | " + " | ".join(cells[label]) + " |"
    missing = [label for label, *_ in STEPS if label not in seen]
    assert not missing, f"the guide's table has no row for steps {missing}"
    if wrong and update:
        open(GUIDE, "w", encoding="utf-8").write("\n".join(lines))
        print("\n".join(wrong) + "\nupdated " + GUIDE)
        return
    if wrong:
        sys.exit("\n".join(wrong) + "\n(run with --update after a deliberate cost-model change)")
    print(f"guide numbers: {len(seen)} steps match the simulator")


if __name__ == "__main__":
    main()
