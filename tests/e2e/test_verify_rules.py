"""The hardware rules of isa/verify.h hold in every path (issue 17): generation availability and size limits are
errors in nki-as, in a full run of a binary program, under --functional and under --timing-only."""
import os
import subprocess

import numpy as np

from common import NKISIM, check, check_equal, finish, run, tmpdir, write_file

TOOLS = os.path.dirname(os.path.abspath(NKISIM))
d = tmpdir()


def nki_as(name, text):
    src = os.path.join(d, name + ".s")
    with open(src, "w") as f:
        f.write(text)
    out = os.path.join(d, name + ".bin")
    p = subprocess.run([os.path.join(TOOLS, "nki-as"), src, "-o", out], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr, src, out


def first_line(text):
    return text.splitlines()[0] if text else ""


# bn_stats reads at most 512 elements per partition (bn_stats_fmax). data walks every other element (stride 2) so
# that its dim (stride 2, count N) is a byte pattern found once in the binary.
def bn_stats(n):
    return (".target trn2\n.kernel k\n.semaphores 1\n.hbm_bytes 0xc00\n"
            ".tensor out output float32 [128,6] @0x0 bytes=3072 out=0\n"
            ".stream vector\n"
            f"  bn_stats dst=sbuf:float32@p0:128+0x2000[[1,6]] data=sbuf:float32@p0:128+0x0[[2,{n}]] signal=s0+1\n"
            ".stream sync\n"
            "  dma_copy dst=hbm:float32@0x0[[6,128],[1,6]] src=sbuf:float32@p0:128+0x2000[[1,6]] queue=0 wait=s0>=1\n")


BN_MSG = "bn_stats: data has 1024 elements per partition; at most 512 (bn_stats_fmax)"
rc, se, src, out = nki_as("bn1024", bn_stats(1024))
check_equal((rc, se), (1, f"{src}: error: vector instruction 0 (bn_stats): {BN_MSG}\n"),
            "nki-as rejects bn_stats with N=1024")
check(not os.path.exists(out), "nki-as wrote no output for a rejected program")

rc, se, src, good = nki_as("bn512", bn_stats(512))
check_equal((rc, se), (0, ""), "nki-as accepts bn_stats with N=512")
rc, so, se = run("--program", good, "-o", os.path.join(d, "out512"), "-q", same_as_functional=False)
check_equal((rc, se), (0, ""), "bn_stats with N=512 runs")
# The same binary with the count patched to 1024 (the format has no checksum).
with open(good, "rb") as f:
    data = f.read()
pattern = (2).to_bytes(8, "little") + (512).to_bytes(4, "little")
check_equal(data.count(pattern), 1, "data's dim appears once in the binary")
bad = os.path.join(d, "bn1024_patched.bin")
with open(bad, "wb") as f:
    f.write(data.replace(pattern, (2).to_bytes(8, "little") + (1024).to_bytes(4, "little")))
for mode in ([], ["--functional"], ["--timing-only"]):
    out = os.path.join(d, "out_bn" + "".join(mode))
    rc, so, se = run("--program", bad, "-o", out, *mode, same_as_functional=False, checked=False)
    check_equal((rc, first_line(se)), (1, f"{bad}: error: vector instruction 0 (bn_stats): {BN_MSG}"),
                f"a run {mode} rejects bn_stats with N=1024")
    check(not os.path.exists(out), f"no output after a rejected program {mode}")

# A kernel: the binding leaves the size limit to isa::verify, which reports it at lowering at the kernel line.
KERNEL = write_file(d, "bn.py", """import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def bn(x):
    out = nl.ndarray((128, 6), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    s = nl.ndarray((128, 6), dtype=nl.float32, buffer=nl.sbuf)
    nisa.bn_stats(dst=s, data=t)
    nisa.dma_copy(dst=out, src=s)
    return out
""")
xb = os.path.join(d, "xb.npy")
np.save(xb, np.ones((128, 1024), np.float32))
for mode in ([], ["--timing-only"]):
    rc, so, se = run(KERNEL, "--inputs", xb, "-o", os.path.join(d, "out_kernel"), *mode, same_as_functional=False,
                     checked=False)
    check_equal((rc, se.splitlines()[:2]), (1, [f"{KERNEL}:12:5: error: {BN_MSG}", "   12 |     nisa.bn_stats(dst=s, data=t)"]),
                f"a kernel with bn_stats N=1024 {mode}")

# dma_transpose exists on trn2 and later; exponential on trn3 only.
TRN3 = (".target trn3\n.kernel k2\n.semaphores 3\n.hbm_bytes 0x4000\n"
        ".tensor x input float32 [64,32] @0x0 bytes=8192 param=0\n"
        ".tensor out output float32 [32,64] @0x2000 bytes=8192 out=0\n"
        ".stream vector\n"
        "  {vector}\n"
        ".stream sync\n"
        "  dma_copy dst=sbuf:float32@p0:64+0x0[[1,32]] src=hbm:float32@0x0[[32,64],[1,32]] queue=0 signal=s0+1\n"
        "  {sync} wait=s1>=1 signal=s2+1\n"
        "  dma_copy dst=hbm:float32@0x2000[[64,32],[1,64]] src=sbuf:float32@p0:32+0x100[[1,64]] queue=2 wait=s2>=1\n")
EXP = "exponential dst=sbuf:float32@p0:64+0x80[[1,32]] src=sbuf:float32@p0:64+0x0[[1,32]] wait=s0>=1 signal=s1+1"
COPY = "tensor_copy dst=sbuf:float32@p0:64+0x80[[1,32]] src=sbuf:float32@p0:64+0x0[[1,32]] wait=s0>=1 signal=s1+1"
TRANSPOSE = ("dma_transpose dst=sbuf:float32@p0:32+0x100[[1,64]] src=sbuf:float32@p0:64+0x80[[1,32]] queue=1 axes=10 "
             "tdim0=64 tdim1=32")
COPY_T = "dma_copy dst=sbuf:float32@p0:32+0x100[[1,64]] src=sbuf:float32@p0:64+0x80[[1,32]] queue=1"

x = os.path.join(d, "x.npy")
np.save(x, np.ones((64, 32), np.float32))

for name, vector, sync, target, where, msg in [
    ("transpose", COPY, TRANSPOSE, "trn1", "sync instruction 1 (dma_transpose)",
     "dma_transpose: not available on trn1 (trn2 and later)"),
    ("exp", EXP, COPY_T, "trn1", "vector instruction 0 (exponential)", "exponential: not available on trn1 (trn3 only)"),
    ("exp", EXP, COPY_T, "trn2", "vector instruction 0 (exponential)", "exponential: not available on trn2 (trn3 only)"),
]:
    rc, se, src, binary = nki_as(name, TRN3.format(vector=vector, sync=sync))
    check_equal((rc, se), (0, ""), f"nki-as accepts {name} for trn3")
    rc, so, se = run("--program", binary, "--inputs", x, "-o", os.path.join(d, "ok_" + name), "-q", "--target", "trn3")
    check_equal((rc, se), (0, ""), f"{name} runs on trn3")
    for mode in ([], ["--functional"], ["--timing-only"]):
        out = os.path.join(d, f"out_{name}_{target}" + "".join(mode))
        rc, so, se = run("--program", binary, "--inputs", x, "-o", out, "--target", target, *mode,
                         same_as_functional=False, checked=False)
        check_equal((rc, first_line(se)), (1, f"{binary}: error: {where}: {msg}"), f"{name} on {target} {mode}")
    # nki-as checks the program against the target it names.
    rc, se, src, out = nki_as(name + "_" + target, TRN3.format(vector=vector, sync=sync).replace("trn3", target))
    check_equal((rc, se), (1, f"{src}: error: {where}: {msg}\n"), f"nki-as rejects {name} for {target}")
finish()
