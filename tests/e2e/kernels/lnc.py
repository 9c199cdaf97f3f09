"""LNC=2 kernels for tests/e2e/test_lnc.py (docs/lnc.md): run with nki-sim --lnc 2; each physical core runs
the kernel with its own nl.program_id(0), sharing HBM."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def lnc_add(a_input, b_input):
    """out = a + b; core c adds rows [c * M / n, (c + 1) * M / n) (n = nl.num_programs())."""
    M, N = a_input.shape
    out = nl.ndarray((M, N), dtype=a_input.dtype, buffer=nl.shared_hbm)
    n = nl.num_programs()
    pid = nl.program_id(0)
    rows = M // n
    for t in nl.affine_range(rows // 128):
        r0 = pid * rows + t * 128
        a = nl.ndarray((128, N), dtype=a_input.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, N), dtype=b_input.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=a_input[r0:r0 + 128, :])
        nisa.dma_copy(dst=b, src=b_input[r0:r0 + 128, :])
        c = nl.ndarray((128, N), dtype=a_input.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=c, data1=a, data2=b, op=nl.add)
        nisa.dma_copy(dst=out[r0:r0 + 128, :], src=c)
    return out


@nki.jit
def lnc_barrier(a_input, use_barrier=True):
    """Core 0 writes 2a into a shared HBM scratch; core 1 reads it after the barrier: out[0:P] = a (core 0),
    out[P:2P] = 2a + 1 (core 1). Without the barrier core 1 reads the scratch before core 0 wrote it."""
    P, N = a_input.shape
    out = nl.ndarray((2 * P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    scratch = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    u = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    pid = nl.program_id(0)
    if pid == 0:
        nisa.dma_copy(dst=t, src=a_input)
        nisa.tensor_scalar(dst=u, data=t, op0=nl.multiply, operand0=2.0)
        nisa.dma_copy(dst=scratch, src=u)
        nisa.dma_copy(dst=out[0:P, :], src=t)
    if use_barrier:
        nisa.core_barrier(scratch, (0, 1))
    if pid == 1:
        nisa.dma_copy(dst=t, src=scratch)
        nisa.tensor_scalar(dst=u, data=t, op0=nl.add, operand0=1.0)
        nisa.dma_copy(dst=out[P:2 * P, :], src=u)
    return out


@nki.jit
def lnc_ids(x):
    """out[c, 0] = c + 10 * nl.num_programs(), written by core c (register_store of a constant)."""
    out = nl.ndarray((2, 1), dtype=nl.int32, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    r = nisa.register_alloc(pid + 10 * nl.num_programs())
    nisa.register_store(out[pid:pid + 1, 0:1], r)
    return out


@nki.jit
def lnc_sendrecv(a_input, pipe_b=1):
    """Core c loads a_c = a_input[c * P:(c + 1) * P] and scales it by (c + 2); the cores exchange the scaled
    tiles with sendrecv (pipe 0), then overwrite the sent tile (the write waits for the send), and add what
    they received to a_c: out[c * P:(c + 1) * P] = a_c + (3 - c) * a_(1-c). A second exchange (pipe `pipe_b` on core 1) of the sums into
    out[2P:4P] (core c stores the peer's sum at row block 2 + c)."""
    M, N = a_input.shape
    P = M // 2
    out = nl.ndarray((4 * P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    u = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    r = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    s = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    q = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a_input[pid * P:(pid + 1) * P, :])
    nisa.tensor_scalar(dst=u, data=t, op0=nl.multiply, operand0=float(pid + 2))
    nisa.sendrecv(src=u, dst=r, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    nisa.memset(dst=u, value=0.0)
    nisa.tensor_tensor(dst=s, data1=t, data2=r, op=nl.add)
    nisa.dma_copy(dst=out[pid * P:(pid + 1) * P, :], src=s)
    nisa.sendrecv(src=s, dst=q, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=1 if pid == 0 else pipe_b)
    nisa.dma_copy(dst=out[(2 + pid) * P:(3 + pid) * P, :], src=q)
    return out


@nki.jit
def lnc_sendrecv_bad(a_input, case=0):
    """sendrecv errors (tests/e2e/test_lnc.py)."""
    P, N = a_input.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    h = nl.ndarray((P, N), dtype=nl.bfloat16, buffer=nl.sbuf)
    w = nl.ndarray((P, 2 * N), dtype=nl.float32, buffer=nl.sbuf)
    if case == 0:
        nisa.sendrecv(src=t, dst=h, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    if case == 1:
        nisa.sendrecv(src=t, dst=w, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    if case == 2:
        nisa.sendrecv(src=a_input, dst=t, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    if case == 3:
        nisa.sendrecv(src=t, dst=t, send_to_rank=pid, recv_from_rank=1 - pid, pipe_id=0)
    if case == 4:
        nisa.sendrecv(src=t, dst=t, send_to_rank=1 - pid, recv_from_rank=2, pipe_id=0)
    if case == 5:
        g = nl.ndarray((P, 8 * N), dtype=nl.float16, buffer=nl.sbuf)
        nisa.sendrecv(src=g, dst=g, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0,
                      dma_engine=nisa.dma_engine.gpsimd_dma)
    if case == 6:
        nisa.sendrecv(src=t, dst=t, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=-1)
    if case == 7 and pid == 0:
        nisa.sendrecv(src=t, dst=t, send_to_rank=1, recv_from_rank=1, pipe_id=5)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def lnc_sendrecv_loop(a_input):
    """A sendrecv inside a dynamic loop (not supported)."""
    P, N = a_input.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a_input)
    for i in nl.dynamic_range(2):
        nisa.sendrecv(src=t, dst=t, send_to_rank=1 - pid, recv_from_rank=1 - pid, pipe_id=0)
    nisa.dma_copy(dst=out, src=t)
    return out
