"""The legacy neuronxcc.nki API from Python: decorators, grids, simulate_kernel, benchmark, profile."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from kernels import legacy


def rand(*shape, seed=0):
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def test_simulation_mode_call():
    a, b = rand(128, 512), rand(128, 512, seed=1)
    np.testing.assert_array_equal(legacy.legacy_add(a, b), a + b)


def test_simulate_kernel_and_simulate():
    a, b = rand(64, 32), rand(64, 32, seed=1)
    np.testing.assert_array_equal(nki.simulate_kernel(legacy.legacy_add, a, b), a + b)
    np.testing.assert_array_equal(nki.simulate(legacy.legacy_add)(a, b), a + b)
    np.testing.assert_array_equal(nki.baremetal(legacy.legacy_add)(a, b), a + b)


def test_grid_launches():
    a = rand(4, 2, 1, 8)
    np.testing.assert_array_equal(legacy.legacy_grid_copy[4, 2](a), a + 1)
    np.testing.assert_array_equal(nki.simulate_kernel(legacy.legacy_grid_copy[4, 2], a), a + 1)
    np.testing.assert_array_equal(legacy.legacy_grid_copy[nl.spmd_dim(nl.nc(2), 2), 2](a), a + 1)
    np.testing.assert_array_equal(legacy.legacy_grid_copy[2 * nl.nc(2), 2](a), a + 1)


def test_rewrapped_function():
    a = rand(32, 16)
    np.testing.assert_allclose(legacy.rewrapped(a), a * 3, rtol=1e-6)
    again = nki.jit(legacy.rewrapped, mode="simulation")
    np.testing.assert_allclose(again(a), a * 3, rtol=1e-6)


def test_numpy_ufunc_argument():
    a, b = rand(128, 16), rand(128, 16, seed=1)
    np.testing.assert_array_equal(legacy.ufunc_op(a, b, np.maximum), np.maximum(a, b))
    np.testing.assert_array_equal(legacy.ufunc_op(a, b, np.minimum), np.minimum(a, b))


def test_platform_target_picks_the_target():
    import nkisim
    a, b = rand(128, 64), rand(128, 64, seed=1)
    k = nki.jit(legacy.legacy_add, platform_target="trn1")
    assert nkisim.simulate(k, a, b, target=None).stats["target"] == "trn1"
    assert nkisim.simulate(k, a, b, target="trn3").stats["target"] == "trn3"


def test_benchmark_reports_simulated_latency():
    a, b = rand(128, 512), rand(128, 512, seed=1)
    bench = nki.benchmark(warmup=2, iters=5)(legacy.legacy_add)
    np.testing.assert_array_equal(bench(a, b), a + b)
    us = bench.benchmark_result.nc_latency.get_latency_percentile(50)
    import nkisim
    r = nkisim.simulate(legacy.legacy_add, a, b)
    assert us * 1000 == r.device_ns == r.total_ns + 12500 + 4500  # trn1's kernel_launch_ns + kernel_teardown_ns


def test_profile_writes_trace(tmp_path):
    a, b = rand(128, 64), rand(128, 64, seed=1)
    k = nki.profile(working_directory=str(tmp_path), save_trace_name="p.json")(legacy.legacy_add)
    np.testing.assert_array_equal(k(a, b), a + b)
    assert (tmp_path / "p.json").read_text().startswith("{")


def test_module_level_launches_and_zero_grid():
    from kernels import self_launch as s
    np.testing.assert_array_equal(s.GRID_1[0], s.X[0] * 2)
    np.testing.assert_array_equal(s.GRID_0[0], s.X[0] * 2)


def test_negative_grid_is_refused():
    import pytest
    import nkisim
    with pytest.raises(nkisim.KernelError, match=r"legacy_add\[...\]: launch grid sizes must not be negative, got -1"):
        legacy.legacy_add[-1](rand(8, 8), rand(8, 8))
