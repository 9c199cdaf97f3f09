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


def placeholder_module(name):
    """A module whose every attribute is a placeholder (nl.float32, nl.tile_size.pmax, ...): kernel modules
    import and decorate at import time but their bodies only run inside nki-sim."""
    class Placeholder:
        def __init__(self, path):
            self._path = path

        def __getattr__(self, attr):
            return Placeholder(self._path + "." + attr)

        def __call__(self, *a, **k):
            return Placeholder(self._path + "()")

        def __repr__(self):
            return self._path

        def __mro_entries__(self, bases):  # class Config(nl.NKIObject): ...
            return (object,)

    mod = types.ModuleType(name)
    mod.__getattr__ = lambda attr: Placeholder(name + "." + attr)
    return mod


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
