"""End to end: given inputs of at least an eighth of the on-chip bytes (here 4 MiB: trn1 and trn2 yes, trn3 no),
the CLI prepares the target's SBUF and PSUM on a background thread while it compiles (sim/memory_ahead.h).
Whatever that thread got done, a run sees exactly what a fresh memory holds: written bytes, and the 0xFF
sentinel (NaN) where a kernel reads on-chip memory it never wrote. Checked on the default target, on
--target trn1, on a kernel that picks trn1 for itself (the prepared trn2 memories go unused), with LNC=2 (the
second core's memories are not prepared), with a long compile (the thread finishes first) and on the error exits
(a compile error exits 1, a bad command line 2, with the thread still running)."""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir

d = tmpdir()
rng = np.random.default_rng(20)
N = 8192
a = rng.standard_normal((128, N), dtype=np.float32)
pa = save(d, "a.npy", a)

KERNEL = """import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def half_written(a_input):
    P, F = a_input.shape
    out = nl.ndarray((P, 3 * F // 2), dtype=a_input.dtype, buffer=nl.shared_hbm)
    # Above the low SBUF and PSUM bytes: the half of x no instruction writes reads as the sentinel.
    pad = nl.ndarray((P, 4 * F), dtype=a_input.dtype, buffer=nl.sbuf)
    nisa.memset(dst=pad[:, 0:8], value=0.0)
    x = nl.ndarray((P, F), dtype=a_input.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=x[:, 0:F // 2], src=a_input[:, 0:F // 2])
    for r in nl.static_range(REPS):
        nisa.tensor_scalar(dst=x[:, 0:F // 2], data=x[:, 0:F // 2], op0=nl.multiply, operand0=1.0)
    nisa.tensor_scalar(dst=x[:, 0:F // 2], data=x[:, 0:F // 2], op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out[:, 0:F], src=x)
    acc = nl.ndarray((P, 512), dtype=nl.float32, buffer=nl.psum)
    nisa.tensor_copy(dst=acc[:, 0:256], src=x[:, 0:256])
    t = nl.ndarray((P, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=t, src=acc)
    nisa.dma_copy(dst=out[:, F:F + 512], src=t)
    nisa.dma_copy(dst=out[:, F + 512:3 * F // 2], src=x[:, F // 2 + 512:F])
    return out
"""


def kernel(name, reps=1, decorator="@nki.jit"):
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(KERNEL.replace("REPS", str(reps)).replace("@nki.jit", decorator))
    return path


# What every run must give: 2a in the written half, all-ones bits (the sentinel) elsewhere.
half = N // 2
want = np.full((128, 3 * half), np.uint32(0xFFFFFFFF)).view(np.float32)
want[:, :half] = 2 * a[:, :half]
want[:, N:N + 256] = 2 * a[:, :256]


def outputs(path, *extra, tag):
    out = os.path.join(d, "out-" + tag)
    rc, so, se = run(path, "--inputs", pa, "-o", out, *extra, checked=False)
    if rc:
        return rc, se, None
    return rc, se, np.load(os.path.join(out, "output_0.npy"))


def same_bits(x, y):
    return x is not None and x.shape == y.shape and np.array_equal(x.view(np.uint32), y.view(np.uint32))


runs = [
    ("default", kernel("k"), ()),
    ("trn1", kernel("k"), ("--target", "trn1")),
    ("trn3", kernel("k"), ("--target", "trn3")),
    ("picks trn1", kernel("k_pt", decorator='@nki.jit(platform_target="trn1")'), ()),
    ("functional", kernel("k"), ("--functional",)),
    ("lnc 2", kernel("k"), ("--lnc", "2")),
    ("long compile", kernel("k_long", reps=3000), ()),
]
for tag, path, extra in runs:
    rc, se, res = outputs(path, *extra, tag=tag.replace(" ", "_"))
    check(rc == 0 and same_bits(res, want), f"{tag}: written values and the sentinel where nothing was written ({se})")

rc, so, se = run(kernel("k"), "--inputs", pa, "--timing-only")
check(rc == 0, f"--timing-only (nothing prepared): {se}")

# Error exits while the thread prepares: nothing hangs, crashes or changes the message.
bad = os.path.join(d, "bad.py")
with open(bad, "w") as f:
    f.write(KERNEL.replace("REPS", "1").replace("op0=nl.multiply, operand0=2.0", "op0=nl.multiply, operand0=undefined"))
rc, so, se = run(bad, "--inputs", pa, "-o", os.path.join(d, "out-bad"))
check(rc == 1 and se.startswith(f"{bad}:17:91: error: name 'undefined' is not defined\n"), f"compile error: {rc} {se!r}")
rc, so, se = run(kernel("k"), "--inputs", pa, "--emit", "asm")
check(rc == 2 and se.startswith("nki-sim: error: --emit expects 'ir FILE', 'asm FILE' or 'bin FILE'\nusage: "),
      f"bad command line: {rc} {se!r}")

finish()
