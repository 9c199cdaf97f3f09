#!/usr/bin/env python3
"""run_on_device.py - runs this nki-sim bundle's kernel on a Trainium / Inferentia device through the Neuron SDK.

Written into every bundle by `nki-sim bundle`. Needs Python 3, numpy and the Neuron SDK on a Trn/Inf instance:
the `nki` package (kernels decorated with `nki.jit`) or `neuronxcc` (kernels written against the legacy
`neuronxcc.nki` API); ml_dtypes for bfloat16 / fp8 inputs. Nothing of nki-sim is needed.

TESTED ONLY AGAINST A STAND-IN: nki-sim has no device. This script is exercised in nki-sim's test suite against
a stand-in `nki` / `neuronxcc.nki` module written for the test (its control flow, the arguments it passes and
the results file it writes), never against the real Neuron SDK or hardware. It follows the SDK documentation
(nki.jit with numpy arrays runs the kernel standalone; kernel[lnc](...) / kernel[grid](...) launches;
neuron-explorer capture --profile-nth-exec=2). Please report what goes wrong on a real device.

Steps: (1) check every bundle file against manifest.json's sha256; (2) load the inputs (inputs/*.npy;
bfloat16 / fp8 inputs are stored as raw bits and viewed as the ml_dtypes type); (3) import the kernel from
kernel/ and call it through the SDK; (4) compare each output with nki-sim's (max abs / rel error, first
differing element); (5) latency over --iters runs after --warmup runs: the SDK's benchmark where the installed
SDK has one (device time), else a timed loop of calls (wall-clock per call, host overhead included);
(6) with --profile, save the NEFF (NEURON_FRAMEWORK_DEBUG=1) and run
`neuron-explorer capture -n NEFF -s profile.ntff --profile-nth-exec=2`; (7) write device_results.json.
Send device_results.json back; `nki-sim calibrate BUNDLE/device_results.json` compares it with the model.

Usage: python3 run_on_device.py [--iters N] [--warmup W] [--atol A] [--rtol R] [--profile] [-o FILE]
Exit status: 0 when every output agrees with nki-sim's, 1 when one differs or the run failed, 2 bad usage.
"""
import argparse
import ast
import datetime
import glob
import hashlib
import importlib
import inspect
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

RESULTS_FORMAT = "nki-sim-device-results"
RESULTS_FORMAT_VERSION = 1
BUNDLE = os.path.dirname(os.path.abspath(__file__))
NUMPY_NATIVE = ("bool_", "int8", "uint8", "int16", "uint16", "int32", "uint32", "float16", "float32")


class BundleError(Exception):
    """A bundle or run failure: printed as 'run_on_device.py: error: ...', exit 1."""


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_manifest():
    path = os.path.join(BUNDLE, "manifest.json")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise BundleError(f"{path}: cannot read the bundle manifest: {e.strerror}")
    manifest = json.loads(raw)
    if manifest.get("format") != "nki-sim-bundle":
        raise BundleError(f"{path}: not an nki-sim bundle manifest")
    for rel, expected in manifest["files"].items():
        full = os.path.join(BUNDLE, rel)
        if not os.path.isfile(full):
            raise BundleError(f"{full}: missing from the bundle (listed in manifest.json)")
        if sha256_file(full) != expected:
            raise BundleError(f"{full}: sha256 does not match manifest.json (the file was changed)")
    return manifest, hashlib.sha256(raw).hexdigest()


def device_dtype(name):
    """The numpy dtype an SDK input of NKI dtype `name` has: ml_dtypes' for the float types numpy lacks."""
    if name in NUMPY_NATIVE:
        return np.dtype(name)
    try:
        import ml_dtypes
    except ImportError:
        raise BundleError(f"a {name} input needs the ml_dtypes package (pip install ml_dtypes)")
    if not hasattr(ml_dtypes, name):
        raise BundleError(f"ml_dtypes has no {name} type for a {name} input")
    return np.dtype(getattr(ml_dtypes, name))


def load_inputs(manifest):
    """[(parameter name, array)]: low-precision inputs are raw bits in the file, viewed as their dtype."""
    out = []
    for t in manifest["inputs"]:
        arr = np.load(os.path.join(BUNDLE, t["file"]))
        if t["dtype"] not in NUMPY_NATIVE:
            arr = arr.view(device_dtype(t["dtype"]))
        out.append((t["name"], arr))
    return out


