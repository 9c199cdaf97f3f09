"""Narrow tiles written into wide HBM tensors (rows far apart): HBM's sentinel is tracked by 64-byte line
(sim/memory.cpp), so every byte the kernel wrote holds its value and every byte it did not write (between the
tiles, beside a 12-byte row, in a scratch tensor read back) the 0xFF sentinel, in timed and functional runs."""
import os

import numpy as np

from common import SRC, check_equal, finish, run, save, tmpdir

KERNEL = os.path.join(SRC, "tests", "e2e", "kernels", "strided_tiles.py")
d = tmpdir()
x = np.random.default_rng(3).standard_normal((128, 2048), dtype=np.float32)
xp = save(d, "x.npy", x)
SENTINEL = np.uint32(0xFFFFFFFF)
want_a = x.view(np.uint32).copy()
want_a[:, -64:] = SENTINEL
want_a[:, -3:] = x[:, 1001:1004].view(np.uint32)
want_c = np.full((128, 128), SENTINEL, np.uint32)
want_c[:, :64] = x[:, :64].view(np.uint32)

for mode in ([], ["--functional"]):
    out = os.path.join(d, "out" + "".join(mode))
    # checked=False: the kernel leaves bytes unwritten and reads some of them on purpose
    rc, so, se = run(KERNEL, "--inputs", xp, "-o", out, "-q", *mode, checked=False)
    check_equal((rc, se), (0, ""), f"{mode} run")
    a = np.load(os.path.join(out, "output_0.npy")).view(np.uint32)
    c = np.load(os.path.join(out, "output_1.npy")).view(np.uint32)
    check_equal(np.array_equal(a, want_a), True, f"{mode} a: x in the tiles, the sentinel elsewhere, 3 odd columns")
    check_equal(np.array_equal(c, want_c), True, f"{mode} c: the written half of the scratch, then the sentinel")
finish()
