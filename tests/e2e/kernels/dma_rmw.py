"""Gather-add and scatter-add with a vector offset (dma_compute read-modify-write) for tests/e2e/test_dma_compute.py
and test_dma_compute_dup.py: gathered = rows + table[idx]; scattered = table with scattered[idx] += gathered."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def rmw(table, rows, idx, unique=True, skip=False):
    R, F = table.shape
    P = idx.shape[0]
    oob = nisa.oob_mode.skip if skip else nisa.oob_mode.error
    gathered = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    scattered = nl.ndarray((R, F), dtype=nl.float32, buffer=nl.shared_hbm)
    it = nl.ndarray((P, 1), dtype=idx.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=it, src=idx)
    t = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=rows)
    g = table.ap([[F, P], [1, F]], vector_offset=it, indirect_dim=0)
    nisa.dma_compute(dst=t, srcs=[t, g], reduce_op=nl.add, unique_indices=unique, oob_mode=oob)
    nisa.dma_copy(dst=gathered, src=t)
    nisa.dma_copy(dst=scattered, src=table)
    s = scattered.ap([[F, P], [1, F]], vector_offset=it, indirect_dim=0)
    nisa.dma_compute(dst=s, srcs=[s, t], reduce_op=nl.add, unique_indices=unique, oob_mode=oob)
    return gathered, scattered
