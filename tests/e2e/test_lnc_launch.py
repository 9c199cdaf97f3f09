"""End to end: an nki.jit kernel launched as `kernel[2]` (or `kernel[nl.nc(2)]`) in its file's __main__ block
or a unittest method runs exactly like `--lnc 2` (outputs against numpy goldens, identical stats, trace and
summary); --lnc / --grid on the command line win over the file; trn1, kernel[N > 2] and two different launches
are located errors (docs/lnc.md "Launching from the kernel file")."""
import os

import numpy as np

from common import check, check_equal, finish, load_json, run, save, tmpdir

d = tmpdir()
rng = np.random.default_rng(21)
a = rng.standard_normal((512, 256), dtype=np.float32)
b = rng.standard_normal((512, 256), dtype=np.float32)
pa, pb = save(d, "a.npy", a), save(d, "b.npy", b)

ADD = """import unittest

import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def lnc_add(a_input, b_input):
    M, N = a_input.shape
    out = nl.ndarray((M, N), dtype=a_input.dtype, buffer=nl.shared_hbm)
    rows = M // nl.num_programs()
    for t in nl.affine_range(rows // 128):
        r0 = nl.program_id(0) * rows + t * 128
        x = nl.ndarray((128, N), dtype=a_input.dtype, buffer=nl.sbuf)
        y = nl.ndarray((128, N), dtype=b_input.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x, src=a_input[r0:r0 + 128, :])
        nisa.dma_copy(dst=y, src=b_input[r0:r0 + 128, :])
        nisa.tensor_tensor(dst=x, data1=x, data2=y, op=nl.add)
        nisa.dma_copy(dst=out[r0:r0 + 128, :], src=x)
    return out


class TestAdd(unittest.TestCase):
    def test_add(self):
        a = np.random.rand(512, 256).astype(np.float32)
        b = np.random.rand(512, 256).astype(np.float32)
        self.assertTrue(np.allclose(LAUNCH(a, b), a + b))


if __name__ == "__main__":
    unittest.main()
"""
LAUNCH_LINE = 29  # the line of LAUNCH in ADD


def kernel(name, launch, text=ADD):
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(text.replace("LAUNCH", launch))
    return path


def sim(path, *extra, tag):
    """Runs path on a, b; returns (rc, stdout, stderr, output or None, stats or None, trace text or None)."""
    out, stats, trace = os.path.join(d, "out"), os.path.join(d, f"{tag}-s.json"), os.path.join(d, f"{tag}-t.json")
    rc, so, se = run(path, "--inputs", pa, pb, "-o", out, "--stats", stats, "--trace", trace, *extra)
    if rc:
        return rc, so, se, None, None, None
    with open(trace) as f:
        tr = f.read()
    return rc, so, se, np.load(os.path.join(out, "output_0.npy")), load_json(stats), tr


# kernel[2] in a unittest method, and kernel[nl.nc(2)] (a grid axis of 2 cores) in it: the same run as --lnc 2
# (the file's launch says 2 as well: no conflict).
k2 = kernel("add2", "lnc_add[2]")
for name, launch in (("add2", "lnc_add[2]"), ("addnc", "lnc_add[nl.nc(2)]"), ("addsd", "lnc_add[nl.spmd_dim(nl.nc(2))]")):
    k = kernel(name, launch)
    rc, so_ref, se, res, s_ref, t_ref = sim(k, "--lnc", "2", tag=name + "-ref")
    check(rc == 0 and np.array_equal(res, a + b) and s_ref["lnc"] == 2, f"{launch} --lnc 2 equals a + b ({se})")
    rc, so, se, res, s, t = sim(k, tag=name)
    check(rc == 0 and np.array_equal(res, a + b), f"{launch} in the file: output equals a + b ({se})")
    check_equal(s, s_ref, f"{launch} in the file: the stats of --lnc 2")
    check(t is not None and t == t_ref, f"{launch} in the file: the trace of --lnc 2")
    check_equal(so, so_ref, f"{launch} in the file: the summary of --lnc 2")
    check(so.startswith("core 0: lnc_add on trn2") and "\ncore 1: lnc_add on trn2" in so, f"{launch}: {so!r}")
    if name == "add2":
        s_two = s_ref
# ... in a __main__ block: the same.
main_launch = ADD.replace("    unittest.main()", "    a = np.zeros((512, 256), np.float32)\n    c = lnc_add[2](a, a)")
rc, so, se, res, s, t = sim(kernel("addmain", "lnc_add", main_launch), tag="main")
check(rc == 0 and np.array_equal(res, a + b) and s == s_two, f"kernel[2] in __main__ runs as --lnc 2 ({se})")

# The command line wins: --lnc 1 runs the kernel[2] file on one core, --grid 2 serially on one core.
s_one = None
for extra in (("--lnc", "1"), ("--grid", "2"), ("--target", "trn1", "--lnc", "1")):
    rc, so, se, res, s, _ = sim(k2, *extra, tag="cl" + "".join(extra))
    check(rc == 0 and np.array_equal(res, a + b), f"kernel[2] file with {extra}: output equals a + b ({se})")
    check(s is not None and s["lnc"] == 1 and not so.startswith("core 0:"), f"{extra}: a single-core run")
    if extra == ("--lnc", "1"):
        s_one = s
        check_equal(s["cores"][0]["engines"]["vector"]["instructions"], 4, "--lnc 1: one core does all 4 adds")
