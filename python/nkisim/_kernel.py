"""Decorated kernels on the host: argument binding, the compile cache, the simulator call, outputs."""
import ast
import copy
import functools
import inspect
import os
import sys

import numpy as np

from . import _dtypes, _host, _nkisim
from ._standins import grid_dim

CURRENT, LEGACY = 1, 2  # frontend::CompileOptions::Api
_TARGETS = ("trn1", "trn2", "trn3")
_cache = {}  # compile key -> _nkisim.Program
_CACHE_MAX = 256


class Result:
    """One simulation: outputs (a tuple in return order), total_ns, device_ns, stats, engine_busy_ns, profile,
    trace_path."""

    def __init__(self, raw, outputs, trace_path):
        import json
        self.outputs = outputs
        self.total_ns = raw["total_ns"] if raw["stats"] and raw["mode"] != "functional" else None
        self.stats = json.loads(raw["stats"]) if raw["stats"] else {}
        # The device time of the launch (total_ns plus the runtime's preamble and teardown: docs/cost-model.md).
        self.device_ns = self.stats.get("device_ns") if self.total_ns is not None else None
        self.engine_busy_ns = dict(raw["engine_busy_ns"])
        self.profile = raw["profile"]
        self.trace_path = trace_path
        self.instructions = raw["instructions"]
        self.findings = list(raw.get("findings", []))  # check=...: dicts (kind, message, file, line, tensor, ...)

    def __repr__(self):
        return f"<nkisim.Result outputs={len(self.outputs)} total_ns={self.total_ns}>"


def _target_name(t):
    if t is None:
        return None
    t = str(getattr(t, "name", t)).lower()
    for name in _TARGETS:
        if name in t:
            return name
    raise ValueError(f"unknown target {t!r} (expected trn1, trn2 or trn3)")


class Kernel:
    """An NKI kernel function on the host (what nki.jit & co. return). Calling it with numpy arrays compiles
    the kernel with nki-sim's front end (cached per argument shapes and values) and simulates it."""

    __test__ = False  # pytest: a kernel named test_* is not a test

    def __init__(self, fn, api, mode=None, platform_target=None, launch=None, kind="jit", options=None):
        if isinstance(fn, Kernel):
            base = fn
            fn, api = base.nki_function, base.api if api is None else api
            mode = base.mode if mode is None else mode
            platform_target = base.platform_target if platform_target is None else platform_target
            launch = base.launch if launch is None else launch
            options = {**base.options, **(options or {})}
        if not callable(fn):
            raise TypeError(f"nki.jit expects a function, got {type(fn).__name__}")
        self.nki_function = fn
        self.api = api
        self.mode = mode
        self.platform_target = platform_target
        self.launch = launch  # the kernel[...] key, or None
        self.kind = kind      # jit | simulate | baremetal | benchmark | profile
        self.options = dict(options or {})
        self.benchmark_result = None
        functools.update_wrapper(self, fn)
        self.__test__ = False

    def __repr__(self):
        return f"<nki kernel {self.nki_function.__qualname__}>"

    def __getitem__(self, key):
        k = copy.copy(self)
        k.launch = key
        return k

    def _with(self, kind, **options):
        k = copy.copy(self)
        k.kind = kind
        k.options = {**self.options, **options}
        return k

    def launch_config(self):
        """(lnc, grid) of the kernel[...] launch: the logical core size for the current API, the SPMD grid
        (run serially on one core) for a legacy kernel."""
        if self.launch is None:
            return None, []
        dims = self.launch if isinstance(self.launch, tuple) else (self.launch,)
        sizes = [grid_dim(d) for d in dims]
        if self.api == CURRENT:
            if len(sizes) != 1 or sizes[0][0] not in (1, 2):
                raise ValueError(f"{self.__name__}[...]: an nki.jit kernel is launched as kernel[1] or kernel[2] "
                                 "(the logical NeuronCore size)")
            return sizes[0][0], []
        return None, [s for s, _ in sizes]  # the front end runs kernel[0] as one instance, refuses negative sizes

    def __call__(self, *args, **kwargs):
        timed = self.kind in ("benchmark", "profile")
        trace = None
        if self.kind == "profile":
            d = self.options.get("working_directory") or "."
            name = self.options.get("save_trace_name") or f"{self.__name__}.trace.json"
            trace = os.path.join(d, name)
        r = run(self, args, kwargs, target=None, lnc=None, timing=timed, trace=trace)
        if self.kind == "benchmark":
            self.benchmark_result = BenchmarkResult(r.device_ns)
        if len(r.outputs) == 1:
            return r.outputs[0]
        return r.outputs if r.outputs else None


