"""nkisim.simulate / nkisim.compile and nki.jit calls: argument binding, host values, outputs, write-back."""
import numpy as np
import pytest

import nki.language as nl
import nkisim
from kernels import current


def rand(*shape, seed=0):
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def test_jit_call_returns_numpy():
    a, b = rand(128, 512), rand(128, 512, seed=1)
    out = current.tile_add(a, b)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (128, 512)
    np.testing.assert_array_equal(out, a + b)


def test_simulate_result():
    a, b = rand(128, 512), rand(128, 512, seed=1)
    r = nkisim.simulate(current.tile_add, a, b)
    np.testing.assert_array_equal(r.outputs[0], a + b)
    assert len(r.outputs) == 1
    assert r.total_ns > 0 and r.stats["total_ns"] == pytest.approx(r.total_ns)
    assert r.stats["target"] == "trn2"
    assert r.engine_busy_ns["vector"] > 0 or r.engine_busy_ns["gpsimd"] > 0
    assert "tile_add" in r.profile or "current.py" in r.profile
    assert r.trace_path is None


def test_simulate_functional_has_no_time():
    a, b = rand(128, 64), rand(128, 64, seed=1)
    r = nkisim.simulate(current.tile_add, a, b, timing=False)
    assert r.total_ns is None
    np.testing.assert_array_equal(r.outputs[0], a + b)


def test_keyword_arguments_and_defaults():
    a, b = rand(128, 64), rand(128, 64, seed=1)
    np.testing.assert_allclose(current.binary_op(a, b), a + b, rtol=1e-6)
    np.testing.assert_allclose(current.binary_op(b=b, a=a, op=nl.multiply, scale=0.5), a * b * 0.5, rtol=1e-6)
    np.testing.assert_allclose(current.binary_op(a, b, nl.subtract, np.float32(2.0)), (a - b) * 2, rtol=1e-6)


def test_dtype_argument_and_bf16_output():
    a, b = rand(128, 64), rand(128, 64, seed=1)
    out = current.binary_op(a, b, out_dtype=nl.bfloat16)
    # bf16 comes back as float32 without ml_dtypes (docs/python.md); values are bf16-rounded.
    bits = ((a + b).view(np.uint32) + 0x7FFF + (((a + b).view(np.uint32) >> 16) & 1)) & 0xFFFF0000
    np.testing.assert_array_equal(np.asarray(out, dtype=np.float32), bits.view(np.float32))


def test_two_outputs_in_return_order():
    a = rand(128, 32)
    p, q = current.two_outputs(a)
    np.testing.assert_array_equal(p, a + 1)
    np.testing.assert_array_equal(q, a * 2)
    r = nkisim.simulate(current.two_outputs, a)
    assert len(r.outputs) == 2


def test_outputs_are_independent_writable_arrays():
    # Outputs are numpy arrays over the run's simulated HBM (no copy): each keeps its memory alive and may be
    # written, without touching the other output, the inputs or a later call's outputs.
    a = rand(128, 32)
    p, q = current.two_outputs(a)
    p2, _ = current.two_outputs(a)
    assert p.flags.writeable and q.flags.writeable and not np.shares_memory(p, q)
    p += 5
    np.testing.assert_array_equal(q, a * 2)
    np.testing.assert_array_equal(p2, a + 1)
    np.testing.assert_array_equal(p, (a + 1) + 5)
    del q, p2
    np.testing.assert_array_equal(p, (a + 1) + 5)


def test_inputs_written_back():
    a = rand(128, 16)
    orig = a.copy()
    assert current.scale_in_place(a, 3.0) is None
    np.testing.assert_allclose(a, orig * 3, rtol=1e-6)


def test_dataclass_enum_and_optional_tensor():
    a, w = rand(128, 32), rand(128, 32, seed=2)
    cfg = current.Config(mode=current.Mode.SUB, bias=0.25, weight=w)
    np.testing.assert_allclose(current.configured(a, cfg), a - w + 0.25, rtol=1e-6)
    cfg = current.Config(current.Mode.ADD, bias=-1.0, weight=w)
    np.testing.assert_allclose(current.configured(a, cfg), a + w - 1, rtol=1e-6)
    np.testing.assert_allclose(current.configured(a, current.Config(current.Mode.ADD)), a, rtol=1e-6)


def test_tuple_of_tensors_and_dict():
    a, b = rand(128, 32), rand(128, 32, seed=3)
    np.testing.assert_allclose(current.sum_tensors((a, b), {"scale": 2.0}), (a + b) * 2, rtol=1e-6)


def test_same_array_twice_is_one_input():
    a = rand(128, 32)
    np.testing.assert_array_equal(current.tile_add(a, a), a + a)


def test_non_contiguous_input():
    a = rand(64, 128).T  # a transposed view
    b = rand(128, 64, seed=1)
    np.testing.assert_array_equal(current.tile_add(a, b), a + b)


def test_lnc2_launch():
    a = rand(128, 64)
    np.testing.assert_array_equal(current.lnc_rows(a), a + 1)      # one core: n = 1
    np.testing.assert_array_equal(current.lnc_rows[2](a), a + 2)   # kernel[2]: both cores, n = 2
    np.testing.assert_array_equal(current.lnc_rows[nl.nc(2)](a), a + 2)
    r = nkisim.simulate(current.lnc_rows, a, lnc=2)
    np.testing.assert_array_equal(r.outputs[0], a + 2)
    assert {k.split(".")[0] for k in r.engine_busy_ns} == {"core0", "core1"}


