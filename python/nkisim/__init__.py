"""nki-sim in process: run NKI kernels on numpy arrays from Python (docs/python.md).

    r = nkisim.simulate(kernel, a, b, target="trn2")   # r.outputs, r.total_ns, r.stats, r.profile
    prog = nkisim.compile(kernel, a, b)                # prog.asm, prog.save("k.nkibin")

`kernel` is a function decorated with nki.jit (current API) or neuronxcc.nki.jit (legacy), a kernel[grid] /
kernel[2] launch, or a plain function (taken as an nki.jit kernel).
"""
import os

from . import _nkisim
from ._host import as_dtype, sbuf, sbuf_output
from ._kernel import CURRENT, BenchmarkResult, CheckError, CheckWarning, Kernel, Result, as_kernel
from ._kernel import compile_program as _compile_program
from ._kernel import run as _run

KernelError = _nkisim.KernelError

__all__ = ["simulate", "compile", "as_dtype", "sbuf", "sbuf_output", "KernelError", "Result", "Program", "Kernel",
           "CheckError", "CheckWarning"]


def simulate(kernel, *args, target="trn2", lnc=None, timing=True, trace=None, html=None, check=None, **kwargs):
    """Compiles `kernel` for these arguments and simulates it. target: trn1 | trn2 | trn3; lnc: 1 or 2 (None:
    the kernel[N] launch, else 1); timing=False runs the numerics only (total_ns is None); trace: a path for
    the Chrome/Perfetto trace; html: a path for the self-contained HTML timeline (docs/html.md); check
    (docs/checks.md): True runs every check and turns each finding into a CheckWarning, "error" raises
    CheckError instead, "init,race,sync" chooses (as the CLI's --check=SPEC). Returns a Result
    (Result.findings lists what the checks found)."""
    return _run(as_kernel(kernel, CURRENT), args, kwargs, target=target, lnc=lnc, timing=timing, trace=trace,
                html=html, check=check)


class Program:
    """A compiled kernel: asm (the text assembly), lnc, target; save(path) writes the binary program."""

    def __init__(self, prog):
        self._prog = prog
        self.asm = prog.asm
        self.lnc = prog.lnc
        self.target = prog.target

    def save(self, path):
        """Writes the binary program to a temporary file beside `path`, renamed into place once complete."""
        self._prog.save(os.fspath(path))


def compile(kernel, *args, target="trn2", lnc=None, **kwargs):
    """Compiles `kernel` for these arguments (as simulate would) and returns the Program."""
    prog, _, _ = _compile_program(as_kernel(kernel, CURRENT), args, kwargs, target=target, lnc=lnc)
    return Program(prog)