class _Latency:
    def __init__(self, us):
        self.us = us

    def get_latency_percentile(self, p):
        """The simulated device latency in microseconds (Result.device_ns: the kernel and the runtime's launch
        overhead; the simulator is deterministic, so every percentile)."""
        return self.us


class BenchmarkResult:
    def __init__(self, total_ns):
        self.nc_latency = _Latency(total_ns / 1000.0)


def as_kernel(k, api):
    """A Kernel for `k` (a Kernel, or a plain function taken as jit of `api`)."""
    return k if isinstance(k, Kernel) else Kernel(k, api)


def _kernel_file(fn):
    f = inspect.getsourcefile(fn) or fn.__code__.co_filename
    return os.path.abspath(f)


def _module_root(modname, file):
    path = os.path.dirname(file)
    depth = modname.count(".") + (1 if os.path.basename(file) == "__init__.py" else 0)
    for _ in range(depth):
        path = os.path.dirname(path)
    return path


_imports_cache = {}  # (kernel file, mtime) -> the top-level names of its absolute imports


def _imported_names(path, mtime):
    key = (path, mtime)
    names = _imports_cache.get(key)
    if names is None:
        names = []
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
        except (OSError, SyntaxError, ValueError):
            tree = None  # the front end reports what is wrong with the file
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            for m in mods:
                top = m.split(".")[0]
                if top not in names:
                    names.append(top)
        _imports_cache[key] = names
    return names


def _import_packages(path, mtime, own_top):
    """The folders (__path__) or files (__file__) of the host-imported packages the kernel's module imports:
    the front end may import these by name, and nothing else beside them. Not the packages built into the front
    end (nki, numpy, ...), the standard library, extension modules, or the kernel's own package."""
    out = []
    stdlib = getattr(sys, "stdlib_module_names", ())
    for top in _imported_names(path, mtime):
        mod = sys.modules.get(top)
        if mod is None or top == own_top or top in stdlib or top == "nkisim" or _host._is_builtin_module(top):
            continue
        paths = list(getattr(mod, "__path__", None) or ())
        f = getattr(mod, "__file__", None)
        if not paths and f and f.endswith(".py"):
            paths = [f]
        for p in paths:
            p = os.path.abspath(p)
            if p not in out:
                out.append(p)
    return out


def _input(a, name):
    dt = _dtypes.array_dtype(a)
    if dt is None and a.dtype.name == "bool":
        dt = "bool_"
    if dt is None and a.dtype.name not in _dtypes.NUMPY_NATIVE:
        raise TypeError(f"input '{name}' has dtype {a.dtype.name}, which NKI does not have: convert it "
                        f"(e.g. {name}.astype(np.float32)) or mark it with nkisim.as_dtype({name}, \"bfloat16\")")
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return a, dt or ""