def test_target_trn1_and_trace(tmp_path):
    a, b = rand(128, 64), rand(128, 64, seed=1)
    trace = tmp_path / "t.json"
    r = nkisim.simulate(current.tile_add, a, b, target="trn1", trace=trace)
    assert r.stats["target"] == "trn1"
    assert r.trace_path == str(trace) and trace.read_text().startswith("{")


def test_compile_program(tmp_path):
    a, b = rand(128, 64), rand(128, 64, seed=1)
    prog = nkisim.compile(current.tile_add, a, b)
    assert "tensor_tensor" in prog.asm and prog.lnc == 1
    prog.save(tmp_path / "k.nkibin")
    assert (tmp_path / "k.nkibin").stat().st_size > 0


def test_as_dtype_bf16_input():
    a = np.array([[1.0, 1.00390625, 3.0, -2.5]] * 128, dtype=np.float32)
    out = current.to_bf16(nkisim.as_dtype(a, "bfloat16"))
    np.testing.assert_array_equal(np.asarray(out, dtype=np.float32), np.array([[1.0, 1.0, 3.0, -2.5]] * 128))


def test_compile_cache_reuses_programs():
    from nkisim import _kernel
    a, b = rand(128, 64), rand(128, 64, seed=1)
    current.tile_add(a, b)
    n = len(_kernel._cache)
    current.tile_add(b, a)
    assert len(_kernel._cache) == n
    current.tile_add(rand(128, 32), rand(128, 32))
    assert len(_kernel._cache) == n + 1


def test_kernel_named_test_is_not_collected():
    assert current.test_named_kernel.__test__ is False


def test_bool_input():
    p = np.random.default_rng(0).random((128, 8)) > 0.5
    np.testing.assert_array_equal(current.bool_to_float(p), p.astype(np.float32))


def test_static_cast_on_the_host():
    import neuronxcc.nki.language as lnl
    x = np.array([[1.0, 1.00390625, 1.01171875, -3.3]], dtype=np.float64)
    f = lnl.static_cast(x, np.float32)
    assert f.dtype == np.float32 and np.array_equal(f, x.astype(np.float32))
    b = lnl.static_cast(x, lnl.bfloat16)
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        # float32 data rounded to bf16 (RNE: the tie 1.00390625 goes to 1.0, 1.01171875 to 1.015625), marked
        assert b.dtype == np.float32 and b.nki_dtype == "bfloat16"
        assert b.tolist() == [[1.0, 1.0, 1.015625, -3.296875]]
        assert np.isnan(lnl.static_cast(np.array([np.nan]), lnl.bfloat16)[0])
        assert lnl.static_cast(np.array([-np.inf]), lnl.bfloat16)[0] == -np.inf
    # as a kernel input it is the bf16 value the host sees
    out = current.to_bf16(lnl.static_cast(np.tile(x, (128, 1)), lnl.bfloat16))
    np.testing.assert_array_equal(np.asarray(out, dtype=np.float32),
                                  np.tile([[1.0, 1.0, 1.015625, -3.296875]], (128, 1)))
    with pytest.raises(TypeError, match="static_cast: 'nope' is not an NKI dtype"):
        lnl.static_cast(x, "nope")


def test_host_made_npy_constant(tmp_path):
    # A host-made .npy file named in the arguments: the kernel's nl.shared_constant(name) reads the host's copy
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    bias = (np.arange(128 * 4, dtype=np.float32).reshape(128, 4) % 7) - 3.5
    f = tmp_path / "bias.npy"
    np.save(f, bias)
    out = current.add_host_constant(a, current.ConstFiles(files={"bias": str(f)}))
    np.testing.assert_array_equal(out, a + bias)
    np.save(f, bias * 2)  # a changed file is read again (not a stale compile)
    out = current.add_host_constant(a, current.ConstFiles(files={"bias": str(f)}))
    np.testing.assert_array_equal(out, a + bias * 2)
    missing = current.ConstFiles(files={"bias": str(tmp_path / "missing.npy")})
    with pytest.raises(nkisim.KernelError, match="missing.npy' is not a file np.save wrote during this compile"):
        current.add_host_constant(a, missing)


def _thp_eligible(address):
    """THPeligible of the mapping holding `address` (/proc/self/smaps), None when the kernel does not say."""
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(" ", 1)[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= address < hi
            elif inside and line.startswith("THPeligible:"):
                return int(line.split()[1])
    return None


def test_simulated_memories_ask_for_huge_pages(monkeypatch):
    # The package runs with sim::Options::huge_pages = Always: its memories are reused call after call, so
    # HBM rows far apart share TLB entries at no repeated cost. The output array lives in the run's HBM.
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            thp = f.read()
    except OSError:
        pytest.skip("no transparent huge pages on this machine")
    if "[madvise]" not in thp:
        pytest.skip("the machine decides on huge pages itself: " + thp.strip())
    monkeypatch.delenv("NKISIM_HUGEPAGES", raising=False)
    a, b = rand(128, 8192), rand(128, 8192, seed=1)
    out = current.binary_op(a, b, scale=0.5)
    np.testing.assert_array_equal(out, (a + b) * np.float32(0.5))
    eligible = _thp_eligible(out.ctypes.data)
    if eligible is None:
        pytest.skip("this kernel does not report THPeligible")
    assert eligible == 1
