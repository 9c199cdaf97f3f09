"""End-to-end: a sweep's points are independent runs, so GNU parallel can fan them out on one machine
(docs/profile.md "Fanning a sweep out"): one-point sweeps run by `parallel`, their CSV rows joined, equal the
one-process sweep's CSV. Skipped (exit 77) where GNU parallel is not installed (Debian package `parallel`)."""
import os
import shutil
import subprocess
import sys

import numpy as np

from common import NKISIM, check, check_equal, finish, run, save, tmpdir

if shutil.which("parallel") is None:
    print("SKIP: GNU parallel is not installed (apt-get install parallel)")
    sys.exit(77)

KERNEL = """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def scale(a, reps=2):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    for i in range(reps):
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=t)
    return out
"""

d = tmpdir()
k = os.path.join(d, "k.py")
with open(k, "w") as f:
    f.write(KERNEL)
x = save(d, "x.npy", np.ones((128, 256), np.float32))

# One process: the whole grid.
rc, whole, se = run(k, "--inputs", x, "--sweep", "target=trn1,trn2", "--sweep", "dma_fixed_ns=650,1300,2600",
                    "--sweep", "reps=1,4", "--sweep-format", "csv")
check_equal(rc, 0, f"one-process sweep: {se}")
check_equal(len(whole.splitlines()), 1 + 2 * 3 * 2, "12 rows and a header")

# GNU parallel: one single-point sweep per job, two at a time, joined in order, repeated headers dropped.
cmd = (f"parallel --will-cite --keep-order -j2 {NKISIM} {k} --inputs {x} --target {{1}} --sweep dma_fixed_ns={{2}} "
       f"--sweep reps={{3}} --sweep-format csv ::: trn1 trn2 ::: 650 1300 2600 ::: 1 4 | awk 'NR == 1 || !/^target,/'")
p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], capture_output=True, text=True, timeout=600)
check_equal(p.returncode, 0, f"parallel: {p.stderr}")
check_equal(p.stdout, whole, "parallel's joined rows equal the one-process sweep")
finish()