# kernel[1] in the file, and no launch at all: one core, as --lnc 1.
for name, launch in (("add1", "lnc_add[1]"), ("add0", "lnc_add")):
    rc, so, se, res, s, _ = sim(kernel(name, launch), tag=name)
    check(rc == 0 and np.array_equal(res, a + b) and s == s_one, f"{launch} in the file: the --lnc 1 run ({se})")

# --emit ir follows the file's launch: both cores' IR.
ir = os.path.join(d, "k.ir")
rc, _, se = run(k2, "--inputs", pa, pb, "-o", d, "-q", "--emit", "ir", ir)
check(rc == 0 and open(ir).read().count("# core ") == 2, f"--emit ir of a kernel[2] file holds both cores ({se})")

# Errors: trn1 has no LNC=2 (the file's launch is a located error, --lnc 2 a usage error), kernel[4], two launches.
rc, _, se = run(k2, "--inputs", pa, pb, "-o", d, "--target", "trn1")
check(rc == 1 and f"add2.py:{LAUNCH_LINE}:45: error: LNC=2: trn1 supports only LNC=1" in se, f"kernel[2] on trn1: {rc} {se!r}")
rc, _, se = run(k2, "--inputs", pa, pb, "-o", d, "--target", "trn1", "--lnc", "2")
check(rc == 2 and "nki-sim: error: LNC=2: trn1 supports only LNC=1" in se, f"--lnc 2 on trn1: {rc} {se!r}")
pt = kernel("add_pt", "lnc_add", ADD.replace("@nki.jit", '@nki.jit(platform_target="trn1")'))
rc, _, se = run(pt, "--inputs", pa, pb, "-o", d, "--lnc", "2")
check_equal((rc, se), (1, f"{pt}: error: LNC=2: trn1 supports only LNC=1\n"), "--lnc 2 of a platform_target=trn1 kernel")
rc, _, se = run(kernel("add4", "lnc_add[4]"), "--inputs", pa, pb, "-o", d)
check(rc == 1 and f"add4.py:{LAUNCH_LINE}:45: error: lnc_add[...]: an nki.jit kernel is launched as kernel[1] or "
      "kernel[2] (the logical NeuronCore size)" in se, f"kernel[4]: {rc} {se!r}")
two = ADD.replace("    unittest.main()", "    lnc_add[1](a, b)")
rc, _, se = run(kernel("addtwo", "lnc_add[2]", two), "--inputs", pa, pb, "-o", d)
check(rc == 1 and "addtwo.py:33:13: error: the file launches lnc_add on 2 cores at line 29 and on 1 core here; "
      "choose one with --lnc" in se, f"two launches: {rc} {se!r}")
rc, _, se, res, _, _ = sim(kernel("addtwo", "lnc_add[2]", two), "--lnc", "2", tag="two")
check(rc == 0 and np.array_equal(res, a + b), f"two launches with --lnc 2: the command line decides ({se})")

# --lnc 2 --grid N: each core runs the whole grid serially, so each core's timing is the single-core grid run's;
# a legacy kernel's grid spelled in the file with --lnc 2 is the same run.
LEGACY = """import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def add_kernel(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    iy = nl.arange(256)[None, :]
    nl.store(c_output[ix, iy], value=nl.load(a_input[ix, iy]) + nl.load(b_input[ix, iy]))
    return c_output


if __name__ == "__main__":
    c = LAUNCH(a, b)
"""
leg = kernel("legacy", "add_kernel", LEGACY)
rc, _, se, res, s_grid, _ = sim(leg, "--grid", "4", tag="lg1")
check(rc == 0 and np.array_equal(res, a + b), f"legacy --grid 4 ({se})")
rc, _, se, res, s, _ = sim(leg, "--lnc", "2", "--grid", "4", tag="lg2")
check(rc == 0 and np.array_equal(res, a + b), f"legacy --lnc 2 --grid 4 ({se})")
if s and s_grid:
    check_equal(s["lnc"], 2, "--lnc 2 --grid 4: an LNC=2 run")
    for c in s["cores"]:  # the same instructions; the time within 1% (the cores share HBM bandwidth)
        check_equal({e: v["instructions"] for e, v in c["engines"].items()},
                    {e: v["instructions"] for e, v in s_grid["cores"][0]["engines"].items()},
                    "--lnc 2 --grid 4: each core runs the whole grid, as the single-core --grid 4 run")
        check(abs(c["total_ns"] - s_grid["total_ns"]) <= 0.01 * s_grid["total_ns"],
              f"--lnc 2 --grid 4: each core's time {c['total_ns']} within 1% of the single-core run's {s_grid['total_ns']}")
rc, _, se, res, s_file, _ = sim(kernel("legacy4", "add_kernel[4]", LEGACY), "--lnc", "2", tag="lg3")
check(rc == 0 and np.array_equal(res, a + b) and s_file == s, f"add_kernel[4] in the file with --lnc 2 ({se})")

finish()
