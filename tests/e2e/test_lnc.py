"""End to end: LNC=2 (--lnc 2, docs/lnc.md) against numpy goldens: each core adds half of a tensor, a
core_barrier orders a shared-HBM write on core 0 before a read on core 1 (and without it the read comes
first), sendrecv exchanges SBUF tiles, program ids, stats/trace of both cores, usage and located errors."""
import os

import numpy as np

from common import SRC, check, check_equal, finish, load_core, load_json, run, save, tmpdir

K = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
d = tmpdir()
rng = np.random.default_rng(11)
a = rng.standard_normal((512, 256), dtype=np.float32)
b = rng.standard_normal((512, 256), dtype=np.float32)
p = rng.standard_normal((128, 64), dtype=np.float32)
pa, pb, pp = save(d, "a.npy", a), save(d, "b.npy", b), save(d, "p.npy", p)


def out_of(name, *args, checked=True):
    out = os.path.join(d, f"{name}-{len(os.listdir(d))}")
    rc, so, se = run(K, "-k", name, "-o", out, *args, checked=checked)
    res = np.load(os.path.join(out, "output_0.npy")) if rc == 0 else None
    return rc, so, se, res


# Each core adds half of the rows; the output in shared HBM is the whole sum.
stats, trace = os.path.join(d, "s.json"), os.path.join(d, "t.json")
rc, so, se, res = out_of("lnc_add", "--inputs", pa, pb, "--lnc", "2", "--stats", stats, "--trace", trace)
check_equal(rc, 0, f"lnc_add --lnc 2 exit code ({se})")
check(res is not None and np.array_equal(res, a + b), "lnc_add --lnc 2 equals a + b")
check("core 0: lnc_add on trn2" in so and "core 1: lnc_add on trn2" in so, f"summary per core: {so!r}")
s = load_json(stats)
check_equal((s["lnc"], len(s["cores"])), (2, 2), "stats: lnc and one entry per core")
check_equal(s["total_ns"], max(c["total_ns"] for c in s["cores"]), "stats: total is the later core")
for c in s["cores"]:
    # trn2 (dma_trigger_spread): the stores of what Vector computed are triggered by an engine with no compute work.
    check_equal(c["engines"]["vector"]["instructions"], 2, "each core: its 2 adds on Vector")
    check_equal(c["engines"]["scalar"]["instructions"], 2, "each core: its 2 store triggers on Scalar")
    check_equal(c["engines"]["dma"]["instructions"], 6, "each core moves its 6 transfers")
t = load_json(trace)
names = sorted(e["args"]["name"] for e in t["traceEvents"] if e.get("name") == "process_name")
check_equal(names, ["NeuronCore 0 (trn2)", "NeuronCore 1 (trn2)"], "trace: one process per core")
check({e["pid"] for e in t["traceEvents"] if e.get("ph") == "X"} == {1, 2}, "trace: slices of both cores")
# The same kernel at LNC=1 adds everything on one core, and --lnc 1 is the default.
rc1, _, se1, res1 = out_of("lnc_add", "--inputs", pa, pb, "--lnc", "1", "--stats", os.path.join(d, "s1.json"))
check(rc1 == 0 and np.array_equal(res1, a + b), f"lnc_add --lnc 1 ({se1})")
s1 = load_core(os.path.join(d, "s1.json"))
check_equal((s1["engines"]["vector"]["instructions"], s1["engines"]["scalar"]["instructions"]), (4, 4),
            "LNC=1: one core does all 4 adds (Vector) and 4 store triggers (Scalar)")
check(s["total_ns"] < s1["total_ns"], f"two cores finish first ({s['total_ns']} vs {s1['total_ns']} ns)")

# core_barrier orders core 0's shared-HBM write before core 1's read.
rc, _, se, res = out_of("lnc_barrier", "--inputs", pp, "--lnc", "2")
check_equal(rc, 0, f"lnc_barrier exit code ({se})")
if res is not None:
    check(np.array_equal(res[:128], p), "lnc_barrier: core 0's half")
    check(np.array_equal(res[128:], p * np.float32(2) + np.float32(1)), "lnc_barrier: core 1 read core 0's result")
