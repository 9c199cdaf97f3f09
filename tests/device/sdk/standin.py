"""standin.py - the engine of the stand-in Neuron SDK that tests/e2e/test_bundle.py runs a
bundle's run_on_device.py against. nki-sim has no device, so these modules only pretend: a kernel call binds its
arguments to the kernel's signature exactly as Python would, runs the kernel with the nki-sim CLI ($NKISIM) and
returns its outputs; every call is logged (JSON lines in $STANDIN_SDK_LOG) so the test can check what
run_on_device.py passed. Not part of nki-sim: never installed, never imported by the product."""
import inspect
import json
import os
import subprocess
import sys
import tempfile
import types

import numpy as np


def log(record):
    path = os.environ.get("STANDIN_SDK_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


class Placeholder:
    """Any name of the SDK the kernel module touches at import time (nl.float32, nl.tile_size.pmax, a base class
    nl.NKIObject): kernel bodies only run inside nki-sim."""

    def __init__(self, path):
        self._path = path

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):  # numpy / copy / pickle probes: not an array, not special
            raise AttributeError(attr)
        return Placeholder(self._path + "." + attr)

    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]):  # a decorator (@nki.compiler.skip_middle_end_transformations)
            return a[0]
        return Placeholder(self._path + "()")

    def __repr__(self):
        return self._path

    def __mro_entries__(self, bases):  # class Config(nl.NKIObject): ...
        return (object,)


def placeholder_module(name):
    """A package whose every attribute is a Placeholder and whose submodules are placeholder modules too
    (`from nki.isa.constants import dge_mode`)."""
    mod = types.ModuleType(name)
    mod.__path__ = []
    mod.__getattr__ = lambda attr: Placeholder(name + "." + attr)
    return mod


class _PlaceholderFinder:
    """Finds every not otherwise existing submodule of the stand-in SDK packages as a placeholder module."""

    def find_spec(self, fullname, path=None, target=None):
        import importlib.machinery
        parent = fullname.rpartition(".")[0]
        if parent and getattr(sys.modules.get(parent), "__path__", None) == [] and fullname.startswith(("nki.", "neuronxcc.")):
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return placeholder_module(spec.name)

    def exec_module(self, module):
        pass


sys.meta_path.append(_PlaceholderFinder())


