"""A kernel module of the user's (outside a package) importing a package the host imported: the front end may
import that package (its __path__), and still nothing beside it."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import nkisim

HERE = os.path.dirname(__file__)
HOSTLIB = os.path.join(HERE, "hostlib")


@pytest.fixture(scope="module")
def user_kernel():
    sys.path.insert(0, HOSTLIB)
    try:
        spec = importlib.util.spec_from_file_location("user_kernel", os.path.join(HERE, "standalone",
                                                                                   "user_kernel.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # imports mylib (and, through it, otherlib) on the host
        yield mod
    finally:
        sys.path.remove(HOSTLIB)


def test_kernel_imports_host_imported_package(user_kernel):
    a = np.random.default_rng(0).random((128, 32), dtype=np.float32)
    np.testing.assert_allclose(user_kernel.triple(a), a * 3.0, rtol=1e-6)


def test_packages_the_kernel_does_not_import_stay_host_side(user_kernel):
    a = np.zeros((128, 4), np.float32)
    with pytest.raises(nkisim.KernelError) as e:
        user_kernel.shift(a)
    assert str(e.value).splitlines()[0] == (
        os.path.join(HOSTLIB, "mylib", "ops.py") + ":13:5: error: 'otherlib.SHIFT' is not available at kernel "
        "compile time (module 'otherlib' is host-side code that the NKI front end does not evaluate)")
