"""Every error path of the Python package: located kernel errors, IndexError, bad arguments, interrupts."""
import os
import signal
import threading

import numpy as np
import pytest

import nkisim
from kernels import current, legacy

KERNELS = os.path.join(os.path.dirname(__file__), "kernels")


def test_kernel_error_is_located():
    a = np.zeros((256, 4), np.float32)
    with pytest.raises(nkisim.KernelError) as e:
        current.bad_shape(a)
    msg = str(e.value)
    path = os.path.join(KERNELS, "current.py")
    assert msg.startswith(path + ":"), msg
    assert "error:" in msg and "^" in msg and "nl.ndarray((256, 4)" in msg


def test_out_of_bounds_indirect_dma_is_index_error():
    a = np.random.default_rng(0).random((128, 512), dtype=np.float32)
    idx = (3 * np.arange(64, dtype=np.int32))[:, None]
    with pytest.raises(IndexError) as e:
        current.gather_rows(a, idx)
    assert str(e.value) == "index 66048 is out of bounds for axis 0 with size 65536"  # row 129 of 128
    ok = (2 * np.arange(64, dtype=np.int32))[:, None]
    np.testing.assert_array_equal(current.gather_rows(a, ok), a[0:128:2])
    neg = ok.copy()
    neg[5] = -1
    with pytest.raises(IndexError, match="^index -512 is out of bounds for axis 0 with size 65536$"):
        current.gather_rows(a, neg)
    import nki.isa as nisa  # an enum member of a front-end namespace, passed from the host
    with pytest.raises(IndexError, match="^index 66048 "):
        current.gather_rows(a, idx, oob=nisa.oob_mode.error)


def test_wrong_arguments():
    a = np.zeros((128, 4), np.float32)
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        current.tile_add(a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        current.tile_add(a, a, c=1)


def test_unsupported_input_dtype():
    with pytest.raises(TypeError, match="dtype float64, which NKI does not have"):
        current.tile_add(np.zeros((128, 4)), np.zeros((128, 4)))


def test_unsupported_host_value():
    with pytest.raises(TypeError, match="cannot pass a builtins.complex"):
        current.binary_op(np.zeros((128, 4), np.float32), np.zeros((128, 4), np.float32), scale=1j)


def test_unknown_frontend_name_as_argument():
    import nki.language as nl
    a = np.zeros((128, 4), np.float32)
    with pytest.raises(nkisim.KernelError) as e:
        current.binary_op(a, a, op=nl.no_such_op)
    path = os.path.join(KERNELS, "current.py")
    assert str(e.value).startswith(f"{path}:25:21: error: kernel 'binary_op': argument 'op': "
                                   "'nki.language.no_such_op' is not available in nki-sim's front end"), str(e.value)


def test_nested_kernel_is_refused():
    import nki

    @nki.jit
    def inner(a):
        return a

    with pytest.raises(TypeError, match="defined inside a function"):
        inner(np.zeros((128, 4), np.float32))


def test_bad_launch_and_target():
    a = np.zeros((128, 4), np.float32)
    with pytest.raises(ValueError, match="kernel\\[1\\] or kernel\\[2\\]"):
        current.tile_add[3](a, a)
    with pytest.raises(ValueError, match="unknown target"):
        nkisim.simulate(current.tile_add, a, a, target="trn9")
    with pytest.raises(nkisim.KernelError, match="supports only LNC=1"):
        nkisim.simulate(current.tile_add, a, a, target="trn1", lnc=2)


def test_ctrl_c_interrupts_a_long_compile():
    a = np.zeros((128, 4), np.float32)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            current.spin(a, 10**9)
    finally:
        timer.cancel()