# --trace draws the barrier's signal from core 0 (ready last: it signals once its store retired) to core 1,
# whose barrier waited for it; core 1's own signal (sent at 0 ns) reached core 0 long before and is not drawn.
tb = os.path.join(d, "tb.json")
rc, _, se, _ = out_of("lnc_barrier", "--inputs", pp, "--lnc", "2", "--trace", tb)
if rc == 0:
    ev = load_json(tb)["traceEvents"]
    flows = [e for e in ev if e.get("cat") == "cross-core"]
    bars = {e["pid"]: e for e in ev if e.get("ph") == "X" and e["name"] == "core_barrier"}
    check_equal([(e["ph"], e["pid"]) for e in flows], [("s", 1), ("f", 2)], "trace: one cross-core arrow, core 0 -> 1")
    if len(flows) == 2 and set(bars) == {1, 2}:
        s_ev, f_ev = flows
        check_equal(s_ev["id"], f_ev["id"], "trace: the arrow's ends share an id")
        check_equal(s_ev["name"], "core_barrier signal to core 1", "trace: arrow name")
        check_equal((s_ev["tid"], s_ev["ts"]), (bars[1]["tid"], bars[1]["ts"]), "trace: arrow leaves core 0's barrier")
        check_equal((f_ev["tid"], f_ev["ts"]), (bars[2]["tid"], bars[2]["ts"]), "trace: arrow enters core 1's barrier")
        check_equal(f_ev.get("bp"), "e", "trace: the arrow binds to the enclosing slice")
        a = s_ev["args"]
        check(abs(a["arrive_ns"] - a["sent_ns"] - 1300.0) < 1e-6, f"trace: arrival core_barrier_ns after sending {a}")
        check(abs(a["arrive_ns"] - bars[2]["ts"] * 1000.0) < 1e-6, "trace: core 1's barrier starts when the signal arrives")
        ids = [e["id"] for e in ev if "id" in e]
        check_equal(len(ids), len(set(ids)) * 2, "trace: flow ids are unique across both cores (one s, one f each)")
rc, _, se, res = out_of("lnc_barrier", "--inputs", pp, "--lnc", "2", "--arg", "use_barrier=False", checked=False)
check_equal(rc, 0, f"lnc_barrier without barrier exit code ({se})")
if res is not None:
    check(np.isnan(res[128:]).all(), "without the barrier core 1 reads the scratch before it is written (NaN sentinel)")

# program_id / num_programs per core.
rc, _, se, res = out_of("lnc_ids", "--inputs", pp, "--lnc", "2")
check(rc == 0 and res is not None and res.ravel().tolist() == [20, 21], f"lnc_ids: {res} ({se})")

# Usage errors (exit 2) and located errors (exit 1).
rc, _, se = run(K, "-k", "lnc_add", "--inputs", pa, pb, "--lnc", "2", "--target", "trn1", "-o", d)
check_equal(rc, 2, "trn1 --lnc 2 is a usage error")
check("nki-sim: error: LNC=2: trn1 supports only LNC=1" in se, f"trn1 message: {se!r}")
rc, _, se = run(K, "-k", "lnc_add", "--inputs", pa, pb, "--lnc", "3", "-o", d)
check(rc == 2 and "nki-sim: error: LNC=3: trn2 supports LNC=1 to 2" in se, f"--lnc 3: {rc} {se!r}")
# --functional, --emit, --program, --profile and --explain with --lnc 2: tests/e2e/test_lnc_program.py.
rc, _, se = run(K, "-k", "lnc_barrier", "--inputs", pp, "-o", d)
check(rc == 1 and "lnc.py:44:9: error: core_barrier: needs an LNC=2 launch (kernel[2], nki-sim --lnc 2); this "
      "launch has 1 core" in se, f"core_barrier at LNC=1: {rc} {se!r}")

src = os.path.join(d, "one_barrier.py")
with open(src, "w") as f:
    f.write("import nki\nimport nki.language as nl\nimport nki.isa as nisa\n\n@nki.jit\ndef k(a_input):\n"
            "    out = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)\n"
            "    if nl.program_id(0) == 0:\n        nisa.core_barrier(out, (0, 1))\n"
            "    nisa.dma_copy(dst=out, src=a_input)\n    return out\n")
rc, _, se = run(src, "--inputs", pp, "--lnc", "2", "-o", d)
check(rc == 1 and "one_barrier.py:9:9: error: core_barrier: core 0 reaches 1 core_barrier(s) on gpsimd but core 1 "
      "reaches 0 (every core must reach the same barriers)" in se, f"unmatched barrier: {rc} {se!r}")

