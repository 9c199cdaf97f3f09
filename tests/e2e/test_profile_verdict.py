"""End-to-end: the profile's verdict, evidence, warnings and stall sums (docs/profile.md) on small kernels of
our own, one per verdict and warning, with closed-form numbers from the trn1 parameters (docs/cost-model.md);
--profile-json's schema and determinism; the text of --profile."""
import json
import os

import numpy as np

from common import SRC, check, check_equal, finish, load_core, load_json, run, save, tmpdir

HEADER = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n\n"
# trn1 parameters (isa/target.cpp): clocks in GHz, DMA in ns and B/ns.
SYNC_GHZ, VEC_GHZ = 1.4, 1.12
TRIGGER_CYCLES, MIN_II = 64, 64
DMA_FIXED, DMA_ENGINE_BW, DMA_ENGINES, DMA_BUFFER = 1300.0, 17.0, 16, 6.0
DMA_SHARE_INTERVAL = 440.0  # --param dma_share_interval_ns: a DMA engine then starts one share per 440 ns at most
DEP_CYCLES = 128  # vector_raw_handoff_cycles (the Vector RAW hand-off)

KERNELS = {
    # Line numbers matter: the kernels' first line of code is line 6.
    "lat": """@nki.jit
def copy_through(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=out, src=t)
    return out
""",
    "vec": """@nki.jit
def scale_many(a, reps=20):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    for i in range(reps):
        nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=1.0)
    nisa.dma_copy(dst=out, src=t)
    return out
""",
    "bw": """@nki.jit
def copy_big(a):
    P, F = a.shape
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(F // 2048):
        t = nl.ndarray((P, 2048), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[:, j * 2048:(j + 1) * 2048])
        nisa.dma_copy(dst=out[:, j * 2048:(j + 1) * 2048], src=t)
    return out
""",
    "mm": """@nki.jit
def matmul_repeat(a_t, b, reps=8):
    K, M = a_t.shape
    _, N = b.shape
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    at = nl.ndarray((K, M), dtype=a_t.dtype, buffer=nl.sbuf)
    bt = nl.ndarray((K, N), dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=at, src=a_t)
    nisa.dma_copy(dst=bt, src=b)
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.sequential_range(reps):
        nisa.nc_matmul(dst=acc, stationary=at, moving=bt)
    ct = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=ct, src=acc)
    nisa.dma_copy(dst=c, src=ct)
    return c
""",
    "reload": """@nki.jit
def sum_reloads(a, reps=4):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for i in nl.sequential_range(reps):
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out
""",
    "reloads": """@nki.jit
def reload_many(a, n=7):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for j in range(n):
        h = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.private_hbm)
        nisa.dma_copy(dst=h, src=a)
        for i in range(2):
            t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=h)
            nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out
""",
    "small": """@nki.jit
def first_columns(a):
    P, F = a.shape
    out = nl.ndarray((P, 16), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, 16), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[:, 0:16])
    nisa.dma_copy(dst=out, src=t)
    return out
""",
    "psum": """@nki.jit
def two_readers(a_t, b):
    K, M = a_t.shape
    _, N = b.shape
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    d = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    at = nl.ndarray((K, M), dtype=a_t.dtype, buffer=nl.sbuf)
    bt = nl.ndarray((K, N), dtype=b.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=at, src=a_t)
    nisa.dma_copy(dst=bt, src=b)
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc, stationary=at, moving=bt)
    ct = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    dt = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=ct, src=acc, engine=nisa.vector_engine)
    nisa.activation(dst=dt, op=nl.copy, data=acc)
    nisa.dma_copy(dst=c, src=ct)
    nisa.dma_copy(dst=d, src=dt)
    return c, d
""",
    "waits": """@nki.jit
def many_waits(a_t, b, big):
    K, M = a_t.shape
    _, NB = b.shape
    P, F = big.shape
    c = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.ndarray((P, F), dtype=big.dtype, buffer=nl.shared_hbm)
    at = nl.ndarray((K, M), dtype=a_t.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=at, src=a_t)
    g = nl.ndarray((P, F), dtype=big.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=g, src=big)
    nisa.tensor_scalar(dst=g, data=g, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=s, src=g)
    acc = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.psum)
    for k in nl.sequential_range(NB // 512):
        bt = nl.ndarray((K, 512), dtype=b.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=bt, src=b[:, k * 512:(k + 1) * 512])
        nisa.nc_matmul(dst=acc, stationary=at, moving=bt)
    ct = nl.ndarray((M, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=ct, src=acc)
    nisa.dma_copy(dst=c, src=ct)
    return c, s
""",
}