def compile_program(kernel, args, kwargs, target=None, lnc=None):
    """(program, converter, trace) for a call: binds the arguments by the kernel's signature, turns them into
    host values and compiles (or takes the cached program)."""
    fn = kernel.nki_function
    if "<locals>" in fn.__qualname__:
        raise TypeError(f"kernel {fn.__qualname__} is defined inside a function; nki-sim compiles module-level "
                        "kernels (their file is loaded by its front end)")
    bound = inspect.signature(fn).bind(*args, **kwargs)
    conv = _host.Converter()
    host_args = [(name, conv.convert(v, name)) for name, v in bound.arguments.items()]
    inputs = [_input(a, conv.names[k]) for k, a in enumerate(conv.arrays)]
    if conv.sbuf and kernel.api == LEGACY:
        raise TypeError(f"kernel {fn.__qualname__}: nkisim.sbuf / nkisim.sbuf_output arguments are for nki.jit "
                        "(current API) functions, not legacy neuronxcc.nki kernels")
    launch_lnc, grid = kernel.launch_config()
    lnc = lnc if lnc is not None else launch_lnc if launch_lnc is not None else 1
    target = _target_name(target) or _target_name(kernel.platform_target) or "trn2"
    path = _kernel_file(fn)
    module = fn.__module__ or "__main__"
    dirs = list(conv.roots)
    if module != "__main__":
        root = _module_root(module, path)
        if root not in dirs:
            dirs.append(root)
    specs = [(list(a.shape), dt or a.dtype.name) for a, dt in inputs]
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        mtime = 0
    packages = _import_packages(path, mtime, module.split(".")[0] if module != "__main__" else None)
    files = [f[:4] for f in conv.host_files.values()]
    file_ids = [(f[0], f[4]) for f in conv.host_files.values()]
    key = repr((path, mtime, fn.__name__, module, kernel.api, host_args, specs, target, lnc, grid, dirs, packages,
                file_ids))
    prog = _cache.get(key)
    if prog is None:
        prog = _nkisim.compile(path, fn.__name__, module, kernel.api or 0, host_args, specs, target, lnc, grid,
                               dirs, packages, files)
        if len(_cache) >= _CACHE_MAX:
            _cache.pop(next(iter(_cache)))
        _cache[key] = prog
    return prog, conv, inputs


class CheckWarning(UserWarning):
    """A finding of nkisim.simulate(..., check=True) (docs/checks.md): the text of one compiler-style warning."""


class CheckError(Exception):
    """nkisim.simulate(..., check="error") found problems: str() is their compiler-style text, .findings the
    list of dicts (kind, message, file, line, tensor, ...)."""

    def __init__(self, text, findings):
        super().__init__(text)
        self.findings = findings


def _check_spec(check):
    """The check= argument as the simulator's spec: None/False -> "" (off), True -> "all", a string as the CLI's
    --check=SPEC (e.g. "error", "init,race")."""
    if check is None or check is False:
        return ""
    if check is True:
        return "all"
    if isinstance(check, str):
        return check
    raise TypeError(f"check must be None, a bool or a string such as 'error' or 'init,race', not {check!r}")


def _report_findings(findings, spec):
    if not findings:
        return
    text = "".join(f["text"] for f in findings)
    if "error" in spec.split(","):
        raise CheckError(text.rstrip("\n"), findings)
    import warnings
    for f in findings:
        warnings.warn(CheckWarning(f["text"].rstrip("\n")), stacklevel=4)


def run(kernel, args, kwargs, target=None, lnc=None, timing=True, trace=None, html=None, check=None):
    prog, conv, inputs = compile_program(kernel, args, kwargs, target, lnc)
    mode = "timed" if timing else "functional"
    if html and not timing:
        raise ValueError("html= needs a timed run (timing=True)")
    spec = _check_spec(check)
    raw = _nkisim.simulate(prog, inputs, mode, bool(timing), os.fspath(trace) if trace else "",
                           os.fspath(html) if html else "", spec)
    raw["mode"] = mode
    if raw["printed"]:
        sys.stdout.write(raw["printed"])
    outputs = tuple(_dtypes.host_output(a, d) for a, d in zip(raw["outputs"], raw["output_dtypes"]))
    # Inputs the kernel wrote go back into the caller's arrays, as on the device.
    for name, value in raw["written_inputs"]:
        if name in conv.names:
            dst = conv.arrays[conv.names.index(name)]
            np.copyto(dst, value.reshape(dst.shape), casting="unsafe")
    _report_findings(raw["findings"], spec)
    return Result(raw, outputs, os.fspath(trace) if trace else None)
