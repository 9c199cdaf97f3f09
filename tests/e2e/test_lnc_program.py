"""End to end: LNC=2 programs as files and in every mode (docs/lnc.md): --lnc 2 --emit asm|bin writes both cores'
streams ('.core' text, CORE sections), nki-objdump / nki-as round trips are exact, --program runs a 2-core
binary with the outputs and timing of the direct run, --functional gives the goldens, --profile / --explain
show each core, and the mismatches are usage errors."""
import os
import subprocess

import numpy as np

from common import NKISIM, SRC, check, check_equal, finish, load_json, run, save, tmpdir

K = os.path.join(SRC, "tests", "e2e", "kernels", "lnc.py")
TOOLS = os.path.dirname(os.path.abspath(NKISIM))
d = tmpdir()
rng = np.random.default_rng(5)
P = 128
a = rng.standard_normal((512, 256), dtype=np.float32)
b = rng.standard_normal((512, 256), dtype=np.float32)
p = rng.standard_normal((P, 64), dtype=np.float32)
sa = rng.standard_normal((2 * P, 64), dtype=np.float32)
pa, pb, pp, psa = save(d, "a.npy", a), save(d, "b.npy", b), save(d, "p.npy", p), save(d, "sa.npy", sa)
a0, a1 = sa[:P], sa[P:]
s0, s1 = a0 + a1 * np.float32(3), a1 + a0 * np.float32(2)
GOLDEN = {
    "lnc_add": ([pa, pb], a + b),
    "lnc_barrier": ([pp], np.concatenate([p, p * np.float32(2) + np.float32(1)])),
    "lnc_sendrecv": ([psa], np.concatenate([s0, s1, s1, s0])),
    "lnc_ids": ([pp], np.array([[20], [21]], dtype=np.int32)),
}