def import_kernel(manifest):
    """The kernel function object from kernel/, imported with its packages below kernel/ (relative imports work)."""
    kernel_file = os.path.join(BUNDLE, manifest["kernel"]["file"])
    top = os.path.join(BUNDLE, "kernel")
    folder, stem = os.path.split(kernel_file)
    parts = [os.path.splitext(stem)[0]]
    while folder != top and os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.insert(0, pkg)
    for inc in reversed(manifest["kernel"]["include_dirs"]):
        sys.path.insert(0, os.path.join(BUNDLE, inc))
    sys.path.insert(0, folder)
    module = importlib.import_module(".".join(parts))
    fn = getattr(module, manifest["kernel"]["function"], None)
    if fn is None:
        raise BundleError(f"{kernel_file}: no function '{manifest['kernel']['function']}'")
    return fn


def sdk_module(kernel):
    """The SDK module that made the kernel object: neuronxcc.nki (legacy) or nki."""
    legacy = type(kernel).__module__.startswith("neuronxcc")
    name = "neuronxcc.nki" if legacy else "nki"
    return name, importlib.import_module(name)


def python_function(kernel):
    for attr in ("func", "__wrapped__", "fn", "function"):
        inner = getattr(kernel, attr, None)
        if inspect.isfunction(inner):
            return inner
    return kernel if inspect.isfunction(kernel) else None


def call_arguments(kernel, tensors, arguments):
    """(args, kwargs) for the kernel: its parameters in signature order, positional up to the first one not
    supplied, keywords after; tensors positionally then arguments by keyword when the signature is unknown."""
    supplied = dict(tensors)
    supplied.update(arguments)
    fn = python_function(kernel)
    if fn is None:
        return [a for _, a in tensors], dict(arguments)
    args, kwargs, positional = [], {}, True
    for name, p in inspect.signature(fn).parameters.items():
        if name not in supplied:
            positional = False
            continue
        if positional and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(supplied[name])
        else:
            kwargs[name] = supplied[name]
    return args, kwargs


def launcher(kernel, manifest, sdk):
    """kernel, kernel[lnc] (LNC=2; kernel[nl.nc(lnc)] in the legacy API) or kernel[grid] (a legacy SPMD grid),
    as the SDK launches it."""
    grid, lnc = manifest["grid"], manifest["lnc"]
    if grid and lnc > 1:
        raise BundleError(f"a legacy launch grid {grid} on LNC={lnc}: this script does not spell that launch")
    if grid:
        return kernel[tuple(grid) if len(grid) > 1 else grid[0]]
    if lnc > 1:
        legacy = sdk.__name__ == "neuronxcc.nki"
        return kernel[importlib.import_module(sdk.__name__ + ".language").nc(lnc) if legacy else lnc]
    return kernel


def as_outputs(result):
    if result is None:
        return []
    if isinstance(result, (tuple, list)):
        return [np.asarray(r) for r in result]
    return [np.asarray(result)]


def compare(device, nki_sim, dtype, atol, rtol):
    """Agreement of one output: max abs / rel error, the first element that differs, within tolerance."""
    entry = {"dtype": dtype, "shape": list(nki_sim.shape), "atol": atol, "rtol": rtol}
    if tuple(device.shape) != tuple(nki_sim.shape):
        entry.update(match=False, error=f"device shape {list(device.shape)} != nki-sim shape {list(nki_sim.shape)}")
        return entry
    try:
        d = device.astype(np.float64)
    except (TypeError, ValueError) as e:
        entry.update(match=False, error=f"the device returned a {device.dtype} array that is not numeric: {e}")
        return entry
    s = nki_sim.astype(np.float64)
    both_nan = np.isnan(d) & np.isnan(s)
    diff = np.where(both_nan, 0.0, np.abs(d - s))
    nonzero = s != 0
    rel = np.where(nonzero & ~both_nan, diff / np.where(nonzero, np.abs(s), 1.0), 0.0)
    differs = ~((d == s) | both_nan)
    entry["max_abs_error"] = float(np.nanmax(diff)) if diff.size else 0.0
    entry["max_rel_error"] = float(np.nanmax(rel)) if rel.size else 0.0
    entry["differing_elements"] = int(differs.sum())
    entry["first_difference"] = None
    if differs.any():
        index = np.unravel_index(int(np.argmax(differs)), differs.shape)
        entry["first_difference"] = {"index": [int(i) for i in index], "device": float(d[index]),
                                     "nki_sim": float(s[index])}
    entry["match"] = bool(np.allclose(d, s, atol=atol, rtol=rtol, equal_nan=True))
    return entry


