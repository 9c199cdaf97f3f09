"""End-to-end: --trace-detail (issue 18 part 5, docs/html.md "A lighter trace"): `queues` drops the per-DMA-engine
slices and keeps the per-queue ones, `engines` keeps both, and without the option a run with more than 20000 DMA
engine slices gets `queues`. Every trace stays valid JSON; the lighter one is smaller."""
import collections
import json
import os

import numpy as np

from common import EXAMPLES, SRC, check, check_equal, finish, run, save, tmpdir, write_file

d = tmpdir()


def slices(path):
    """{track kind ("dma.e", "dma.q", engine name): X events} of a trace file (None when it is not JSON)."""
    try:
        with open(path) as f:
            ev = json.load(f)["traceEvents"]
    except (OSError, ValueError) as e:
        check(False, f"{path}: not valid JSON ({e})")
        return None
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
    kinds = collections.Counter()
    for e in ev:
        if e["ph"] == "X":
            n = names[(e["pid"], e["tid"])]
            kinds[n[:5] if n.startswith("dma.") else n] += 1
    return kinds


def trace(kernel, inputs, tag, *extra):
    path = os.path.join(d, tag + ".json")
    rc, so, se = run(kernel, "--inputs", *inputs, "-o", os.path.join(d, "o_" + tag), "-q", "--trace", path, *extra)
    check_equal(rc, 0, f"{tag}: exit code ({se})")
    return path, slices(path) if rc == 0 else None


# A small run: DMA engine slices by default; `queues` drops them, keeping the per-queue slices and everything else.
rng = np.random.default_rng(5)
pa = save(d, "a.npy", rng.standard_normal((256, 1024)).astype(np.float32))
pb = save(d, "b.npy", rng.standard_normal((256, 1024)).astype(np.float32))
add = os.path.join(EXAMPLES, "tensor_add.py")
full, k_full = trace(add, [pa, pb], "add")
light, k_light = trace(add, [pa, pb], "add_queues", "--trace-detail=queues")
eng, k_eng = trace(add, [pa, pb], "add_engines", "--trace-detail", "engines")
if k_full and k_light and k_eng:
    check(k_full["dma.e"] > 0 and k_full["dma.q"] == 12, f"default (small run): engine and queue slices {k_full}")
    check_equal(k_eng, k_full, "--trace-detail=engines is the small run's default")
    check_equal(k_light["dma.e"], 0, "--trace-detail=queues: no DMA engine slices")
    check_equal({k: v for k, v in k_light.items()}, {k: v for k, v in k_full.items() if k != "dma.e"},
                "--trace-detail=queues keeps every other slice")
    check(os.path.getsize(light) < os.path.getsize(full) / 2,
          f"the lighter trace is smaller: {os.path.getsize(light)} vs {os.path.getsize(full)} bytes")

# 1400 small transfers on 16 DMA engines: more than 20000 engine slices, so the default is `queues`.
many = write_file(d, "many_dma.py", """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def many_dma(x):
    P, N = x.shape
    out = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.sbuf)
    for i in range(N // 4):
        nisa.dma_copy(dst=t[:, 4 * i:4 * i + 4], src=x[:, 4 * i:4 * i + 4])
    nisa.dma_copy(dst=out, src=t)
    return out
""")
px = save(d, "x.npy", np.arange(128 * 5600, dtype=np.float32).reshape(128, 5600))
big, k_big = trace(many, [px], "many")
big_eng, k_big_eng = trace(many, [px], "many_engines", "--trace-detail=engines")
if k_big and k_big_eng:
    check(k_big_eng["dma.e"] > 20000, f"--trace-detail=engines: the DMA engine slices ({k_big_eng['dma.e']})")
    check_equal((k_big["dma.e"], k_big["dma.q"]), (0, 1401), "above 20000 engine slices the default is queues")
    check(os.path.getsize(big) < os.path.getsize(big_eng) / 3,
          f"default trace of the large run: {os.path.getsize(big)} vs {os.path.getsize(big_eng)} bytes")

# LNC=2: the detail applies to both cores' processes.
lnc = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
_, k_lnc = trace(lnc, [pa, pb], "lnc", "-k", "lnc_add", "--lnc", "2")
_, k_lnc_q = trace(lnc, [pa, pb], "lnc_queues", "-k", "lnc_add", "--lnc", "2", "--trace-detail=queues")
if k_lnc and k_lnc_q:
    check(k_lnc["dma.e"] > 0 and k_lnc_q["dma.e"] == 0 and k_lnc_q["dma.q"] == k_lnc["dma.q"] > 0,
          f"LNC=2 --trace-detail=queues: {k_lnc_q} vs {k_lnc}")

rc, so, se = run(add, "--inputs", pa, pb, "--trace", os.path.join(d, "x.json"), "--trace-detail=all")
check(rc == 2 and "--trace-detail expects 'queues' or 'engines', got 'all'" in se, f"bad --trace-detail: {rc} {se!r}")

finish()
