"""Install test (docs/install.md): `cmake --install` into a temporary prefix, then use only what was installed:
a C++ consumer built with find_package(nkisim) runs a kernel through the public API; the installed nki-sim,
nki-as and nki-objdump run it from the command line; the installed Python package runs it in process."""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

BUILD = os.environ["NKISIM_BUILD_DIR"]
CMAKE = os.environ.get("NKISIM_CMAKE", "cmake")
PYDIR = os.environ["NKISIM_PYTHON_DIR"]  # relative to the prefix
HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "consumer", "scale_add.py")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} -> exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def main():
    prefix = tempfile.mkdtemp(prefix="nkisim-install-")
    try:
        check(prefix)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
    print("install test passed")


def check(prefix):
    run([CMAKE, "--install", BUILD, "--prefix", prefix])
    pydir = os.path.join(prefix, PYDIR)
    expected = ["bin/nki-sim", "bin/nki-as", "bin/nki-objdump", "include/nkisim/api/run.h",
                "include/nkisim/frontend/compile.h", "include/nkisim/sim/simulate.h", "include/nkisim/isa/instructions.def",
                "lib/libnkisim_api.a", "lib/libnkisim_isa.a", "lib/cmake/nkisim/nkisimConfig.cmake",
                "lib/cmake/nkisim/nkisimConfigVersion.cmake", "lib/cmake/nkisim/nkisimTargets.cmake",
                f"{PYDIR}/nkisim/__init__.py", f"{PYDIR}/nki/__init__.py", f"{PYDIR}/neuronxcc/nki/__init__.py"]
    missing = [p for p in expected if not os.path.exists(os.path.join(prefix, p))]
    assert not missing, f"not installed: {missing}"
    assert any(f.startswith("_nkisim") and f.endswith(".so") for f in os.listdir(os.path.join(pydir, "nkisim")))

    a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
    want = a * 2 + 1

    # C++: a project of its own, configured against the prefix only.
    cfg = [CMAKE, "-S", os.path.join(HERE, "consumer"), "-B", os.path.join(prefix, "consumer-build"), "-G", "Ninja",
           f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"]
    if os.environ.get("NKISIM_CXX"):
        cfg.append(f"-DCMAKE_CXX_COMPILER={os.environ['NKISIM_CXX']}")
    if shutil.which("ccache"):
        cfg.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    run(cfg)
    run([CMAKE, "--build", os.path.join(prefix, "consumer-build")])
    out = run([os.path.join(prefix, "consumer-build", "consumer"), KERNEL])
    assert out.startswith("out[5]=11 out[200]=401 total_ns="), out
    assert float(out.split("total_ns=")[1]) > 0, out

    # The installed command-line tools: run, emit asm, assemble, disassemble, run the binary program.
    work = os.path.join(prefix, "work")
    os.makedirs(work)
    np.save(os.path.join(work, "a.npy"), a)
    nki_sim = os.path.join(prefix, "bin", "nki-sim")
    asm, binary = os.path.join(work, "k.s"), os.path.join(work, "k.nkibin")
    run([nki_sim, KERNEL, "--inputs", os.path.join(work, "a.npy"), "-o", os.path.join(work, "out"), "-q",
         "--emit", "asm", asm])
    assert np.array_equal(np.load(os.path.join(work, "out", "output_0.npy")), want)
    run([os.path.join(prefix, "bin", "nki-as"), asm, "-o", binary])
    assert "tensor_scalar" in run([os.path.join(prefix, "bin", "nki-objdump"), binary])
    run([nki_sim, "--program", binary, "--inputs", os.path.join(work, "a.npy"), "-o", os.path.join(work, "out2"), "-q"])
    assert np.array_equal(np.load(os.path.join(work, "out2", "output_0.npy")), want)

    # The installed Python package, and nothing of the build tree, on the path.
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(KERNEL)!r})\n"
            "import numpy as np, nkisim, nki, neuronxcc\n"
            "from scale_add import scale_add\n"
            f"for m in (nkisim, nki, neuronxcc): assert m.__file__.startswith({pydir!r}), m.__file__\n"
            "a = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)\n"
            "assert np.array_equal(scale_add(a), a * 2 + 1)\n"
            "r = nkisim.simulate(scale_add, a)\n"
            "assert np.array_equal(r.outputs[0], a * 2 + 1) and r.total_ns > 0\n"
            "print('python ok')\n")
    env = dict(os.environ, PYTHONPATH=pydir)
    assert run([sys.executable, "-c", code], env=env, cwd=work).strip() == "python ok"


if __name__ == "__main__":
    main()
