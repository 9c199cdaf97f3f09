"""The host stand-ins: every module imports; dtypes are numpy's; names mirror nki-sim's front end."""
import importlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

MODULES = ["nki", "nki.language", "nki.isa", "nki.isa.constants", "nki.typing", "nki.compiler", "neuronxcc",
           "neuronxcc.nki", "neuronxcc.nki.language", "neuronxcc.nki.isa", "neuronxcc.nki.isa.constants",
           "neuronxcc.nki.typing", "neuronxcc.nki.compiler", "nkisim"]


@pytest.mark.parametrize("name", MODULES)
def test_imports(name):
    importlib.import_module(name)


def test_dtypes_are_numpy_types():
    import neuronxcc.nki.language as lnl
    import nki.language as nl
    assert nl.float32 is np.float32 and nl.int32 is np.int32 and nl.uint8 is np.uint8 and nl.float16 is np.float16
    assert lnl.float32 is np.float32
    assert np.zeros(2, dtype=nl.float32).dtype == np.float32
    try:
        import ml_dtypes
        assert nl.bfloat16 is ml_dtypes.bfloat16
    except ImportError:
        assert repr(nl.bfloat16) == "nki.language.bfloat16" and nl.bfloat16 == "bfloat16"


def test_identity_markers():
    import nki.isa as nisa
    import nki.language as nl
    assert nl.add == nl.add and nl.add != nl.multiply
    assert repr(nl.add) == "nki.language.add"
    assert nisa.dge_mode.hwdge == nisa.dge_mode.hwdge and repr(nisa.dge_mode.hwdge) == "nki.isa.dge_mode.hwdge"
    assert len({nl.add, nl.add, nl.subtract}) == 2
    # A name the front end lacks is a marker too (host code imports); a kernel given it gets a located error.
    assert repr(nl.no_such_thing) == "nki.language.no_such_thing"
    with pytest.raises(AttributeError):
        nl.__no_such_dunder__


def test_tile_size_and_launch_helpers():
    import nki.language as nl
    from nkisim._standins import grid_dim
    assert nl.tile_size.pmax == 128 and nl.tile_size.psum_fmax == 512 and nl.tile_size.gemm_moving_fmax == 512
    assert repr(nl.tile_size) == "nki.language.tile_size"
    assert grid_dim(nl.nc(2)) == (2, 2)
    assert grid_dim(nl.spmd_dim(nl.nc(2), 3)) == (6, 2)
    assert grid_dim(nl.nc(2) * 2) == (4, 2) and grid_dim(2 * nl.nc(2)) == (4, 2)


def test_nkiobject_subclasses():
    from dataclasses import dataclass

    import nki.language as nl

    class Params(nl.NKIObject):
        idx: int = 0

    p = Params(idx=3, extra="x")
    assert p.idx == 3 and p.extra == "x"

    @dataclass
    class Cfg(nl.NKIObject):
        n: int
        dtype: object = nl.float32

    assert Cfg(4).n == 4 and Cfg(4).dtype is np.float32


def test_decorators_accept_every_spelling():
    import nki
    import neuronxcc.nki as lnki

    def k(a):
        return a

    for deco in (nki.jit, nki.jit(), nki.jit(mode="trace"), nki.jit(platform_target="trn2"),
                 nki.jit(additional_compile_opt="--foo", debug_kernel=True), nki.trace, lnki.jit,
                 lnki.jit(mode="simulation"), lnki.jit(mode="baremetal", platform_target="trn1")):
        w = deco(k)
        assert w.__name__ == "k" and w.__test__ is False and w.nki_function is k
    assert nki.simulate(nki.jit(k)).nki_function is k
    assert lnki.benchmark(k).kind == "benchmark"


def test_pytest_does_not_collect_kernels(tmp_path):
    f = tmp_path / "test_k.py"
    f.write_text(textwrap.dedent("""
        import nki
        @nki.jit
        def test_kernel(a):
            return a
        def test_real():
            pass
    """))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(f)],
                       capture_output=True, text=True)
    assert "1 passed" in r.stdout, r.stdout + r.stderr


def _package_env():
    # the subprocess finds the same package as this test, from any working directory
    import os
    import nkisim
    return dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(nkisim.__file__))))


def _has_ml_dtypes():
    try:
        import ml_dtypes  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.mark.skipif(_has_ml_dtypes(), reason="with ml_dtypes, bf16/fp8 host arrays are real")
def test_low_precision_host_arrays_skip_under_pytest(tmp_path):
    # A test that builds fp8/bf16 numpy arrays on the host skips (with the reason) when ml_dtypes is absent.
    f = tmp_path / "test_fp8_host.py"
    f.write_text(textwrap.dedent("""
        import unittest
        import numpy as np
        import neuronxcc.nki.language as nl
        class T(unittest.TestCase):
            def test_ones(self):
                np.ones((2, 2), dtype=nl.float8_e5m2)
        def test_astype():
            np.random.random_sample((2, 2)).astype(nl.bfloat16)
        def test_plain():
            assert np.zeros(2, dtype=nl.float32).sum() == 0
    """))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(f)],
                       capture_output=True, text=True, cwd=tmp_path, env=_package_env())
    assert "1 passed, 2 skipped" in r.stdout, r.stdout + r.stderr
    assert "numpy arrays of float8_e5m2 need the ml_dtypes package, which is not installed" in r.stdout


@pytest.mark.skipif(_has_ml_dtypes(), reason="with ml_dtypes, bf16/fp8 host arrays are real")
def test_low_precision_host_arrays_error_outside_pytest():
    code = "import numpy as np, nki.language as nl\nnp.ones(3, dtype=nl.bfloat16)\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_package_env())
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == ("nkisim._dtypes.MlDtypesMissing: numpy arrays of bfloat16 need the ml_dtypes package, which "
                    "is not installed; pass float32 data or raw bits marked with nkisim.as_dtype(array, "
                    "'bfloat16') instead"), last