def sdk_module_getattr(name):
    """A module-level __getattr__ for the stand-in SDK's top-level modules (nki.dtype, ...)."""
    def getattr_(attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Placeholder(name + "." + attr)
    return getattr_


def _bundle_root(path):
    d = os.path.dirname(os.path.abspath(path))
    while d != os.path.dirname(d):
        if os.path.isfile(os.path.join(d, "manifest.json")):
            return d
        d = os.path.dirname(d)
    return None


def _literal(value):
    return repr(value)


def run_kernel(api, fn, grid, args, kwargs):
    """Binds the call to fn's signature (a TypeError as Python gives one), runs fn's file with nki-sim."""
    bound = inspect.signature(fn).bind(*args, **kwargs)
    work = tempfile.mkdtemp(prefix="standin-sdk-")
    cmd = [os.environ.get("NKISIM", "nki-sim"), inspect.getsourcefile(fn), "-k", fn.__name__, "-o",
           os.path.join(work, "out"), "-q"]
    inputs, passed = [], []
    for name, value in bound.arguments.items():
        if isinstance(value, np.ndarray):
            path = os.path.join(work, name + ".npy")
            if value.dtype.names:  # the stand-in ml_dtypes: one field named after the NKI dtype, raw bits
                np.save(path, value.view(value.dtype[0]))
                inputs.append(path + ":" + value.dtype.names[0])
            else:
                np.save(path, value)
                inputs.append(path)
            passed.append({"name": name, "dtype": value.dtype.names[0] if value.dtype.names else str(value.dtype),
                           "shape": list(value.shape)})
        else:
            cmd += ["--arg", f"{name}={_literal(value)}"]
            passed.append({"name": name, "value": _literal(value)})
    if inputs:
        cmd += ["--inputs", *inputs]
    if grid is not None and isinstance(grid[0], LogicalCores):
        cmd += ["--lnc", str(grid[0].n)]
        grid = [f"nc({grid[0].n})"]
    elif grid is not None:
        cmd += ["--grid", ",".join(map(str, grid))] if api == "neuronxcc.nki" else ["--lnc", str(grid[0])]
    target = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    if target:
        cmd += ["--target", target]
    root = _bundle_root(inspect.getsourcefile(fn))
    for entry in sys.path:
        if root and entry and os.path.abspath(entry).startswith(root + os.sep):
            cmd += ["-I", entry]
    p = subprocess.run(cmd, capture_output=True, text=True)
    log({"call": fn.__name__, "module": fn.__module__, "api": api, "grid": grid, "args": passed, "cwd": os.getcwd(),
         "env": {k: os.environ.get(k) for k in ("NEURON_LOGICAL_NC_CONFIG", "NEURON_PLATFORM_TARGET_OVERRIDE",
                                                 "NEURON_FRAMEWORK_DEBUG")},
         "returncode": p.returncode})
    if p.returncode:
        raise RuntimeError("stand-in SDK: nki-sim failed:\n" + p.stderr)
    if os.environ.get("NEURON_FRAMEWORK_DEBUG") == "1":
        with open("file.neff", "w") as f:
            f.write("stand-in NEFF\n")
    outs = []
    while os.path.exists(os.path.join(work, "out", f"output_{len(outs)}.npy")):
        outs.append(np.load(os.path.join(work, "out", f"output_{len(outs)}.npy")))
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


class LogicalCores:
    """nl.nc(n) of the legacy API: a launch on n physical cores (LNC=n)."""

    def __init__(self, n):
        self.n = n


class Kernel:
    """What jit returns: call it, or launch it with kernel[grid] / kernel[lnc]."""

    def __init__(self, fn, api):
        self.func = fn
        self.api = api
        self.__name__ = fn.__name__

    def __getitem__(self, grid):
        grid = grid if isinstance(grid, tuple) else (grid,)
        return lambda *a, **k: run_kernel(self.api, self.func, list(grid), a, k)

    def __call__(self, *a, **k):
        return run_kernel(self.api, self.func, None, a, k)


def jit(api):
    """The jit decorator of module `api`: its kernels' class lives in that module, as the SDK's own do."""
    cls = type("Kernel", (Kernel,), {"__module__": api})

    def decorator(fn=None, **options):
        if fn is None:
            return lambda f: cls(f, api)
        return cls(fn, api)
    return decorator


class _Latency:
    def get_latency_percentile(self, p):
        table = json.loads(os.environ.get("STANDIN_LATENCY_US", "{}"))
        return float(table.get(str(p), 100.0 + p))


class Benchmark:
    """neuronxcc.nki.benchmark(warmup=, iters=)(kernel): one run, then benchmark_result.nc_latency."""

    def __init__(self, kernel, warmup, iters):
        self.kernel, self.warmup, self.iters = kernel, warmup, iters
        self.benchmark_result = None

    def _run(self, grid, a, k):
        shown = None if grid is None else [f"nc({g.n})" if isinstance(g, LogicalCores) else g for g in grid]
        log({"benchmark": self.kernel.__name__, "warmup": self.warmup, "iters": self.iters, "grid": shown})
        out = self.kernel[tuple(grid)](*a, **k) if grid else self.kernel(*a, **k)
        self.benchmark_result = types.SimpleNamespace(nc_latency=_Latency())
        return out

    def __getitem__(self, grid):
        grid = grid if isinstance(grid, tuple) else (grid,)
        return lambda *a, **k: self._run(list(grid), a, k)

    def __call__(self, *a, **k):
        return self._run(None, a, k)
