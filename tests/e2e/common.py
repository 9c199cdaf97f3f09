"""Shared helpers for the end-to-end tests: run the nki-sim CLI and compare with numpy goldens."""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from functional_rerun import functional_differences  # noqa: E402
from scratch import scratch_dir  # noqa: E402

NKISIM = os.environ.get("NKISIM", "build/nki-sim")
SRC = os.environ.get("NKISIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(SRC, "examples")

_failures = []
_passes = 0


def run(*args, cwd=None, same_as_functional=True, checked=True):
    """Runs nki-sim with the arguments; returns (exit code, stdout, stderr). A successful timed run is run
    again with --functional and every output file must be bit-identical (tests/functional_rerun.py); a
    difference is a recorded check failure. same_as_functional=False only for programs that race on purpose.
    The rerun also has --check=error (no finding on a correct kernel); checked=False only for kernels that
    are wrong on purpose (docs/checks.md)."""
    p = subprocess.run([NKISIM, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)
    if p.returncode == 0 and same_as_functional:
        for diff in functional_differences(NKISIM, args, cwd, check=checked):
            check(False, diff)
    return p.returncode, p.stdout, p.stderr


def tmpdir():
    return scratch_dir("nkisim-e2e-")


def save(d, name, arr):
    path = os.path.join(d, name)
    np.save(path, arr)
    return path


LEGACY_HEADER = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n\n\n"


def write_file(d, name, text):
    """Writes text to d/name and returns the path."""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def write_kernel(d, name, body, header=LEGACY_HEADER):
    """Writes header + body to d/name.py and returns the path."""
    return write_file(d, name + ".py", header + body)


def cli_outputs(d, path, inputs, *extra, n=1, checked=True):
    """Runs the kernel at path on the arrays (saved in d) and returns its n outputs (None each on failure,
    which is also a recorded check failure). checked: as run()."""
    out = os.path.join(d, "out_" + os.path.basename(path))
    rc, so, se = run(path, "--inputs", *[save(d, f"{os.path.basename(path)}_{i}.npy", x) for i, x in enumerate(inputs)],
                     "-o", out, "-q", *extra, checked=checked)
    check_equal(rc, 0, f"{os.path.basename(path)} {extra} exit code (stderr: {se})")
    if rc:
        return [None] * n
    return [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(n)]


def to_bf16(x):
    """float32 -> float32 holding the nearest bfloat16 (round to nearest even); NaN stays NaN."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    out = r.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


def rne_float(x, mbits, emin, maxval):
    """Round fp32 values to a binary float format with `mbits` mantissa bits, minimum normal exponent `emin`,
    largest finite `maxval` (values rounding beyond it become inf), round half to even; exact in float64."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    fin = np.isfinite(x) & (x != 0)
    e = np.floor(np.log2(np.abs(np.where(fin, x, 1.0))))
    q = np.exp2(np.maximum(e, emin) - mbits)
    r = np.rint(np.where(fin, x, 0) / q) * q
    r = np.where(np.abs(r) > maxval, np.copysign(np.inf, x), r)
    out[:] = np.where(fin, r, x)
    return out.astype(np.float32)


def to_fp8_e4m3(x):
    """float32 -> float32 holding the nearest float8_e4m3 (IEEE-like: 3 mantissa bits, smallest normal 2^-6,
    largest 240; ties to even, beyond it inf)."""
    return rne_float(x, 3, -6, 240.0)


def check(cond, what):
    global _passes
    if cond:
        _passes += 1
    else:
        _failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def check_equal(actual, expected, what):
    check(actual == expected, f"{what}: expected {expected!r}, got {actual!r}")


def finish():
    print(f"{_passes} passed, {len(_failures)} failed")
    sys.exit(1 if _failures else 0)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_core(path, schema="nki-sim-stats/2"):
    """The one core's document of a one-core --stats (or, with schema="nki-sim-profile/2", --profile-json) file,
    after checking the file's shape: {schema, lnc: 1, ..., cores: [that document]}."""
    doc = load_json(path)
    check_equal((doc.get("schema"), doc.get("lnc"), len(doc.get("cores", []))), (schema, 1, 1), f"{path}: the shape")
    return doc["cores"][0]