# sendrecv: each core scales its half by (pid + 2), the cores exchange the scaled tiles (pipe 0), overwrite
# the sent tile (which must wait for the send) and add the received tile to their unscaled half; a second
# exchange (pipe 1) swaps the sums. Golden: numpy in float32.
P = 128
sa = rng.standard_normal((2 * P, 64), dtype=np.float32)
psa = save(d, "sa.npy", sa)
ts = os.path.join(d, "ts.json")
rc, _, se, res = out_of("lnc_sendrecv", "--inputs", psa, "--lnc", "2", "--trace", ts)
check_equal(rc, 0, f"lnc_sendrecv exit code ({se})")
if rc == 0:  # each exchange draws an arrow from a core's signal to the peer that waited for it
    ev = load_json(ts)["traceEvents"]
    arrows = [(e["pid"], e["name"]) for e in ev if e.get("cat") == "cross-core" and e["ph"] == "s"]
    check(3 <= len(arrows) <= 4 and set(arrows) == {(1, "sendrecv signal to core 1"), (2, "sendrecv signal to core 0")},
          f"trace: sendrecv arrows both ways over the two exchanges: {arrows}")
if res is not None:
    a0, a1 = sa[:P], sa[P:]
    s0, s1 = a0 + a1 * np.float32(3), a1 + a0 * np.float32(2)
    check(np.array_equal(res[:P], s0), "sendrecv: core 0 received core 1's tile (before core 1 overwrote it)")
    check(np.array_equal(res[P:2 * P], s1), "sendrecv: core 1 received core 0's tile (before core 0 overwrote it)")
    check(np.array_equal(res[2 * P:3 * P], s1) and np.array_equal(res[3 * P:], s0),
          "sendrecv: the second exchange swapped the sums")
rc, _, se = run(K, "-k", "lnc_sendrecv", "--arg", "pipe_b=4", "--inputs", psa, "--lnc", "2", "-o", d)
check(rc == 1 and "lnc.py:83:5: error: sendrecv: core 0's sendrecv with pipe_id 1 on gpsimd meets a sendrecv with "
      "pipe_id 4 on core 1 (the cores must issue matching sendrecvs and barriers in the same order)" in se,
      f"sendrecv pipe mismatch: {rc} {se!r}")
rc, _, se = run(K, "-k", "lnc_sendrecv", "--inputs", psa, "-o", d)
check(rc == 1 and "lnc.py:79:5: error: sendrecv: needs an LNC=2 launch (kernel[2], nki-sim --lnc 2); this launch "
      "has 1 core" in se, f"sendrecv at LNC=1: {rc} {se!r}")
rc, _, se = run(K, "-k", "lnc_sendrecv", "--inputs", psa, "--target", "trn1", "-o", d)
check(rc == 1 and "lnc.py:79:5: error: sendrecv: not available on trn1 (trn2 and later)" in se,
      f"sendrecv on trn1: {rc} {se!r}")
rc, _, se = run(K, "-k", "lnc_sendrecv_loop", "--inputs", pp, "--lnc", "2", "-o", d)
check(rc == 1 and "error: sendrecv inside a dynamic loop is not supported" in se, f"sendrecv in a loop: {rc} {se!r}")
bad = {
    0: "98:9: error: sendrecv: src and dst must have the same dtype, got float32 and bfloat16",
    1: "100:9: error: sendrecv: operand 'dst' has 128 partitions x 128 elements but 'src' has 128 partitions x 64 "
       "elements",
    2: "102:9: error: sendrecv: operand 'src' must be in SBUF, but 'a_input' is in HBM",
    3: "104:9: error: sendrecv: send_to_rank must be the other core's rank 1 (this is core 0), got 0",
    4: "106:9: error: sendrecv: recv_from_rank must be a rank 0 or 1, got 2",
    5: "109:9: error: sendrecv: dma_engine.gpsimd_dma moves at most 512 bytes per partition for 16-bit dtypes, "
       "src has 1024",
    6: "112:9: error: sendrecv: pipe_id must be an int in [0, 65535], got -1",
    7: "114:9: error: sendrecv: core 0's sendrecv with pipe_id 5 on gpsimd has no match: core 1 issues no further "
       "sendrecv there",
}
for case, msg in bad.items():
    rc, _, se = run(K, "-k", "lnc_sendrecv_bad", "--arg", f"case={case}", "--inputs", pp, "--lnc", "2", "-o", d)
    check(rc == 1 and "lnc.py:" + msg in se, f"sendrecv error case {case}: {rc} {se!r}")

finish()