def percentiles(samples_us):
    a = np.asarray(samples_us, dtype=np.float64)
    return {"p50": float(np.percentile(a, 50)), "p90": float(np.percentile(a, 90)),
            "p99": float(np.percentile(a, 99)), "min": float(a.min()), "max": float(a.max()),
            "mean": float(a.mean())}


def measure_latency(sdk, kernel, manifest, args, kwargs, warmup, iters):
    """Device latency in microseconds: the SDK's benchmark where it has one, else a timed loop."""
    bench = getattr(sdk, "benchmark", None)
    note = "the SDK has no benchmark"
    if callable(bench):
        try:
            wrapped = bench(warmup=warmup, iters=iters)(kernel)
            launcher(wrapped, manifest, sdk)(*args, **kwargs)
            nc = wrapped.benchmark_result.nc_latency
            lat = {f"p{p}": float(nc.get_latency_percentile(p)) for p in (50, 90, 99)}
            return {"method": sdk.__name__ + ".benchmark", "clock": "device (nc_latency)", "warmup": warmup,
                    "iterations": iters, "latency_us": lat}
        except (NotImplementedError, AttributeError) as e:
            note = f"{sdk.__name__}.benchmark unavailable ({type(e).__name__}: {e})"
    call = launcher(kernel, manifest, sdk)
    for _ in range(warmup):
        call(*args, **kwargs)
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        call(*args, **kwargs)
        samples.append((time.perf_counter() - t0) * 1e6)
    return {"method": "timed loop", "clock": "host wall-clock per call (includes launch overhead)",
            "note": note, "warmup": warmup, "iterations": iters, "latency_us": percentiles(samples),
            "samples_us": samples}


def capture_profile(work):
    """neuron-explorer capture of the NEFF the SDK saved (NEURON_FRAMEWORK_DEBUG=1) in `work`."""
    neffs = sorted(glob.glob(os.path.join(work, "**", "*.neff"), recursive=True), key=os.path.getmtime)
    if not neffs:
        return {"status": "skipped", "reason": f"no NEFF was saved in {work} (NEURON_FRAMEWORK_DEBUG=1)"}
    tool = shutil.which("neuron-explorer")
    if tool is None:
        return {"status": "skipped", "reason": "neuron-explorer is not on PATH (package aws-neuronx-tools)",
                "neff": os.path.relpath(neffs[-1], BUNDLE)}
    cmd = [tool, "capture", "-n", neffs[-1], "-s", "profile.ntff", "--profile-nth-exec=2"]
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    ntff = sorted(glob.glob(os.path.join(work, "*.ntff")))
    return {"status": "ok" if p.returncode == 0 else "failed", "command": ["neuron-explorer"] + cmd[1:],
            "returncode": p.returncode, "neff": os.path.relpath(neffs[-1], BUNDLE),
            "ntff": [os.path.relpath(f, BUNDLE) for f in ntff], "stderr": p.stderr[-2000:]}


