#!/usr/bin/env python3
"""Front-end conformance suite: runs nki-sim on every tests/frontend/conformance/NNN_*.py kernel.

Each kernel file starts with directive comments:

    # feature: what the file tests (one feature per file)
    # input: NAME = EXPR        an input array (numpy expression; `rng` is a seeded Generator), in order
    # args: ARGS                extra nki-sim arguments ({dir} = the conformance directory)
    # needs-flag: --FLAG        skip the file when nki-sim does not know the flag yet
    # tolerance: RTOL ATOL      comparison tolerances for float outputs (default 1e-5 1e-6)
    # golden: EXPR              expected output i (numpy expression over the inputs and `np`; names of the
                                kernel module, e.g. a pure-Python `expected()`, come from importing the
                                file under CPython with stub nki modules)
    # expect-error: TEXT        the first line of stderr, exactly ({file} = the kernel's path); exit 1
    # expect-stderr: TEXT       a line that must appear in stderr (in order), e.g. print output or notes

A file with golden lines must run (exit 0) and match every golden; a file with expect-error must fail with
exactly that message. Prints "N passed, N failed, N skipped".

    NKISIM=build/nki-sim python3 tests/frontend/run_conformance.py [-v] [FILTER]
"""
import concurrent.futures
import glob
import importlib.abc
import importlib.util
import importlib.machinery
import os
import re
import shlex
import subprocess
import sys
import threading
import traceback
import types
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from functional_rerun import functional_differences  # noqa: E402
from scratch import scratch_dir  # noqa: E402

warnings.filterwarnings("ignore", category=RuntimeWarning)  # NaN casts in bit-pattern goldens

HERE = os.path.dirname(os.path.abspath(__file__))
CONF = os.path.join(HERE, "conformance")
NKISIM = os.environ.get("NKISIM", os.path.join(HERE, "..", "..", "build", "nki-sim"))
TIMEOUT = 60


# ---------------------------------------------------------------- stub nki modules for CPython goldens

