"""Outputs of 1 MiB or more are made before the run and written by it in place (the file's pages mapped over
the output's simulated HBM, sim/output_files.cpp): the files hold exactly what write_npy writes (numpy's
header, the sentinel where the kernel wrote nothing, widened or raw bfloat16), two outputs in one run, and a
failed run (a run-time error, `ulimit -f`) leaves no file, temporary file or created folder behind; a symlink
at an output path is written through, and a device there is written directly."""
import os
import resource
import subprocess

import numpy as np

from common import NKISIM, SRC, check, check_equal, finish, run, save, tmpdir, to_bf16

KERNEL = os.path.join(SRC, "tests", "e2e", "kernels", "big_outputs.py")
d = tmpdir()
rng = np.random.default_rng(7)
x = rng.standard_normal((128, 4096), dtype=np.float32)
xp = save(d, "x.npy", x)
a_bits = (x * np.float32(2)).view(np.uint32).copy()
a_bits[:, -512:] = 0xFFFFFFFF  # never written: the sentinel (NaN)
bf_bits = (to_bf16(x).view(np.uint32) >> 16).astype(np.uint16)


def header_and_data(path):
    """The file's bytes and what np.save writes for the array np.load reads from it (same header, same data)."""
    with open(path, "rb") as f:
        raw = f.read()
    ref = os.path.join(d, "ref.npy")
    np.save(ref, np.load(path))
    with open(ref, "rb") as f:
        return raw, f.read()


def outputs(out, *extra, same_as_functional=True):
    # checked=False: the kernel leaves part of `a` unwritten on purpose (initcheck would report it)
    rc, so, se = run(KERNEL, "--inputs", xp, "-o", out, "-q", *extra, checked=False,
                     same_as_functional=same_as_functional)
    check_equal((rc, se), (0, ""), f"run {extra}")
    return [os.path.join(out, f"output_{i}.npy") for i in range(2)]


# Timed and functional runs: output 0 is float32 (written in place), output 1 bfloat16 widened to float32.
for mode in ([], ["--functional"]):
    pa, pb = outputs(os.path.join(d, "out" + "".join(mode)), *mode)
    raw, ref = header_and_data(pa)
    check_equal(raw == ref, True, f"{mode} output 0: numpy's header and layout")
    check_equal(np.load(pa).view(np.uint32).tobytes() == a_bits.tobytes(), True,
                f"{mode} output 0: x * 2, the sentinel in the unwritten columns")
    check_equal(np.load(pb).dtype, np.dtype(np.float32), f"{mode} output 1: bfloat16 widened to float32")
    check_equal(np.load(pb).tobytes() == to_bf16(x).tobytes(), True, f"{mode} output 1 values")
    check_equal(sorted(os.listdir(os.path.dirname(pa))), ["output_0.npy", "output_1.npy"], f"{mode}: no temporary file")

# --raw-low-precision: output 1 holds the raw bfloat16 bits (written in place as well).
pa, pb = outputs(os.path.join(d, "raw"), "--raw-low-precision")
check_equal((np.load(pb).dtype, np.load(pb).tobytes() == bf_bits.tobytes()), (np.dtype("<u2"), True), "raw bfloat16 bits")
raw, ref = header_and_data(pb)
check_equal(raw == ref, True, "raw output: numpy's header and layout")

# A symlink at an output path is written through; a device is written directly (and stays a device link).
links = os.path.join(d, "links")
os.mkdir(links)
real = os.path.join(d, "real_a.npy")
os.symlink(real, os.path.join(links, "output_0.npy"))
os.symlink("/dev/null", os.path.join(links, "output_1.npy"))
outputs(links, same_as_functional=False)  # (output 1 went to /dev/null: nothing to compare)
check(os.path.islink(os.path.join(links, "output_0.npy")) and
      np.load(real).view(np.uint32).tobytes() == a_bits.tobytes(), "the symlink stays and its target got output 0")
check_equal(os.readlink(os.path.join(links, "output_1.npy")), "/dev/null", "a device output stays a device")
check_equal(sorted(os.listdir(links)), ["output_0.npy", "output_1.npy"], "no temporary file beside the links")


def failing(out, fsize=None, *extra):
    def limit():
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    p = subprocess.run([NKISIM, KERNEL, "--inputs", xp, "-o", out, "-q", *extra], capture_output=True, text=True,
                       timeout=120, preexec_fn=limit)
    return p.returncode, (p.stderr.splitlines() or [""])[0]


# A run-time error after the outputs were made: nothing stays, not even the folder the run created.
fresh = os.path.join(d, "fresh", "deeper")
rc, line = failing(fresh, None, "--max-run-elements", "100000")
check(rc == 1 and "--max-run-elements" in line, f"a run-time error: exit 1 ({rc}, {line!r})")
check(not os.path.exists(os.path.join(d, "fresh")), "a failed run removes its outputs and the folders it created")
# ulimit -f below the output's size: the same error as a written output, nothing left.
rc, line = failing(fresh, 1 << 20)
check_equal((rc, line), (1, f"nki-sim: error: {os.path.join(fresh, 'output_0.npy')}: cannot write: File too large"),
            "ulimit -f")
check(not os.path.exists(os.path.join(d, "fresh")), "ulimit -f: nothing left")
# A second run into the same folder replaces the outputs.
again = os.path.join(d, "out")
outputs(again)
check(np.load(os.path.join(again, "output_0.npy")).view(np.uint32).tobytes() == a_bits.tobytes(), "rerun into the same folder")
finish()
