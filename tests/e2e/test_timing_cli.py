"""End-to-end: the timing outputs of the CLI (--stats, --trace, --profile, --explain, --functional,
--timing-only, --param) on the examples, and determinism (two runs give byte-identical stats and traces)."""
import json
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, load_core, load_json, run, save, tmpdir

ADD = os.path.join(EXAMPLES, "tensor_add.py")
MATMUL = os.path.join(EXAMPLES, "matmul_bf16.py")

d = tmpdir()
rng = np.random.default_rng(7)
pa = save(d, "a.npy", rng.standard_normal((256, 1024)).astype(np.float32))
pb = save(d, "b.npy", rng.standard_normal((256, 1024)).astype(np.float32))


def read(path):
    with open(path, "rb") as f:
        return f.read()


# --stats / --trace, twice: byte-identical.
outs = []
for k in range(2):
    o = os.path.join(d, f"run{k}")
    rc, so, se = run(ADD, "--inputs", pa, pb, "-o", o, "--stats", os.path.join(d, f"s{k}.json"),
                     "--trace", os.path.join(d, f"t{k}.json"), "-q")
    check_equal(rc, 0, f"timed run {k}: {se}")
    outs.append(o)
check(read(os.path.join(d, "s0.json")) == read(os.path.join(d, "s1.json")), "stats are byte-identical across runs")
check(read(os.path.join(d, "t0.json")) == read(os.path.join(d, "t1.json")), "traces are byte-identical across runs")

s = load_core(os.path.join(d, "s0.json"))
for key in ("target", "total_ns", "total_cycles", "instructions", "engines", "mode", "dma",
            "mfu_estimated_percent", "mbu_estimated_percent", "pe_macs"):
    check(key in s, f"stats has {key}")
check_equal(s["mode"], "timed", "stats mode")
for e in ("tensor", "vector", "scalar", "gpsimd", "sync", "dma"):
    check("utilization_percent" in s["engines"][e], f"stats engine {e} utilisation")
check_equal(s["dma"]["transfers"], 12, "tensor_add: 8 loads + 4 stores")
check_equal(s["dma"]["bytes"], 3 * 256 * 1024 * 4.0, "DMA bytes: two inputs and the output")
check_equal(s["dma"]["average_transfer_bytes"], 128 * 512 * 4.0, "average transfer: one [128, 512] fp32 tile")
check_equal(s["dma"]["hbm_read_bytes"], 2 * 256 * 1024 * 4.0, "HBM read bytes")
mbu = 100 * (s["dma"]["hbm_read_bytes"] + s["dma"]["hbm_write_bytes"]) / s["total_ns"] / 725.0
check(abs(s["mbu_estimated_percent"] - mbu) < 1e-9, "MBU = HBM bytes / time / one trn2 stack (725 B/ns)")
check_equal(s["mfu_estimated_percent"], 0, "no matmul: MFU 0")

t = load_json(os.path.join(d, "t0.json"))["traceEvents"]
phases = {e["ph"] for e in t}
check({"M", "X", "s", "f", "C"} <= phases, f"trace has slices, flow arrows and counters: {phases}")
names = {e["args"]["name"] for e in t if e["ph"] == "M" and e["name"] == "thread_name"}
check({"vector", "sync", "dma.q0", "dma.e0", "dma.e15"} <= names, "tracks per engine, DMA queue and DMA engine")
counters = {e["name"] for e in t if e["ph"] == "C"}
check({"sbuf_bytes_per_partition", "psum_bytes_per_partition", "psum_banks_in_use"} <= counters, "usage counters")
check(sum(1 for e in t if e["ph"] == "s") == sum(1 for e in t if e["ph"] == "f"), "flow starts match flow ends")

# --profile to stdout and to a file.
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", os.path.join(d, "p"), "--profile")
check_equal(rc, 0, f"--profile: {se}")
for part in ("Time per source line", "Time per opcode", "Engines:", "Critical path", "Biggest stalls",
             "tensor_add.py:27", "semaphore"):
    check(part in so, f"--profile output has '{part}'")
prof = os.path.join(d, "prof.txt")
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", os.path.join(d, "p2"), "-q", f"--profile={prof}")
check(rc == 0 and so == "" and "Critical path" in open(prof).read(), "--profile=FILE writes the file")

# --explain: every instruction, one line, FILE:LINE; a bad line is a usage error.
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", os.path.join(d, "e"), "-q", "--explain")
check(rc == 0 and so.count("formula:") == 16, f"--explain explains all 16 instructions ({so.count('formula:')})")
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", os.path.join(d, "e"), "-q", "--explain=27")
check(rc == 0 and so.count("formula:") == 4 and "max(MIN_II, 2N)" in so and "1024 cycles" in so,
      "--explain=27: the four fp32 adds, 2N = 1024 cycles")
check("waited:" in so and "semaphore" in so, "--explain shows what an instruction waited for")
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", os.path.join(d, "e"), "-q", "--explain=tensor_add.py:23")
check(rc == 0 and so.count("formula:") == 4 and "transfer:" in so, "--explain=FILE:LINE: the loads and their transfers")
# A [128, 512] fp32 load from rows 4 KiB apart: per engine 8 rows of 2 KiB, each opening an HBM page; the bytes bound
# it: 8 x 6 + 16384 / 23 = 760.348 ns (the packet rate, 8 x 15, and the pages, 8 x 55.6, are below it).
check("per engine (e.g. engine 0): max(8 buffers x 6 ns + 16384 B / 23 B/ns, 8 buffers x dma_buffer_min_ns 15 ns, "
      "8 page openings x dma_page_ns 55.6 ns) = 760.348 ns alone" in so, "--explain: a DMA share's three terms")