d = tmpdir()
paths = {}
for name, body in KERNELS.items():
    paths[name] = os.path.join(d, name + ".py")
    with open(paths[name], "w") as f:
        f.write(HEADER + body)
ones = lambda *shape: np.ones(shape, np.float32)  # noqa: E731
x128 = save(d, "x128.npy", ones(128, 128))
x2048 = save(d, "x2048.npy", ones(128, 2048))
x1 = save(d, "x1.npy", ones(128, 1))
x8192 = save(d, "x8192.npy", ones(128, 8192))
x512 = save(d, "x512.npy", ones(128, 512))
x1024 = save(d, "x1024.npy", ones(128, 1024))
xwide = save(d, "xwide.npy", ones(128, 512 * 32))
x4096 = save(d, "x4096.npy", ones(128, 4096))


def profile(name, *args, target="trn1"):
    """Runs kernel `name` with --profile-json and returns the document (None on failure)."""
    out = os.path.join(d, f"{name}-{len(os.listdir(d))}.json")
    rc, so, se = run(paths[name], *args, "--target", target, "-q", "-o", os.path.join(d, "o"), "--profile-json", out)
    check_equal(rc, 0, f"{name} {args}: exit code (stderr: {se})")
    return load_core(out, "nki-sim-profile/2") if rc == 0 else None


def close(a, b, what, tol=1e-6):
    check(abs(a - b) <= tol * max(1.0, abs(b)), f"{what}: expected {b!r}, got {a!r}")


def kinds(doc):
    return [(w["kind"], w["where"]) for w in doc["warnings"]]


def cause_sum(doc):
    return sum(doc["end_time_ns_by_cause"].values())


# DMA-latency-bound: load then store of one [128, 128] fp32 tile. Each transfer: the trigger (64 Sync cycles),
# dma_fixed_ns, then 4 KiB per DMA engine (8 rows of 512 B, one buffer each) at 17 B/ns.
p = profile("lat", "--inputs", x128)
data = 128 * 128 * 4 / DMA_ENGINES / DMA_ENGINE_BW + 8 * DMA_BUFFER
total = 2 * TRIGGER_CYCLES / SYNC_GHZ + 2 * DMA_FIXED + 2 * data
close(p["total_ns"], total, "lat: end time")
check_equal(p["verdict"], {"kind": "dma-latency-bound", "engine": ""}, "lat: verdict")
c = p["end_time_ns_by_cause"]
close(c["dma_latency"], 2 * DMA_FIXED, "lat: fixed latency on the path")
close(c["dma_data"], 2 * data, "lat: data on the path")
close(c["sync"], 2 * TRIGGER_CYCLES / SYNC_GHZ, "lat: the two triggers")
check_equal(c["dependency"], 0, "lat: no dependency gaps")
close(cause_sum(p), p["total_ns"], "lat: the causes add up to the end time")
check_equal(p["critical_path_transfers_with_latency"], 2, "lat: both transfers' latency on the path")
check_equal(p["dma"]["bytes"], 2 * 128 * 128 * 4, "lat: DMA bytes")
close(p["dma"]["bytes_per_ns"], 2 * 128 * 128 * 4 / total, "lat: DMA bytes/ns")
check_equal(p["dma"]["peak_bytes_per_ns"], DMA_ENGINES * DMA_ENGINE_BW, "lat: DMA peak = 16 engines x 17 B/ns")
check_equal(p["dma"]["hbm_peak_bytes_per_ns"], 410, "lat: trn1 HBM share")
close(p["compute_idle_ns"], total, "lat: no compute engine ran")
check_equal(kinds(p), [("exposed-dma-latency", ""), ("idle-engines", "")], "lat: warnings")
w = p["warnings"][0]
check(w["count"] == 2 and abs(w["value"] - 2 * DMA_FIXED) < 1e-6, f"lat: exposed latency numbers {w}")
check_equal(p["stalls_by_cause"][0]["engine"] + "/" + p["stalls_by_cause"][0]["on"], "sync/dma",
            "lat: the store's trigger waited for the load")

