"""End to end: the two cores of an LNC=2 run share HBM bandwidth (docs/cost-model.md, DMA): with HBM the
bottleneck (--param hbm_bytes_per_ns=40, well under one core's 16 DMA engines), a core copying alone gets both
cores' shares, two cores copying at once split them, and the outputs are the input either way."""
import os

import numpy as np

from common import SRC, check, check_equal, finish, load_json, run, save, tmpdir

K = os.path.join(SRC, "tests", "e2e", "kernels", "lnc_hbm.py")
d = tmpdir()
a = np.arange(512 * 2048, dtype=np.float32).reshape(512, 2048)
pa = save(d, "a.npy", a)


def timed(*args):
    out = os.path.join(d, f"o{len(os.listdir(d))}")
    stats = out + ".json"
    rc, _, se = run(K, "-k", "copy_rows", "--inputs", pa, "-o", out, "--stats", stats, "--param", "hbm_bytes_per_ns=40",
                    *args)
    check_equal(rc, 0, f"copy_rows {args} exit code ({se})")
    if rc != 0:
        return None
    check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), a), f"copy_rows {args} output equals input")
    return load_json(stats)["total_ns"]


one = timed("--lnc", "1")                                   # 8 MiB through one core at 40 B/ns
alone = timed("--lnc", "2", "--arg", "only_core0=True")     # the same on core 0 of two: 80 B/ns
both = timed("--lnc", "2")                                  # 4 MiB per core, both at once: 40 B/ns each
if None not in (one, alone, both):
    moved = 2 * a.nbytes  # read and write
    check(moved / 40 <= one <= moved / 40 * 1.05, f"LNC=1 is HBM-bound at 40 B/ns: {one} ns for {moved} bytes")
    check(moved / 80 <= alone <= moved / 80 * 1.1, f"a core alone uses both shares (80 B/ns): {alone} ns")
    check(moved / 80 <= both <= moved / 80 * 1.1, f"two cores split 80 B/ns: {both} ns")
    check(alone < 0.6 * one, f"core 0 alone at LNC=2 ({alone} ns) is about twice as fast as LNC=1 ({one} ns)")
finish()
