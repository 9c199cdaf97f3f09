"""Dynamic control flow kernels for tests/e2e/test_dynamic_loops.py (docs/dynamic-loops.md): registers,
nl.fori_loop / nl.while_loop / nl.dynamic_range / `while reg:`, each body emitted once as a hardware loop."""
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def fori_accumulate(a_input, b_input, count):
    """out = a + 2b + 2b + ... (count[0, 0] times, read at run time); each iteration DMAs b in (Sync),
    doubles it (Scalar) and adds it (Vector)."""
    P, N = a_input.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=acc, src=a_input)
    n = nisa.register_alloc()
    nisa.register_load(n, count)

    def body(i):
        t = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=b_input)
        t2 = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=t2, data=t, op0=nl.multiply, operand0=2.0, engine=nisa.engine.scalar)
        nisa.tensor_tensor(dst=acc, data1=acc, data2=t2, op=nl.add)

    nl.fori_loop(0, n, body)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def while_countdown(a_input, start):
    """out = a + a + ... (start[0, 0] times): the loop condition is a counter kept in SBUF, decremented by
    the Vector engine and re-loaded into the register every iteration (condition checked first)."""
    P, N = a_input.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    acc = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    cnt = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=a_input)
    nisa.memset(dst=acc, value=0.0)
    nisa.dma_copy(dst=cnt, src=start)
    c = nisa.register_alloc()
    nisa.register_load(c, cnt)

    def body(r):
        nisa.tensor_tensor(dst=acc, data1=acc, data2=a, op=nl.add)
        nisa.tensor_scalar(dst=cnt, data=cnt, op0=nl.subtract, operand0=1)
        nisa.register_load(r, cnt)
        return r

    nl.while_loop(c, body)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def nested_legacy(a_input, count):
    """The deprecated statement forms: `for i in nl.dynamic_range(n)` around `while reg:`; the inner loop
    runs 3 times per outer iteration (its counter lives in SBUF), so out = a * (3 * count) by repeated adds."""
    P, N = a_input.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    acc = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    cnt = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=a_input)
    nisa.memset(dst=acc, value=0.0)
    n = nisa.register_alloc()
    nisa.register_load(n, count)
    r = nisa.register_alloc()
    for i in nl.dynamic_range(n):
        nisa.memset(dst=cnt, value=3, engine=nisa.engine.gpsimd)
        nisa.register_load(r, cnt)
        while r:
            nisa.tensor_tensor(dst=acc, data1=acc, data2=a, op=nl.add)
            nisa.tensor_scalar(dst=cnt, data=cnt, op0=nl.subtract, operand0=1, engine=nisa.engine.gpsimd)
            nisa.register_load(r, cnt)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def register_roundtrip(x):
    """register_alloc with a value, register_move from a register, register_load / register_store."""
    out = nl.ndarray((1, 4), dtype=nl.int32, buffer=nl.shared_hbm)
    r0 = nisa.register_alloc(7)
    r1 = nisa.register_alloc()
    nisa.register_move(r1, r0)
    r2 = nisa.register_alloc(-5)
    r3 = nisa.register_alloc()
    nisa.register_load(r3, x)
    nisa.register_store(out[0:1, 0:1], r0)
    nisa.register_store(out[0:1, 1:2], r1)
    nisa.register_store(out[0:1, 2:3], r2)
    nisa.register_store(out[0:1, 3:4], r3)
    return out


@nki.jit
def tiled_add(a_input, b_input, rows):
    """out[r] = a[r] + b[r] for the first rows[0, 0] rows (a multiple of 128, read at run time), one
    [128, N] tile per iteration, addressed with .ap(scalar_offset=i) (i = 0, 128, 256, ...)."""
    M, N = a_input.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    n = nisa.register_alloc()
    nisa.register_load(n, rows)
    for i in nl.dynamic_range(0, n, 128):
        a = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        b = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=a_input.ap([[N, 128], [1, N]], scalar_offset=i))
        nisa.dma_copy(dst=b, src=b_input.ap([[N, 128], [1, N]], scalar_offset=i))
        c = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=c, data1=a, data2=b, op=nl.add)
        nisa.dma_copy(dst=out.ap([[N, 128], [1, N]], scalar_offset=i), src=c)
    return out
