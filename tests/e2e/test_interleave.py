"""End to end: accumulation groups interleaved (ir/interleave.cpp, docs/cost-model.md) in a PE-bound kernel whose
stationary tiles are single copies refilled block after block. Interleaving reads each tile for the last time
sooner, so the next block's loads overlap the matmuls: the kernel is faster, its results bit-identical, and
nl.no_reorder() keeps program order."""
import os

import numpy as np

from common import SRC, check, check_equal, finish, load_core, run, save, tmpdir

KERNEL = os.path.join(SRC, "tests", "e2e", "kernels", "interleave.py")
d = tmpdir()
rng = np.random.default_rng(5)
lhs_t = rng.standard_normal((1024, 4096), dtype=np.float32)
rhs = rng.standard_normal((1024, 512), dtype=np.float32)
pl, pr = save(d, "l.npy", lhs_t), save(d, "r.npy", rhs)
ref = lhs_t.T.astype(np.float64) @ rhs.astype(np.float64)

results = {}
for target in ("trn1", "trn2"):
    for pinned in (False, True):
        tag = f"{target}{'_pinned' if pinned else ''}"
        out, stats, asm = (os.path.join(d, x + tag) for x in ("o_", "s_", "a_"))
        rc, _, se = run(KERNEL, "--inputs", pl, pr, "--arg", f"pinned={pinned}", "--target", target, "-o", out,
                        "--stats", stats, "--emit", "asm", asm, "-q")
        check_equal(rc, 0, f"{tag} exit code ({se})")
        if rc:
            continue
        o = np.load(os.path.join(out, "output_0.npy"))
        check(np.abs(o - ref).max() < 1e-3, f"{tag}: out = lhs_t.T @ rhs (max error {np.abs(o - ref).max()})")
        with open(asm) as f:
            moves = [line.rsplit(" @L", 1)[0].strip() for line in f if "multiply_moving" in line]
        results[tag] = (o, load_core(stats)["total_ns"], moves)

for target in ("trn1", "trn2"):
    if target not in results or target + "_pinned" not in results:
        continue
    (o, t, moves), (op, tp, moves_p) = results[target], results[target + "_pinned"]
    check(np.array_equal(o, op), f"{target}: the same bits in either order")
    check_equal(len(moves), len(moves_p), f"{target}: the same multiplies")
    check(moves != moves_p, f"{target}: the interleaved Tensor Engine order differs from program order")
    check(sorted(moves) == sorted(moves_p), f"{target}: the same multiplies, reordered")
    # Program order: the first group of a block writes one PSUM bank 8 times before the next group starts.
    dst, dst_p = [m.split()[1] for m in moves[:8]], [m.split()[1] for m in moves_p[:8]]
    check(len(set(dst_p)) == 1 and len(set(dst)) == 8,
          f"{target}: program order finishes a group first; interleaved, 8 groups take their first step first")
    check(t < tp * 0.99, f"{target}: interleaving shortens the kernel ({t:.0f} ns vs {tp:.0f} ns in program order)")

finish()