def write_json_atomically(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description="Run this nki-sim bundle's kernel on a Neuron device.")
    ap.add_argument("--iters", type=int, default=20, help="timed runs (default 20)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed runs before them (default 5)")
    ap.add_argument("--atol", type=float, help="absolute tolerance (default 1e-5; 1e-2 for 16-bit and fp8 outputs)")
    ap.add_argument("--rtol", type=float, help="relative tolerance (default 1e-3; 1e-2 for 16-bit and fp8 outputs)")
    ap.add_argument("--profile", action="store_true",
                    help="save the NEFF and run neuron-explorer capture --profile-nth-exec=2 on it")
    ap.add_argument("-o", "--output", default=os.path.join(BUNDLE, "device_results.json"),
                    help="results file (default: device_results.json in the bundle)")
    opts = ap.parse_args(argv)
    if opts.iters < 1 or opts.warmup < 0:
        ap.error("--iters must be at least 1 and --warmup at least 0")

    manifest, manifest_sha = load_manifest()
    # Before the SDK is imported: the runtime's logical core size must match the launch, and the target.
    lnc = str(manifest["lnc"])
    if os.environ.setdefault("NEURON_LOGICAL_NC_CONFIG", lnc) != lnc:
        raise BundleError(f"NEURON_LOGICAL_NC_CONFIG={os.environ['NEURON_LOGICAL_NC_CONFIG']}, but the bundle is "
                          f"an LNC={lnc} kernel")
    os.environ.setdefault("NEURON_PLATFORM_TARGET_OVERRIDE", manifest["target"])
    work = os.path.join(BUNDLE, "device_work")
    os.makedirs(work, exist_ok=True)
    if opts.profile:
        os.environ["NEURON_FRAMEWORK_DEBUG"] = "1"  # the compiler saves the NEFF in the current folder
    inputs = load_inputs(manifest)
    arguments = {a["name"]: ast.literal_eval(a["value"]) for a in manifest["arguments"]}
    try:
        kernel = import_kernel(manifest)
    except BundleError:
        raise
    except Exception as e:  # the kernel module's own import-time code
        traceback.print_exc()
        raise BundleError(f"importing {manifest['kernel']['file']} failed: {type(e).__name__}: {e}")
    sdk_name, sdk = sdk_module(kernel)
    if inspect.isfunction(kernel):  # not decorated: the SDK's jit makes it a kernel
        kernel = sdk.jit(kernel)
    args, kwargs = call_arguments(kernel, inputs, arguments)

    os.chdir(work)
    run = getattr(sdk, "baremetal", None)
    call = launcher(kernel, manifest, sdk)
    if callable(run) and sdk_name == "neuronxcc.nki":
        call = launcher(run(kernel), manifest, sdk)
    outputs = as_outputs(call(*args, **kwargs))

    numerics = []
    expected = manifest["nki_sim"]["outputs"]
    for i, t in enumerate(expected):
        low = t["dtype"] not in NUMPY_NATIVE or t["dtype"] == "float16"
        atol = opts.atol if opts.atol is not None else (1e-2 if low else 1e-5)
        rtol = opts.rtol if opts.rtol is not None else (1e-2 if low else 1e-3)
        ref = np.load(os.path.join(BUNDLE, t["file"]))
        if i >= len(outputs):
            numerics.append({"output": t["name"], "match": False, "error": "the device returned no such output"})
            continue
        entry = compare(outputs[i], ref, t["dtype"], atol, rtol)
        numerics.append(dict(output=t["name"], **entry))
    if len(outputs) > len(expected):
        numerics.append({"output": f"output_{len(expected)}", "match": False,
                         "error": f"the device returned {len(outputs)} outputs, nki-sim {len(expected)}"})

    latency = measure_latency(sdk, kernel, manifest, args, kwargs, opts.warmup, opts.iters)
    profile = capture_profile(work) if opts.profile else None
    all_match = all(n["match"] for n in numerics)
    results = {
        "format": RESULTS_FORMAT,
        "format_version": RESULTS_FORMAT_VERSION,
        "manifest_sha256": manifest_sha,
        "kernel": manifest["kernel"]["function"],
        "kernel_file": manifest["kernel"]["file"],
        "target": manifest["target"],
        "lnc": manifest["lnc"],
        "sdk": {"module": sdk_name, "version": str(getattr(sdk, "__version__", "unknown"))},
        "host": {"node": platform.node(), "python": platform.python_version(),
                 "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")},
        "latency": latency,
        "numerics": {"all_match": all_match, "outputs": numerics,
                     "written_inputs": "not compared (whether the SDK copies them back is not documented)"},
        "profile": profile,
    }
    write_json_atomically(opts.output, results)
    lat = latency["latency_us"]
    print(f"{manifest['kernel']['function']}: device p50 {lat['p50']:.3f} us ({latency['method']}), "
          f"nki-sim {manifest['nki_sim']['simulated_ns'] / 1000:.3f} us; outputs "
          f"{'match' if all_match else 'DIFFER'}; wrote {opts.output}")
    return 0 if all_match else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BundleError as e:
        print(f"run_on_device.py: error: {e}", file=sys.stderr)
        sys.exit(1)
