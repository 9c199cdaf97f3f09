"""End to end: examples/matmul_bf16.py through the CLI: bf16 inputs, fp32 accumulation in PSUM over K tiles."""
import os

import numpy as np

from common import EXAMPLES, check, check_equal, finish, load_core, run, save, tmpdir, to_bf16

KERNEL = os.path.join(EXAMPLES, "matmul_bf16.py")
d = tmpdir()
rng = np.random.default_rng(7)
K, M, N = 512, 256, 1024
a = rng.standard_normal((M, K), dtype=np.float32)
b = rng.standard_normal((K, N), dtype=np.float32)
pa, pb = save(d, "a_t.npy", np.ascontiguousarray(a.T)), save(d, "b.npy", b)


def matmul(pa, pb, out, *extra):
    rc, so, se = run(KERNEL, "--inputs", pa + ":bfloat16", pb + ":bfloat16", "-o", out, *extra)
    check_equal(rc, 0, f"run exit code {extra} (stderr: {se})")
    return np.load(os.path.join(out, "output_0.npy")) if rc == 0 else None


# Random inputs: the float64 product of the bf16-rounded inputs, within the fp32 accumulation bound
# (K sequential fp32 additions inside the PE plus one PSUM addition per K tile, each <= 2^-24 relative
# to the running sum of |products|).
a16, b16 = to_bf16(a).astype(np.float64), to_bf16(b).astype(np.float64)
golden = a16 @ b16
bound = (K + K // 128) * 2.0 ** -24 * (np.abs(a16) @ np.abs(b16))
c = matmul(pa, pb, os.path.join(d, "out"), "--stats", os.path.join(d, "s.json"))
check_equal((c.dtype, c.shape), (np.dtype(np.float32), (M, N)), "output dtype/shape")
err = np.abs(c.astype(np.float64) - golden)
check(np.all(err <= bound), f"within the fp32 accumulation bound (worst ratio {np.max(err / bound):.3g})")
check(np.max(err) > 0, "fp32 accumulation is not float64 (some rounding happened)")

# Stats: 2 x 2 output tiles x 4 K tiles = 16 matmuls = 16 LoadStationary + 16 MultiplyMoving.
s = load_core(os.path.join(d, "s.json"))
check_equal(s["engines"]["tensor"]["instructions"], 32, "tensor instructions")
check(s["engines"]["tensor"]["busy_ns"] >= 16 * 512 / 2.4 - 1e-6, f"tensor busy >= 16 x 512 cycles ({s['engines']['tensor']['busy_ns']})")

# Small integers: every product and partial sum is exact in fp32, so the result equals the float64 golden.
ai = rng.integers(-8, 9, size=(M, K)).astype(np.float32)
bi = rng.integers(-8, 9, size=(K, N)).astype(np.float32)
pai, pbi = save(d, "ai_t.npy", np.ascontiguousarray(ai.T)), save(d, "bi.npy", bi)
for target in ("trn1", "trn2", "trn3"):
    ci = matmul(pai, pbi, os.path.join(d, "outi_" + target), "--target", target, "-q")
    check(ci is not None and np.array_equal(ci.astype(np.float64), ai.astype(np.float64) @ bi.astype(np.float64)),
          f"small-integer matmul is exact on {target}")

# 16 output tiles > 8 PSUM banks: banks are reused, so each first matmul of a group must wait for the
# Vector copy that drained the bank before (a WAR dependency on PSUM) - or the result would be wrong.
aw = rng.integers(-8, 9, size=(512, 256)).astype(np.float32)
bw = rng.integers(-8, 9, size=(256, 2048)).astype(np.float32)
paw, pbw = save(d, "aw_t.npy", np.ascontiguousarray(aw.T)), save(d, "bw.npy", bw)
cw = matmul(paw, pbw, os.path.join(d, "outw"), "-q")
check(cw is not None and np.array_equal(cw.astype(np.float64), aw.astype(np.float64) @ bw.astype(np.float64)),
      "PSUM bank reuse across 16 output tiles is exact")

# The same bf16 inputs give bit-identical results on every target (same PE numerics).
c1 = matmul(pa, pb, os.path.join(d, "out1"), "--target", "trn1", "-q")
check(c1 is not None and np.array_equal(c1.view(np.uint32), c.view(np.uint32)), "trn1 and trn2 agree bit for bit")

# A contraction mismatch is the kernel's own assertion, located in the kernel.
pbad = save(d, "bad.npy", rng.standard_normal((256, N), dtype=np.float32))
rc, so, se = run(KERNEL, "--inputs", pa, pbad, "-o", os.path.join(d, "bad"))
check_equal(rc, 1, "contraction mismatch exit code")
check("matmul_bf16.py:20" in se and "contraction sizes differ" in se, f"located assertion: {se!r}")
finish()