# A what-if: with dma_fixed_ns = 0 the run is no longer latency-bound. The store's trigger ends TRIGGER + data
# after the load's share started, sooner than dma_share_interval_ns: its share starts DMA_SHARE_INTERVAL after the
# load's, so the run ends at TRIGGER + DMA_SHARE_INTERVAL + data.
q = profile("lat", "--inputs", x128, "--param", "dma_fixed_ns=0", "--param", "dma_share_interval_ns=%g" % DMA_SHARE_INTERVAL)
trigger = TRIGGER_CYCLES / SYNC_GHZ
check(data + trigger < DMA_SHARE_INTERVAL, "lat: the store's share waits for the engine's share interval")
close(q["total_ns"], trigger + DMA_SHARE_INTERVAL + data, "lat: dma_fixed_ns=0 end time")
close(p["total_ns"] - q["total_ns"], trigger + 2 * DMA_FIXED + data - DMA_SHARE_INTERVAL, "lat: dma_fixed_ns=0 saves")
check(q["verdict"]["kind"] != "dma-latency-bound", f"lat: dma_fixed_ns=0 verdict {q['verdict']}")
check("exposed-dma-latency" not in [k for k, _ in kinds(q)], "lat: no latency warning without latency")

# engine-bound (vector): 20 dependent [128, 2048] fp32 adds (2048 cycles each at 1.12 GHz); the store's
# trigger is on Vector too (64 cycles). The 20 RAW hand-offs are the dependency share: 19 same-engine, and the
# first add's after the load's semaphore update.
p = profile("vec", "--inputs", x2048)
check_equal(p["verdict"], {"kind": "engine-bound", "engine": "vector"}, "vec: verdict")
c = p["end_time_ns_by_cause"]
close(c["vector"], (20 * 2048 + TRIGGER_CYCLES) / VEC_GHZ, "vec: Vector time on the path")
close(c["dependency"], 20 * DEP_CYCLES / VEC_GHZ, "vec: 20 RAW hand-offs")
close(cause_sum(p), p["total_ns"], "vec: the causes add up")
# Active time counts the RAW hand-offs too: the engine's own interlock, not a semaphore wait (the profiler's
# "processing at least one instruction (excluding semaphore waits)").
close(p["engines"]["vector"]["busy_ns"], (20 * 2048 + TRIGGER_CYCLES + 20 * DEP_CYCLES) / VEC_GHZ, "vec: Vector active")
check_equal(kinds(p), [("idle-engines", "scalar"), ("idle-engines", "gpsimd")], "vec: idle peers of the bound engine")
check_equal(p["warnings"][0]["value"], 0, "vec: scalar active 0%")
sv = [s for s in p["stalls_by_cause"] if s["cause"] == "same-engine dependency"]
check(len(sv) == 1 and sv[0]["count"] == 19 and abs(sv[0]["total_ns"] - 19 * DEP_CYCLES / VEC_GHZ) < 1e-6,
      f"vec: 19 same-engine waits {sv}")

# dependency-bound: 64 dependent [128, 1] adds (MIN_II = 64 cycles each), each waiting a hand-off for the last (the
# first for the load's semaphore update).
p = profile("vec", "--inputs", x1, "--arg", "reps=64")
check_equal(p["verdict"], {"kind": "dependency-bound", "engine": ""}, "dep: verdict")
close(p["end_time_ns_by_cause"]["dependency"], 64 * DEP_CYCLES / VEC_GHZ, "dep: 64 hand-offs")
close(p["end_time_ns_by_cause"]["vector"], 65 * MIN_II / VEC_GHZ, "dep: 64 adds + the store's trigger")
check_equal([k for k, _ in kinds(p)], ["small-dma-rows", "small-dma-rows", "exposed-dma-latency", "idle-engines"],
            "dep: warnings (4-byte rows)")

# DMA-bandwidth-bound: 4 MiB in, 4 MiB out, 8 KiB rows.
p = profile("bw", "--inputs", x8192)
check_equal(p["verdict"], {"kind": "dma-bandwidth-bound", "engine": ""}, "bw: verdict")
check_equal(p["dma"]["bytes"], 2 * 128 * 8192 * 4, "bw: DMA bytes")
check_equal(p["dma"]["transfers"], 8, "bw: 4 loads, 4 stores")
close(cause_sum(p), p["total_ns"], "bw: the causes add up")
check(p["end_time_ns_by_cause"]["dma_data"] > 0.8 * p["total_ns"], "bw: data movement is most of the end time")
check(0 < p["dma"]["active_ns"] <= p["dma"]["in_flight_ns"] <= p["total_ns"], f"bw: DMA active <= in flight {p['dma']}")