def tool(name, *args):
    r = subprocess.run([os.path.join(TOOLS, name), *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def output(out):
    return np.load(os.path.join(out, "output_0.npy"))


for name, (inputs, golden) in GOLDEN.items():
    asm, binf = os.path.join(d, name + ".s"), os.path.join(d, name + ".nkibin")
    st_direct, st_prog = os.path.join(d, name + "-d.json"), os.path.join(d, name + "-p.json")
    out_d, out_p, out_f = (os.path.join(d, name + s) for s in ("-d", "-p", "-f"))
    rc, so, se = run(K, "-k", name, "--inputs", *inputs, "--lnc", "2", "-o", out_d, "--emit", "asm", asm,
                     "--stats", st_direct)
    check_equal(rc, 0, f"{name}: --lnc 2 --emit asm ({se})")
    if rc != 0:
        continue
    check(np.array_equal(output(out_d), golden), f"{name}: direct run equals the golden")
    text = open(asm).read()
    check(text.startswith("; nki-sim assembly, LNC=2\n.core 0\n") and "\n.core 1\n" in text,
          f"{name}: the asm holds both cores")
    rc, _, se = run(K, "-k", name, "--inputs", *inputs, "--lnc", "2", "-o", out_d, "-q", "--emit", "bin", binf)
    check_equal(rc, 0, f"{name}: --emit bin ({se})")
    # nki-objdump prints the binary as the same text; nki-as assembles the text to the same bytes.
    rc, dumped, se = tool("nki-objdump", binf)
    check(rc == 0 and dumped == text, f"{name}: nki-objdump of the 2-core binary equals --emit asm ({se})")
    reasm = os.path.join(d, name + "-re.nkibin")
    rc, _, se = tool("nki-as", asm, "-o", reasm)
    check(rc == 0 and open(reasm, "rb").read() == open(binf, "rb").read(), f"{name}: nki-as gives the same bytes ({se})")
    with open(binf, "rb") as f:
        raw = f.read()
    check(raw[8] >= 4 and raw[9:12] == bytes(3) and raw.count(b"CORE") >= 1, f"{name}: version 4+ with a CORE section")
    # --program runs both cores: same outputs, same timing.
    rc, so, se = run("--program", binf, "--inputs", *inputs, "-o", out_p, "--stats", st_prog)
    check_equal(rc, 0, f"{name}: --program ({se})")
    if rc == 0:
        check(np.array_equal(output(out_p), golden), f"{name}: --program equals the golden")
        check("core 0: " in so and "core 1: " in so, f"{name}: --program prints both cores")
        sd, sp = load_json(st_direct), load_json(st_prog)
        check_equal(sp["lnc"], 2, f"{name}: --program stats are LNC=2")
        check_equal(sp["total_ns"], sd["total_ns"], f"{name}: --program total_ns")
        check_equal([c["total_ns"] for c in sp["cores"]], [c["total_ns"] for c in sd["cores"]], f"{name}: per core")
        check_equal(sp, sd, f"{name}: --program stats equal the direct run's")
    # --functional: numerics only, the same goldens.
    rc, so, se = run(K, "-k", name, "--inputs", *inputs, "--lnc", "2", "--functional", "-o", out_f)
    check_equal(rc, 0, f"{name}: --lnc 2 --functional ({se})")
    if rc == 0:
        check(np.array_equal(output(out_f), golden), f"{name}: --functional equals the golden")
        check(so.count("functional run: numerics only, no timing") == 2, f"{name}: functional summary per core")
    rc, _, se = run("--program", binf, "--inputs", *inputs, "--functional", "-o", out_f)
    check(rc == 0 and np.array_equal(output(out_f), golden), f"{name}: --program --functional ({se})")

# --emit ir: both cores' IR.
ir = os.path.join(d, "add.ir")
rc, _, se = run(K, "-k", "lnc_add", "--inputs", pa, pb, "--lnc", "2", "-q", "-o", d, "--emit", "ir", ir)
check(rc == 0 and open(ir).read().startswith("# core 0\n") and "\n# core 1\n" in open(ir).read(), f"--emit ir ({se})")

# --profile and --explain: one section per core.
rc, so, se = run(K, "-k", "lnc_sendrecv", "--inputs", psa, "--lnc", "2", "-q", "-o", d, "--profile")
check_equal(rc, 0, f"--profile ({se})")
check("core 0: Profile: lnc_sendrecv on trn2 (timed)" in so and "core 1: Profile: lnc_sendrecv on trn2 (timed)" in so,
      f"--profile has a section per core: {so[:300]!r}")
rc, so, se = run(K, "-k", "lnc_sendrecv", "--inputs", psa, "--lnc", "2", "-q", "-o", d, "--explain=79")
check_equal(rc, 0, f"--explain ({se})")
check("core 0: Cost breakdown: lnc_sendrecv on trn2, 1 instruction from line 79" in so and
      "core 1: Cost breakdown: lnc_sendrecv on trn2, 1 instruction from line 79" in so, f"--explain per core: {so!r}")
check(so.count("sendrecv") >= 2, "--explain shows each core's sendrecv")

# The same binary as the direct run with --trace: one process per core.
tr = os.path.join(d, "t.json")
rc, _, se = run("--program", os.path.join(d, "lnc_sendrecv.nkibin"), "--inputs", psa, "-q", "-o", d, "--trace", tr)
check_equal(rc, 0, f"--program --trace ({se})")
if rc == 0:
    t = load_json(tr)
    names = sorted(e["args"]["name"] for e in t["traceEvents"] if e.get("name") == "process_name")
    check_equal(names, ["NeuronCore 0 (trn2)", "NeuronCore 1 (trn2)"], "--program --trace: a process per core")
    sr = {e["pid"] for e in t["traceEvents"] if e.get("ph") == "X" and e.get("name") == "sendrecv"}
    check_equal(sr, {1, 2}, "the sendrecvs ran on both cores")

# Mismatches between --lnc and the file; a single-core file still runs.
rc, _, se = run("--program", os.path.join(d, "lnc_add.nkibin"), "--inputs", pa, pb, "--lnc", "1", "-o", d)
check(rc == 2 and "nki-sim: error: --lnc 1: " + os.path.join(d, "lnc_add.nkibin") +
      " holds an LNC=2 program (one per core)" in se, f"--lnc 1 with a 2-core file: {rc} {se!r}")
one = os.path.join(d, "one.nkibin")
rc, _, se = run(K, "-k", "lnc_add", "--inputs", pa, pb, "-q", "-o", d, "--emit", "bin", one)
check_equal(rc, 0, f"single-core --emit bin ({se})")
rc, _, se = run("--program", one, "--inputs", pa, pb, "--lnc", "2", "-o", d)
check(rc == 2 and "--lnc 2: " + one + " holds a single-core program" in se, f"--lnc 2 with a 1-core file: {rc} {se!r}")
rc, so, se = run("--program", one, "--inputs", pa, pb, "-o", os.path.join(d, "one"))
check(rc == 0 and np.array_equal(output(os.path.join(d, "one")), a + b) and "core 0" not in so,
      f"a single-core file runs as before ({se})")
# --lnc 2 --grid 2: each core runs the whole grid serially (tests/e2e/test_lnc_launch.py)
rc, _, se = run(K, "-k", "lnc_add", "--inputs", pa, pb, "--lnc", "2", "--grid", "2", "-o", os.path.join(d, "grid"))
check(rc == 0 and np.array_equal(output(os.path.join(d, "grid")), a + b), f"--lnc 2 --grid 2: {rc} {se!r}")
rc, _, se = tool("nki-objdump", one)
check(rc == 0 and ".core" not in se, "nki-objdump of a single-core file")
# A 2-core binary through the single-core reader path of --target trn1 (LNC=1 only).
rc, _, se = run("--program", os.path.join(d, "lnc_add.nkibin"), "--inputs", pa, pb, "--target", "trn1", "-o", d)
check_equal((rc, se), (1, os.path.join(d, "lnc_add.nkibin") + ": error: LNC=2: trn1 supports only LNC=1\n"),
            "trn1 with a 2-core file")

finish()
