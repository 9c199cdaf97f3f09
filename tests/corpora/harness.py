"""The conformance runner's vocabulary: a case (kernel, arguments, numpy reference, tolerance), its result, and
the comparison with the reference. Backends (backend.py) run a case's kernel; corpus modules declare cases."""
import dataclasses
import os
import sys
from typing import Any, Callable, Optional

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from common import to_bf16, to_fp8_e4m3  # noqa: E402  (float32 -> float32 holding the nearest value, RNE)

SEED = 1234


@dataclasses.dataclass
class T:
    """A tensor argument: float32/int data and the dtype the kernel sees (bf16 data is pre-rounded to bf16)."""
    data: np.ndarray
    dtype: str = ""

    def __post_init__(self):
        if not self.dtype:
            self.dtype = str(self.data.dtype)
        if self.dtype == "bfloat16":
            self.data = to_bf16(np.asarray(self.data, np.float32))
        elif self.dtype == "float8_e4m3":
            self.data = to_fp8_e4m3(np.asarray(self.data, np.float32))
        else:
            self.data = np.ascontiguousarray(self.data, dtype=self.dtype)


@dataclasses.dataclass
class Expr:
    """A host-side Python argument (enum, dataclass config, ...) as source text, evaluated after `imports`
    (lines of Python such as `from nkilib.core.topk.rotational_topk import RotationalTopkConfig`)."""
    src: str
    imports: tuple = ()


@dataclasses.dataclass
class Case:
    """One kernel run. `file` is relative to the corpus root; `module` (dotted, importable from `include`) is set
    for package kernels. `args` maps parameter names to T / Expr / Python literals in the kernel's order;
    `reference(inputs)` gets {name: array} (tensors as the kernel sees them, bf16 as float32) and returns the
    expected outputs in return order (None skips an output)."""
    corpus: str
    name: str
    file: str
    kernel: str
    args: Callable[[np.random.Generator], dict]
    reference: Callable[[dict], Any]
    atol: float = 1e-5
    rtol: float = 1e-5
    atol_scale: float = 0.0  # adds atol_scale * max|reference| to atol (matmuls of bf16 intermediates)
    lnc: Optional[int] = None
    target: str = "trn2"
    grid: Optional[tuple] = None
    module: str = ""
    include: str = ""  # relative to the corpus root: the import root of `module`
    written: tuple = ()  # names of input tensors the kernel writes; compared after the returned outputs
    skip: str = ""
    # Source of a small @nki.jit kernel of ours, `corpus_case`, that calls the corpus kernel: for kernels whose operands
    # live in SBUF (the corpus tests wrap those the same way). Its parameters are the case's args.
    wrapper: str = ""
    expect_error: str = ""  # an invalid kernel: PASS when nki-sim refuses it with a located error (file:line:col)
    error_text: str = ""  # with expect_error: the refusal must contain this text (else MISMATCH)
    post: Optional[Callable] = None  # post(outputs, inputs) -> outputs to compare (e.g. sorted top-k values)


@dataclasses.dataclass
class Result:
    case: Case
    status: str  # PASS, MISMATCH, ERROR, SKIP
    max_err: Optional[float] = None
    total_ns: Optional[float] = None
    message: str = ""
    functional: str = ""  # for a MISMATCH: the status of the same case under --functional


def make_args(case):
    return case.args(np.random.default_rng(SEED))


def reference_inputs(args):
    return {k: (v.data if isinstance(v, T) else v) for k, v in args.items()}


def compare(outputs, expected, atol, rtol, atol_scale=0.0):
    """Returns (ok, max abs error, message) comparing the kernel's outputs with the reference's."""
    if not isinstance(expected, (list, tuple)):
        expected = [expected]
    if len(outputs) < len([e for e in expected if e is not None]):
        return False, None, f"{len(outputs)} outputs, reference has {len(expected)}"
    worst, msg, ok = 0.0, "", True
    for i, (out, ref) in enumerate(zip(outputs, expected)):
        if ref is None:
            continue
        ref = np.asarray(ref)
        out = np.asarray(out)
        if out.size == ref.size and out.shape != ref.shape:
            out = out.reshape(ref.shape)
        if out.shape != ref.shape:
            return False, None, f"output {i}: shape {out.shape}, reference {ref.shape}"
        o, r = out.astype(np.float64), ref.astype(np.float64)
        bad_nan = np.isnan(o) != np.isnan(r)
        err = np.where(np.isnan(o) & np.isnan(r), 0.0, np.abs(o - r))
        err = np.where(bad_nan, np.inf, err)
        e = float(np.max(err)) if err.size else 0.0
        worst = max(worst, e)
        tol = atol + (atol_scale * float(np.nanmax(np.abs(r))) if atol_scale and r.size else 0.0)
        bad = ~(err <= tol + rtol * np.abs(np.nan_to_num(r)))
        if np.any(bad) and ok:
            ok = False
            idx = tuple(int(j) for j in np.argwhere(bad)[0])
            msg = (f"output {i}: {int(bad.sum())}/{bad.size} elements off, first at {idx}: "
                   f"got {o[idx]!r}, expected {r[idx]!r}")
    return ok, worst, msg
