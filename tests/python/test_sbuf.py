"""SBUF-resident helpers called from Python: nkisim.sbuf inputs, nkisim.sbuf_output tiles, their errors."""
import os

import numpy as np
import pytest

import nkisim
from kernels import legacy
from kernels import sbuf_helpers as k

HELPERS = os.path.join(os.path.dirname(__file__), "kernels", "sbuf_helpers.py")


def rand(*shape, seed=0):
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def test_plain_function_sbuf_in_sbuf_out():
    x = rand(128, 64)
    r = nkisim.simulate(k.affine, nkisim.sbuf(x), nkisim.sbuf_output((128, 64), "float32"), 3.0)
    assert len(r.outputs) == 1 and r.outputs[0].dtype == np.float32 and r.outputs[0].shape == (128, 64)
    np.testing.assert_allclose(r.outputs[0], x * 3.0 + 1.0, rtol=1e-6)


def test_sbuf_output_dtype_and_keywords():
    x = rand(128, 16)
    r = nkisim.simulate(k.affine, x=nkisim.sbuf(x), out=nkisim.sbuf_output((128, 16), np.float16), scale=2.0,
                        shift=-0.5)
    assert r.outputs[0].dtype == np.float16
    np.testing.assert_array_equal(r.outputs[0], (x * 2.0 - 0.5).astype(np.float16))


def test_sbuf_outputs_follow_own_return_values_in_argument_order():
    x, y = rand(128, 64), rand(128, 64, seed=1)
    s = x + y
    args = (nkisim.sbuf(x), nkisim.sbuf(y), nkisim.sbuf_output((128, 64), "float32"),
            nkisim.sbuf_output((128, 1), "float32"))
    r = nkisim.simulate(k.sum_and_stats, *args, total_hbm=True)
    assert len(r.outputs) == 3
    np.testing.assert_allclose(r.outputs[0], 2 * s, rtol=1e-6)  # the helper's own return value
    np.testing.assert_allclose(r.outputs[1], s, rtol=1e-6)      # out
    np.testing.assert_allclose(r.outputs[2], s.max(axis=1, keepdims=True), rtol=1e-6)  # row_max
    r = nkisim.simulate(k.sum_and_stats, *args)  # returns None: only the SBUF outputs
    assert len(r.outputs) == 2
    np.testing.assert_allclose(r.outputs[1], s.max(axis=1, keepdims=True), rtol=1e-6)


def test_returned_sbuf_tile_comes_back_in_its_place():
    x = rand(128, 8)
    r = nkisim.simulate(k.affine_returning, nkisim.sbuf(x), nkisim.sbuf_output((128, 8), "float32"),
                        nkisim.sbuf_output((128, 8), "float32"))
    assert len(r.outputs) == 2  # (second, first): the returned tile in its place, the other one after
    np.testing.assert_allclose(r.outputs[0], x * 2.0, rtol=1e-6)
    np.testing.assert_allclose(r.outputs[1], x + 1.0, rtol=1e-6)


def test_lnc2_split_axis():
    x = rand(128, 64)
    r = nkisim.simulate(k.halves, nkisim.sbuf(x), nkisim.sbuf_output((128, 64), "float32", split=1), lnc=2)
    np.testing.assert_array_equal(r.outputs[0], -x)  # core c copied out its half of the columns


def test_jit_kernel_and_call_syntax():
    x = rand(128, 32)
    out = k.jit_affine(nkisim.sbuf(x), nkisim.sbuf_output((128, 32), "float32"), 2.0)
    np.testing.assert_allclose(out, x * 2.0, rtol=1e-6)


def test_partition_dim_over_128_is_located_at_the_parameter():
    with pytest.raises(nkisim.KernelError) as e:
        nkisim.simulate(k.affine, nkisim.sbuf(np.zeros((256, 4), np.float32)),
                        nkisim.sbuf_output((128, 4), "float32"), 1.0)
    first = str(e.value).splitlines()[0]
    assert first == (f"{HELPERS}:7:12: error: kernel 'affine': argument 'x': placing it in SBUF: Size of partition "
                     "dimension 256 exceeds architecture limitation of 128")


def test_split_that_does_not_divide_is_located():
    with pytest.raises(nkisim.KernelError) as e:
        nkisim.simulate(k.affine, nkisim.sbuf(rand(128, 63)), nkisim.sbuf_output((128, 63), "float32", split=1),
                        1.0, lnc=2)
    assert str(e.value).splitlines()[0] == (f"{HELPERS}:7:15: error: kernel 'affine': argument 'out': split axis 1 "
                                            "(size 63) does not divide among 2 cores")


def test_wrong_output_shape_is_located_in_the_helper():
    with pytest.raises(nkisim.KernelError) as e:
        nkisim.simulate(k.affine, nkisim.sbuf(rand(128, 64)), nkisim.sbuf_output((128, 32), "float32"), 3.0)
    assert str(e.value).splitlines()[0] == (f"{HELPERS}:9:5: error: tensor_scalar: operand 'data' has 128 partitions "
                                            "x 64 elements but 'dst' has 128 partitions x 32 elements")


def test_host_side_argument_errors():
    with pytest.raises(TypeError, match=r"^nkisim.sbuf_output: unknown NKI dtype 'float13'$"):
        nkisim.sbuf_output((128, 4), "float13")
    with pytest.raises(ValueError, match=r"^nkisim.sbuf_output: split axis 2 is not an axis of shape \(128, 4\)$"):
        nkisim.sbuf_output((128, 4), "float32", split=2)
    with pytest.raises(ValueError, match=r"^nkisim.sbuf_output: invalid shape \(128, 0\)$"):
        nkisim.sbuf_output((128, 0), "float32")
    with pytest.raises(TypeError, match=r"^nkisim.sbuf expects a numpy array, got list$"):
        nkisim.sbuf([1.0, 2.0])


def test_legacy_kernel_refuses_sbuf_arguments():
    with pytest.raises(TypeError, match=r"nkisim.sbuf / nkisim.sbuf_output arguments are for nki.jit"):
        legacy.legacy_add(nkisim.sbuf(rand(128, 4)), rand(128, 4))