# engine-bound (tensor) with float32 operands; the same with bfloat16 operands: no warning, Tensor time / 4.
at32, b32 = save(d, "at32.npy", ones(128, 128)), save(d, "b32.npy", ones(128, 512))
p = profile("mm", "--inputs", at32, b32)
check_equal(p["verdict"], {"kind": "engine-bound", "engine": "tensor"}, "mm fp32: verdict")
fp = [w for w in p["warnings"] if w["kind"] == "fp32-matmul"]
line17 = {r["line"]: r for r in p["lines"]}["mm.py:17"]
check(len(fp) == 1 and fp[0]["where"] == "mm.py:17" and fp[0]["count"] == 16, f"mm: 8 LoadStationary + 8 MultiplyMoving {fp}")
close(fp[0]["value"], line17["busy_ns"], "mm: the warning's Tensor time is line 17's")
check("at 1/4 of the bfloat16 rate" in fp[0]["message"], f"mm: message {fp[0]['message']}")
p16 = profile("mm", "--inputs", at32 + ":bfloat16", b32 + ":bfloat16")
check("fp32-matmul" not in [k for k, _ in kinds(p16)], "mm bf16: no fp32 warning")
close(line17["busy_ns"], 4 * {r["line"]: r for r in p16["lines"]}["mm.py:17"]["busy_ns"], "mm: fp32 costs 4x bf16")

# hbm-reload: the same [128, 512] fp32 input loaded 4 times.
p = profile("reload", "--inputs", x512)
rl = [w for w in p["warnings"] if w["kind"] == "hbm-reload"]
check(len(rl) == 1 and rl[0]["where"] == "a" and rl[0]["count"] == 4 and rl[0]["value"] == 4.0, f"reload: {rl}")
check_equal(p["dma"]["hbm_reload_bytes"], 3 * 128 * 512 * 4, "reload: 3 x 256 KiB read again")
check_equal(p["dma"]["hbm_read_bytes"], 4 * 128 * 512 * 4, "reload: HBM read bytes")
q = profile("reload", "--inputs", x512, "--arg", "reps=1")
check("hbm-reload" not in [k for k, _ in kinds(q)] and q["dma"]["hbm_reload_bytes"] == 0, "reload: one load, no warning")

# Many re-read tensors: the biggest excess first; the text shows 5 of a kind and counts the rest.
p = profile("reloads", "--inputs", x512)
rl = [(w["where"], w["count"]) for w in p["warnings"] if w["kind"] == "hbm-reload"]
check_equal(rl[0], ("a", 7), "reloads: the input, read 7 times, leads")
check_equal(len(rl), 8, "reloads: the input and the 7 scratch tensors in the JSON")
rc, so, se = run(paths["reloads"], "--inputs", x512, "--target", "trn1", "-q", "-o", os.path.join(d, "o"), "--profile")
shown = [l for l in so.splitlines() if l.startswith("  [hbm-reload]")]
check_equal(len(shown), 6, f"reloads: 5 warnings and a count in the text: {shown}")
check_equal(shown[-1], "  [hbm-reload] ... and 3 more like these (all in --profile-json)", "reloads: the count line")

# small-dma-rows: 16 fp32 columns of each row (64 B contiguous), both ways.
p = profile("small", "--inputs", x1024)
sm = [(w["where"], w["count"], w["value"]) for w in p["warnings"] if w["kind"] == "small-dma-rows"]
check_equal(sm, [("small.py:11", 1, 64.0), ("small.py:12", 1, 64.0)], "small: 64-byte rows")
p = profile("lat", "--inputs", x128)
check("small-dma-rows" not in [k for k, _ in kinds(p)], "512-byte rows are not small")

# psum-bank-conflict: Vector and Scalar read the same PSUM tile after the matmul; Scalar waits while Vector reads.
p = profile("psum", "--inputs", at32, b32)
ps = [w for w in p["warnings"] if w["kind"] == "psum-bank-conflict"]
copy_ns = {r["line"]: r for r in p["lines"]}["psum.py:20"]["busy_ns"]
check(len(ps) == 1 and ps[0]["where"] == "psum.py:21" and ps[0]["count"] == 1, f"psum: one conflict {ps}")
close(ps[0]["value"], copy_ns, "psum: Scalar waited the Vector copy's whole PSUM read")
check(any(s["engine"] == "scalar" and s["on"] == "vector" and s["cause"] == "psum bank" for s in p["stalls_by_cause"]),
      "psum: stall by cause scalar on vector (psum bank)")

# The case: many short Tensor waits on DMA outweigh one long Vector wait. "Biggest stalls" ranks the
# single Vector wait first; the sums by cause and by line put the Tensor waits on DMA first.
bf = lambda p: p + ":bfloat16"  # noqa: E731
rc, so, se = run(paths["waits"], "--inputs", bf(x128), bf(xwide), x4096, "--target", "trn1", "-q", "-o",
                 os.path.join(d, "o"), "--profile")
