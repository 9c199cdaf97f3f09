"""End to end: matrix products the simulator leaves running on its helper threads (sim/exec_tensor.cpp,
ExecContext::gemm_running) give the results of in-order execution: a DMA that overwrites the moving tile right
after a product, two products accumulating into one PSUM tile, PSUM read back by the Vector Engine. Timed,
--functional (run() compares them) and on one thread (NKISIM_THREADS=1) agree bit for bit."""
import os
import subprocess

import numpy as np

from common import NKISIM, SRC, check, check_equal, finish, run, save, tmpdir, to_bf16

KERNEL = os.path.join(SRC, "tests", "e2e", "kernels", "matmul_overlap.py")
d = tmpdir()
rng = np.random.default_rng(11)
K, M, N = 128, 128, 512


def outputs(out):
    return [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(2)]


# Small integers: every product and sum is exact, so the results equal the float64 products.
ai = rng.integers(-8, 9, size=(K, M)).astype(np.float32)
b0 = rng.integers(-8, 9, size=(K, N)).astype(np.float32)
b1 = rng.integers(-8, 9, size=(K, N)).astype(np.float32)
paths = [save(d, n, x) for n, x in (("a.npy", ai), ("b0.npy", b0), ("b1.npy", b1))]
bf = [p + ":bfloat16" for p in paths]
rc, so, se = run(KERNEL, "--inputs", *bf, "-o", os.path.join(d, "int"), "-q")
check_equal(rc, 0, f"exit code (stderr: {se})")
if rc == 0:
    o0, o1 = outputs(os.path.join(d, "int"))
    a64 = ai.astype(np.float64)
    check(np.array_equal(o0.astype(np.float64), a64.T @ b0.astype(np.float64)),
          "the first product used the moving tile as it was before the DMA that overwrote it")
    check(np.array_equal(o1.astype(np.float64), 2 * (a64.T @ b1.astype(np.float64))),
          "two products accumulated into one PSUM tile, after the DMA")

# Random bf16 values: the timed run on two threads, on one thread, and --functional agree bit for bit.
r = [to_bf16(rng.standard_normal(s, dtype=np.float32)) for s in ((K, M), (K, N), (K, N))]
rp = [save(d, f"r{i}.npy", x) + ":bfloat16" for i, x in enumerate(r)]
rc, so, se = run(KERNEL, "--inputs", *rp, "-o", os.path.join(d, "r2"), "-q")
check_equal(rc, 0, f"random exit code (stderr: {se})")
p = subprocess.run([NKISIM, KERNEL, "--inputs", *rp, "-o", os.path.join(d, "r1"), "-q"], capture_output=True, text=True,
                   env=dict(os.environ, NKISIM_THREADS="1"), timeout=120)
check_equal(p.returncode, 0, f"one-thread exit code (stderr: {p.stderr})")
if rc == 0 and p.returncode == 0:
    for x, y in zip(outputs(os.path.join(d, "r2")), outputs(os.path.join(d, "r1"))):
        check(np.array_equal(x.view(np.uint32), y.view(np.uint32)), "two threads and one thread agree bit for bit")
    o0, o1 = outputs(os.path.join(d, "r2"))
    a64 = r[0].astype(np.float64)
    g0, g1 = a64.T @ r[1].astype(np.float64), 2 * (a64.T @ r[2].astype(np.float64))
    bound = (K + 1) * 2.0 ** -24 * 2 * (np.abs(a64).T @ np.abs(r[2].astype(np.float64)))
    check(np.all(np.abs(o0 - g0) <= bound), "first product within the fp32 accumulation bound")
    check(np.all(np.abs(o1 - g1) <= bound), "accumulated product within the fp32 accumulation bound")
finish()
