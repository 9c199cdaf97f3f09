"""SPMD tensor add in the legacy style: each program instance of a 2-D launch grid adds one [128, 512] tile.

    nki-sim examples/legacy_spmd_add.py --grid 2,2 --inputs a.npy b.npy      # a, b [256, 1024]
"""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def legacy_spmd_add(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    M, N = a_input.shape
    assert M == 128 * nl.num_programs(0) and N == 512 * nl.num_programs(1), "grid does not cover the input"
    ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    iy = nl.program_id(axis=1) * 512 + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    nl.store(c_output[ix, iy], value=a_tile + b_tile)
    return c_output
