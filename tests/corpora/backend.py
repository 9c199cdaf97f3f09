"""How a case's kernel is run: in process through the `nkisim` Python package when it is importable, else through
the nki-sim command line. This is the one place that chooses; both give (outputs in return order, total_ns)."""
import ast
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from harness import Expr, T


class KernelError(Exception):
    """nki-sim refused or failed the kernel; str() is its first error line."""

    def __init__(self, first, full=""):
        super().__init__(first)
        self.full = full


def first_error_line(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln or "Error:" in ln or "Error" in ln.split(":")[0]:
            return ln
    return lines[-1] if lines else "(no message)"


def _is_literal(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    if isinstance(v, (tuple, list)):
        return all(_is_literal(x) for x in v)
    return False


def _params_without_default(path, name):
    """Names of the kernel's parameters that have no default (parsed from its source)."""
    try:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            a = node.args
            pos = a.posonlyargs + a.args
            n_req = len(pos) - len(a.defaults)
            req = [p.arg for p in pos[:n_req]]
            req += [p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None]
            return req
    return None


def write_wrapper(d, case):
    p = os.path.join(d, "corpus_case.py")
    with open(p, "w") as f:
        f.write(case.wrapper)
    return p


class CliBackend:
    name = "cli"

    check = ""  # run.py --check: "error" runs every case with --check=error (docs/checks.md)

    def __init__(self, nkisim, jobs_tmp=None):
        self.nkisim = nkisim
        self.tmp = jobs_tmp or tempfile.mkdtemp(prefix="nkisim-corpora-")

    def run(self, case, root, args, functional=False):
        if any(isinstance(v, Expr) and "nkisim.sbuf" in v.src for v in args.values()):
            raise KernelError("SBUF-resident arguments (nkisim.sbuf / nkisim.sbuf_output) need the python backend")
        d = tempfile.mkdtemp(prefix=case.name.replace("/", "_") + "-", dir=self.tmp)
        path = os.path.join(root, case.file)
        includes = [os.path.join(root, case.include)] if case.include else [os.path.dirname(path)]
        name = case.kernel
        if case.wrapper:
            path, name = write_wrapper(d, case), "corpus_case"
        tensors = [k for k, v in args.items() if isinstance(v, T)]
        others = {k: v for k, v in args.items() if not isinstance(v, T)}
        req = _params_without_default(path, name)
        direct = all(_is_literal(v) for v in others.values()) and (
            req is None or tensors == [p for p in req if p not in others])
        cmd = [self.nkisim]
        if direct:
            cmd += [path, "-k", name]
            for k, v in others.items():
                cmd += ["--arg", f"{k}={v!r}"]
        else:
            cmd += [self._wrapper(d, case, path, args, tensors), "-k", "corpus_case"]
        inputs = []
        for k in tensors:
            p = os.path.join(d, k + ".npy")
            np.save(p, args[k].data)
            inputs.append(f"{p}:{args[k].dtype}")
        if inputs:
            cmd += ["--inputs", *inputs]
        for inc in includes:
            cmd += ["-I", inc]
        cmd += ["--target", case.target]
        if case.lnc:
            cmd += ["--lnc", str(case.lnc)]
        if case.grid:
            cmd += ["--grid", ",".join(map(str, case.grid))]
        out = os.path.join(d, "out")
        cmd += ["-o", out, "-q", "--stats", os.path.join(d, "stats.json")]
        if functional:
            cmd.append("--functional")
        if self.check:
            cmd.append("--check=" + self.check)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            raise KernelError("timeout (900 s)")
        if p.returncode:
            raise KernelError(first_error_line(p.stderr + p.stdout), p.stderr)
        with open(os.path.join(d, "stats.json")) as f:
            total_ns = json.load(f).get("total_ns")
        outs, i = [], 0
        while os.path.exists(os.path.join(out, f"output_{i}.npy")):
            outs.append(np.load(os.path.join(out, f"output_{i}.npy")))
            i += 1
        for k in case.written:
            outs.append(np.load(os.path.join(out, f"input_{k}.npy")))
        return outs, total_ns

    @staticmethod
    def _wrapper(d, case, path, args, tensors):
        """A kernel of ours that calls the corpus kernel with host-side arguments the command line cannot give."""
        imports = {"import nki"}
        for v in args.values():
            if isinstance(v, Expr):
                imports.update(v.imports)
        module = case.module or os.path.splitext(os.path.basename(path))[0]
        lines = sorted(imports) + [f"from {module} import {case.kernel} as _corpus_kernel", "", "",
                                   "@nki.jit", f"def corpus_case({', '.join(tensors)}):"]
        call = ", ".join(f"{k}={k}" if isinstance(v, T) else f"{k}={v.src if isinstance(v, Expr) else repr(v)}"
                         for k, v in args.items())
        lines.append(f"    return _corpus_kernel({call})")
        p = os.path.join(d, "corpus_case.py")
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        return p


class PyBackend:
    """In process through the `nkisim` package (branch `py`): kernels are imported on the host as normal Python."""
    name = "python"

    check = ""  # as CliBackend.check: nkisim.simulate(check=...)

    def __init__(self, nkisim_module):
        self.nkisim = nkisim_module
        self.tmp = tempfile.mkdtemp(prefix="nkisim-corpora-")

    def _kernel(self, case, root):
        path = os.path.join(root, case.file)
        inc = os.path.join(root, case.include) if case.include else os.path.dirname(path)
        if inc not in sys.path:
            sys.path.insert(0, inc)
        if case.wrapper:
            path = write_wrapper(tempfile.mkdtemp(dir=self.tmp), case)
        elif case.module:
            return getattr(importlib.import_module(case.module), case.kernel)
        name = "corpus_" + case.name.replace("/", "_").replace("-", "_").replace(".", "_")
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return getattr(mod, "corpus_case" if case.wrapper else case.kernel)

    def _value(self, v):
        if isinstance(v, T):
            if v.dtype in ("bfloat16",) or v.dtype.startswith("float8"):
                return self.nkisim.as_dtype(v.data, v.dtype)
            return v.data
        if isinstance(v, Expr):
            ns = {}
            for line in v.imports:
                exec(line, ns)
            return eval(v.src, ns)
        return v

    def run(self, case, root, args, functional=False):
        try:  # importing the kernel's module runs its host code: what fails there is reported like a kernel error
            kernel = self._kernel(case, root)
        except SyntaxError as e:
            raise KernelError(f"{e.filename}:{e.lineno}:{e.offset}: error: {e.msg}", str(e))
        except Exception as e:
            text = str(e) or type(e).__name__
            raise KernelError(f"importing the kernel's module: {type(e).__name__}: {first_error_line(text)}", text)
        if case.grid:
            kernel = kernel[case.grid if len(case.grid) > 1 else case.grid[0]]
        values = {k: self._value(v) for k, v in args.items()}
        try:
            extra = {"check": self.check} if self.check else {}
            r = self.nkisim.simulate(kernel, target=case.target, lnc=case.lnc, timing=not functional, **extra, **values)
        except Exception as e:  # nki-sim's located diagnostic
            raise KernelError(first_error_line(str(e)) if str(e) else type(e).__name__, str(e))
        outs = list(r.outputs) if isinstance(r.outputs, (tuple, list)) else [r.outputs]
        outs = [np.asarray(o, dtype=np.float32) if getattr(o, "dtype", None) is not None and
                o.dtype.kind == "V" else np.asarray(o) for o in outs]
        for k in case.written:
            outs.append(np.asarray(values[k]))
        return outs, r.total_ns


def python_package(python_dir):
    """The `nkisim` module from python_dir when it is the working package (it has `simulate` and provides the `nki`
    and `neuronxcc.nki` modules kernels import), else None. An empty or half-built folder imports as a namespace
    package, hence the checks."""
    if not python_dir or not os.path.isfile(os.path.join(python_dir, "nkisim", "__init__.py")):
        return None
    if python_dir not in sys.path:
        sys.path.insert(0, python_dir)
    try:
        mod = importlib.import_module("nkisim")
        importlib.import_module("nki")
        importlib.import_module("neuronxcc.nki")
    except ImportError:
        return None
    return mod if callable(getattr(mod, "simulate", None)) else None


def choose(kind, nkisim_path, python_dir):
    """kind: auto (python when the `nkisim` package in python_dir works, else cli), python, or cli."""
    if kind in ("auto", "python"):
        mod = python_package(python_dir)
        if mod is not None:
            return PyBackend(mod)
        if kind == "python":
            raise SystemExit(f"no working nkisim package in {python_dir}")
    return CliBackend(nkisim_path)