check_equal(rc, 0, f"waits: {se}")
biggest = so.split("Biggest stalls")[1].splitlines()[1]
check("vector" in biggest and "tensor_copy" in biggest, f"waits: the biggest single stall is Vector's: {biggest}")
p = profile("waits", "--inputs", bf(x128), bf(xwide), x4096)
top = p["stalls_by_cause"][0]
check(top["engine"] == "tensor" and top["on"] == "dma" and top["cause"] == "semaphore" and top["count"] == 33,
      f"waits: the sum of Tensor waits on DMA leads: {top}")
check(top["total_ns"] > max(s["max_ns"] for s in p["stalls_by_cause"]), "waits: the sum outweighs any single stall")
check(top["detail"].startswith("queues 0 1 2 3; s"), f"waits: the queues and semaphores that released them: {top['detail']}")
check_equal(p["stalls_by_line"][0]["line"], "waits.py:23", "waits: the matmul line leads the stalls by line")
check_equal(p["stalls_by_line"][0]["largest"], "tensor on dma (semaphore)", "waits: its largest cause")
check_equal(p["engines"]["tensor"]["waited_ns"], top["total_ns"], "waits: Tensor waited only on DMA")
rows = so.split("Stalls by cause")[1].splitlines()
check(rows[2].split()[:3] == ["tensor", "dma", "semaphore"], f"waits: text table's first row {rows[2]}")
check("Stalls by source line:" in so and "waits.py:23" in so.split("Stalls by source line:")[1].splitlines()[2],
      "waits: text stalls by source line")

# The text: the verdict leads, then warnings; JSON is byte-identical across runs; --functional refuses it.
rc, so, se = run(paths["lat"], "--inputs", x128, "--target", "trn1", "-q", "-o", os.path.join(d, "o"), "--profile")
check(rc == 0 and "\nVerdict: DMA-latency-bound: DMA fixed latency is 79.5% of the end time (along the critical path)\n"
      in so, f"text verdict line: {so[:400]}")
check("  DMA: 131072 bytes at 40.1 B/ns of 272.0 B/ns peak (14.7%)" in so, "text DMA evidence")
check("\nWarnings:\n  [exposed-dma-latency] DMA fixed latency is 2.600 us (79.5%) of the end time: 2 transfers" in so,
      "text warnings")
check(so.index("Verdict:") < so.index("Engines:") < so.index("Critical path") < so.index("Stalls by cause"),
      "text section order")
a, b = (os.path.join(d, f"det{k}.json") for k in range(2))
for out in (a, b):
    run(paths["waits"], "--inputs", bf(x128), bf(xwide), x4096, "-q", "-o", os.path.join(d, "o"), "--profile-json", out)
check(open(a, "rb").read() == open(b, "rb").read(), "--profile-json is byte-identical across runs")
rc, so, se = run(paths["lat"], "--inputs", x128, "--functional", "--profile-json", a)
check(rc == 2 and "--profile-json need a timed run" in se, f"--functional --profile-json: {rc} {se}")

# Two cores: one document per core.
lnc = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
xa = save(d, "xa.npy", ones(256, 512))
out = os.path.join(d, "lnc.json")
rc, so, se = run(lnc, "-k", "lnc_add", "--lnc", "2", "--inputs", xa, xa, "-q", "-o", os.path.join(d, "o"),
                 "--profile-json", out)
check_equal(rc, 0, f"lnc: {se}")
if rc == 0:
    p = load_json(out)
    check(p["lnc"] == 2 and len(p["cores"]) == 2 and p["schema"] == "nki-sim-profile/2",
          "lnc: a document per core")
    check(all(abs(cause_sum(c) - c["total_ns"]) < 1e-6 for c in p["cores"]), "lnc: each core's causes add up")
xb = save(d, "xb.npy", ones(128, 64))
rc, so, se = run(lnc, "-k", "lnc_barrier", "--lnc", "2", "--inputs", xb, "-q", "-o", os.path.join(d, "o"),
                 "--profile-json", out)
check_equal(rc, 0, f"lnc barrier: {se}")
if rc == 0:
    for c, core in enumerate(load_json(out)["cores"]):
        peer = [s for s in core["stalls_by_cause"] if s["on"] == "peer core"]
        check(len(peer) == 1 and peer[0]["engine"] == "gpsimd" and peer[0]["count"] == 1,
              f"lnc barrier: core {c}'s core_barrier waited for the peer core: {core['stalls_by_cause']}")

finish()