class _Stub:
    """Anything: attributes, calls and subscripts give stubs (for module-level uses of nki names)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return _Stub(self._name + "." + attr)

    def __call__(self, *a, **k):
        return _Stub(self._name + "()")

    def __getitem__(self, key):
        return _Stub(self._name + "[]")

    def __repr__(self):
        return self._name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _jit(fn=None, **kw):
    return fn if callable(fn) else (lambda f: f)


class _NKIObject:
    pass


class _StubModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Stub(self.__name__ + "." + attr)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    ROOTS = ("nki", "neuronxcc")

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.ROOTS:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        m.jit = m.trace = _jit
        m.NKIObject = _NKIObject
        m.tile_size = types.SimpleNamespace(pmax=128, psum_bank_fmax=512, gemm_stationary_fmax=128,
                                            gemm_moving_fmax=512, psum_num_banks=8)
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())


_import_lock = threading.Lock()


def import_kernel_module(path, include_dirs):
    """Imports the kernel file under CPython (stub nki) so goldens can call its pure-Python functions."""
    name = "conf_" + re.sub(r"\W", "_", os.path.basename(path)[:-3])
    with _import_lock:
        saved = list(sys.path)
        sys.path[:0] = [os.path.dirname(path)] + include_dirs
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
        finally:
            sys.path[:] = saved


# ---------------------------------------------------------------- one test

class Case:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.feature = ""
        self.inputs, self.goldens, self.stderr_lines = [], [], []
        self.args, self.needs = [], []
        self.rtol, self.atol = 1e-5, 1e-6
        self.error = None
        with open(path, "rb") as f:
            head = f.read().decode("utf-8", "replace").splitlines()
        for line in head:
            m = re.match(r"#\s*([a-z-]+):\s?(.*)$", line)
            if not m:
                if line.strip() and not line.startswith("#"):
                    break
                continue
            key, val = m.group(1), m.group(2)
            if key == "feature":
                self.feature = val
            elif key == "input":
                n, e = val.split("=", 1)
                self.inputs.append((n.strip(), e.strip()))
            elif key == "golden":
                self.goldens.append(val)
            elif key == "args":
                self.args += shlex.split(val.replace("{dir}", CONF))
            elif key == "tolerance":
                self.rtol, self.atol = (float(x) for x in val.split())
            elif key == "needs-flag":
                self.needs.append(val.strip())
            elif key == "expect-error":
                self.error = val
            elif key == "expect-stderr":
                self.stderr_lines.append(val)

    def subst(self, text):
        return text.replace("{file}", self.path).replace("{dir}", CONF)

    def run(self, known_flags):
        """Returns (status, message): status is 'pass', 'fail' or 'skip'."""
        try:
            return self._run(known_flags)
        except Exception:
            return "fail", "driver error:\n" + traceback.format_exc()

    def _run(self, known_flags):
        for flag in self.needs:
            if flag not in known_flags:
                return "skip", f"nki-sim has no {flag} yet"
        if not self.feature:
            return "fail", "no '# feature:' line"
        if self.error is None and not self.goldens:
            return "fail", "neither '# golden:' nor '# expect-error:' lines"
        d = scratch_dir("nkisim-conf-")
        rng = np.random.default_rng(1234)
        env = {"np": np, "rng": rng}
        files = []
        for name, expr in self.inputs:
            arr = eval(expr, env)
            env[name] = arr
            files.append(os.path.join(d, name + ".npy"))
            np.save(files[-1], arr)
        cmd = [NKISIM, self.path, "-q", "-o", os.path.join(d, "out")] + self.args
        if files:
            cmd += ["--inputs"] + files
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return "fail", f"timed out after {TIMEOUT} s"
        stderr = p.stderr.decode("utf-8", "replace")
        lines = stderr.splitlines()
        # Lines that must appear in order.
        pos = 0
        for want in self.stderr_lines:
            want = self.subst(want)
            while pos < len(lines) and lines[pos] != want:
                pos += 1
            if pos == len(lines):
                return "fail", f"stderr lacks line {want!r}\n--- stderr:\n{stderr}"
            pos += 1
        if self.error is not None:
            want = self.subst(self.error)
            if p.returncode != 1:
                return "fail", f"expected exit 1, got {p.returncode}\n--- stderr:\n{stderr}"
            if not lines or lines[0] != want:
                return "fail", f"expected error\n  {want}\ngot\n  {lines[0] if lines else ''}\n--- stderr:\n{stderr}"
            return "pass", ""
        if p.returncode != 0:
            return "fail", f"exit {p.returncode}\n--- stderr:\n{stderr}"
        diffs = functional_differences(NKISIM, cmd[1:], timeout=TIMEOUT)  # timed and functional bit-identical
        if diffs:
            return "fail", "\n  ".join(diffs)
        include_dirs = [self.args[i + 1] for i, a in enumerate(self.args[:-1]) if a == "-I"]
        module = None
        for i, expr in enumerate(self.goldens):
            try:
                want = eval(expr, dict(env))
            except NameError:
                if module is None:
                    module = import_kernel_module(self.path, include_dirs)
                want = eval(expr, {**vars(module), **env})
            out = os.path.join(d, "out", f"output_{i}.npy")
            if not os.path.exists(out):
                return "fail", f"output_{i}.npy was not written"
            got = np.load(out)
            want = np.asarray(want)
            if want.dtype == np.float64:
                want = want.astype(np.float32)
            if got.shape != want.shape:
                return "fail", f"output {i}: shape {got.shape}, expected {want.shape}"
            if got.dtype.kind in "iub" and want.dtype.kind in "iub":
                if not np.array_equal(got, want):
                    k = tuple(np.argwhere(got != want)[0])
                    return "fail", f"output {i} differs at {k}: got {got[k]}, expected {want[k]}"
                continue
            g64, w64 = got.astype(np.float64), want.astype(np.float64)
            if not np.allclose(g64, w64, rtol=self.rtol, atol=self.atol, equal_nan=True):
                bad = np.argwhere(~np.isclose(g64, w64, rtol=self.rtol, atol=self.atol, equal_nan=True))
                k = tuple(bad[0])
                return "fail", f"output {i} differs at {k}: got {got[k]}, expected {want[k]} ({len(bad)} elements)"
        return "pass", ""


def main():
    verbose = "-v" in sys.argv
    filters = [a for a in sys.argv[1:] if not a.startswith("-")]
    paths = sorted(glob.glob(os.path.join(CONF, "[0-9][0-9][0-9]_*.py")))
    if filters:
        paths = [p for p in paths if any(f in os.path.basename(p) for f in filters)]
    help_text = subprocess.run([NKISIM, "--help"], capture_output=True, text=True).stdout
    known_flags = set(re.findall(r"--[a-z][a-z-]*", help_text))
    cases = [Case(p) for p in paths]
    counts = {"pass": 0, "fail": 0, "skip": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda c: c.run(known_flags), cases))
    for c, (status, msg) in zip(cases, results):
        counts[status] += 1
        if status == "fail":
            print(f"FAIL {c.name}: {c.feature}\n  {msg}", file=sys.stderr)
        elif verbose or status == "skip":
            print(f"{status.upper()} {c.name}: {c.feature}{' (' + msg + ')' if msg else ''}")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    sys.exit(1 if counts["fail"] else 0)


if __name__ == "__main__":
    main()