rc, so, se = run(ADD, "--inputs", pa, pb, "--explain=x")
check_equal(rc, 2, "--explain=x is a usage error")

# --functional: same outputs, no timing; excludes --trace / --profile / --timing-only.
f = os.path.join(d, "func")
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", f, "--stats", os.path.join(d, "sf.json"))
check_equal(rc, 0, f"--functional baseline: {se}")
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", f + "2", "--functional", "--stats", os.path.join(d, "sf2.json"))
check_equal(rc, 0, f"--functional: {se}")
check(np.array_equal(np.load(os.path.join(f, "output_0.npy")), np.load(os.path.join(f + "2", "output_0.npy"))),
      "--functional gives the timed run's outputs")
sf = load_core(os.path.join(d, "sf2.json"))
check(sf["mode"] == "functional" and sf["total_ns"] == 0, "functional stats: mode, no time")
check("functional run" in so, "functional summary line")
for extra in (["--trace", os.path.join(d, "x.json")], ["--profile"], ["--timing-only"]):
    rc, so, se = run(ADD, "--inputs", pa, pb, "--functional", *extra)
    check_equal(rc, 2, f"--functional with {extra[0]} is a usage error")

# --timing-only: same stats as the timed run (except the mode), no output files.
to = os.path.join(d, "to")
rc, so, se = run(ADD, "--inputs", pa, pb, "-o", to, "--timing-only", "--stats", os.path.join(d, "st.json"))
check_equal(rc, 0, f"--timing-only: {se}")
check(not os.path.exists(os.path.join(to, "output_0.npy")), "--timing-only writes no outputs")
st = load_json(os.path.join(d, "st.json"))
check_equal(st["cores"][0]["mode"], "timing-only", "timing-only stats mode")
st["cores"][0]["mode"] = "timed"
check(st == load_json(os.path.join(d, "sf.json")), "timing-only stats equal the timed run's")

# Matmul: MFU, background LoadStationary, the throttling ramp (on for trn2; --param pe_throttle=0 turns it off), targets.
pat = save(d, "at.npy", rng.standard_normal((512, 256)).astype(np.float32))
pbm = save(d, "bm.npy", rng.standard_normal((512, 1024)).astype(np.float32))
res = {}
# Without the multiplies' drain and with the loads free (so the Tensor Engine runs back to back, not behind its DMAs).
NO_DRAIN = ["--param", "pe_drain_ns=0", "--param", "dma_engine_bytes_per_ns=1e6", "--param", "hbm_bytes_per_ns=1e6",
            "--param", "dma_fixed_ns=0", "--param", "dma_buffer_min_ns=0", "--param", "dma_page_ns=0",
            "--param", "dma_hwdge_ns=0"]
for tgt, params in (("trn2", []), ("trn2", ["--param", "pe_throttle=0"]), ("trn2", NO_DRAIN),
                    ("trn2", ["--param", "pe_background_ls=0"] + NO_DRAIN), ("trn1", []), ("trn3", [])):
    sp = os.path.join(d, f"m_{tgt}_{len(res)}.json")
    rc, so, se = run(MATMUL, "--inputs", f"{pat}:bfloat16", f"{pbm}:bfloat16", "--target", tgt, *params,
                     "-o", os.path.join(d, "mm"), "-q", "--stats", sp)
    check_equal(rc, 0, f"matmul on {tgt} {params}: {se}")
    res[(tgt, tuple(params))] = load_core(sp)
base = res[("trn2", ())]
check(base["mfu_estimated_percent"] > 0, "matmul has MFU")
check_equal(base["pe_macs"], 512.0 * 256 * 1024, "MACs = K x M x N")
mfu = 100 * base["pe_macs"] / (128 * 128 * 2.4 * base["total_ns"])
check(abs(base["mfu_estimated_percent"] - mfu) < 1e-9, "MFU formula")
off = res[("trn2", ("--param", "pe_throttle=0"))]
check(base["pe_average_throttle"] < 1 and off["pe_average_throttle"] == 1 and
      base["engines"]["tensor"]["busy_ns"] > off["engines"]["tensor"]["busy_ns"], "throttling slows the Tensor Engine")
# Compared without the multiplies' drain (pe_drain_ns), which as active time would cover the LoadStationary between
# two multiplies.
nobg = res[("trn2", tuple(["--param", "pe_background_ls=0"] + NO_DRAIN))]
check(nobg["engines"]["tensor"]["busy_ns"] > res[("trn2", tuple(NO_DRAIN))]["engines"]["tensor"]["busy_ns"],
      "without background LoadStationary the Tensor Engine is busy longer")
check(res[("trn1", ())]["target"] == "trn1" and res[("trn3", ())]["target"] == "trn3", "trn1 and trn3 targets")

# Unknown parameter / bad target stay usage errors.
rc, so, se = run(ADD, "--inputs", pa, pb, "--param", "no_such_param=1")
check_equal(rc, 2, "unknown --param")

finish()
