"""End to end (trn3): nisa.quantize_mx and nisa.nc_matmul_mx against numpy goldens written from the spec.

.npy representation of the MX dtypes: packed x4 data as their raw words (uint32 for float8_*_x4, uint16 for
float4_e2m1fn_x4), passed as FILE:float8_e4m3fn_x4 etc. and written back raw; scales as uint8 (e8m0 bits).
"""
import os

import numpy as np

from common import check, check_equal, finish, run, save, tmpdir, to_bf16

d = tmpdir()
KERNEL = os.path.join(d, "mx.py")
with open(KERNEL, "w") as f:
    f.write('''
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def mx(x, st, mv, ss, ms):
    P, F = x.shape
    q_out = nl.ndarray((P, F // 4), dtype=nl.float8_e4m3fn_x4, buffer=nl.shared_hbm)
    s_out = nl.ndarray((P, F // 4), dtype=nl.uint8, buffer=nl.shared_hbm)
    xt = nl.ndarray((P, F), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    qt = nl.ndarray((P, F // 4), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
    sc = nl.ndarray((P, F // 4), dtype=nl.uint8, buffer=nl.sbuf)
    nisa.memset(dst=sc, value=0)
    nisa.quantize_mx(dst=qt, src=xt, dst_scale=sc)
    nisa.dma_copy(dst=q_out, src=qt)
    nisa.dma_copy(dst=s_out, src=sc)

    K, M = st.shape
    N = mv.shape[1]
    stt = nl.ndarray((K, M), dtype=st.dtype, buffer=nl.sbuf)
    mvt = nl.ndarray((K, N), dtype=mv.dtype, buffer=nl.sbuf)
    sst = nl.ndarray((K, M), dtype=nl.uint8, buffer=nl.sbuf)
    mst = nl.ndarray((K, N), dtype=nl.float8_e8m0fnu, buffer=nl.sbuf)
    nisa.dma_copy(dst=stt, src=st)
    nisa.dma_copy(dst=mvt, src=mv)
    nisa.dma_copy(dst=sst, src=ss)
    nisa.dma_copy(dst=mst, src=ms)
    ps = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul_mx(ps, stt, mvt, sst, mst)
    nisa.nc_matmul_mx(ps, stt, mvt, sst, mst)
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=ps)
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=res)
    return q_out, s_out, out
''')


def e4m3fn_table():
    """All 256 float8_e4m3fn values from the OCP definition (bias 7, no inf, S.1111.111 = NaN)."""
    v = np.zeros(256)
    for b in range(256):
        s, e, m = b >> 7, (b >> 3) & 15, b & 7
        if e == 15 and m == 7:
            v[b] = np.nan
            continue
        mag = (m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        v[b] = -mag if s else mag
    return v


def fp4_values(nib):
    e, m = (nib >> 1) & 3, nib & 1
    mag = np.where(e == 0, m * 0.5, (1 + m * 0.5) * 2.0 ** (e - 1.0))
    return np.where(nib & 8, -mag, mag)


E4M3FN = e4m3fn_table()


def encode_e4m3fn(x):
    """Nearest value of the same sign, ties to the even code; NaN -> 0x7F (positive canonical NaN)."""
    out = np.zeros(x.shape, np.uint32)
    codes = np.arange(256)
    valid = ~np.isnan(E4M3FN)
    for i, v in np.ndenumerate(x):
        if np.isnan(v):
            out[i] = 0x7F
            continue
        mask = valid & (np.signbit(E4M3FN) == np.signbit(v))
        dist = np.where(mask, np.abs(np.where(valid, E4M3FN, 0) - v), np.inf)
        ties = codes[dist == dist.min()]
        even = ties[ties % 2 == 0]
        out[i] = even[0] if len(even) else ties[0]
    return out


def scale_row(p):
    i = p // 8
    return (i // 4) * 32 + i % 4


rng = np.random.default_rng(3)
for P in (32, 128):
    F = 16
    x = to_bf16(rng.normal(size=(P, F)).astype(np.float32) * np.float32(3))
    x[:8, :4] = 0.0                 # an all-zero group -> scale 2^-127
    x[8:16, 4:8] *= np.float32(1e3)
    x[16, 9] = np.nan               # a NaN group
    x = to_bf16(x)                  # the values the kernel sees (bfloat16 input)
    K, M, N = P, 8, 24
    st = np.zeros((K, M), np.uint32)
    vals_s = rng.integers(-8, 9, size=(K, M, 4))
    for q in range(4):
        st |= encode_e4m3fn(vals_s[:, :, q].astype(np.float64)) << np.uint32(8 * q)
    mv_nib = rng.integers(0, 16, size=(K, N, 4)).astype(np.uint16)
    mv = np.zeros((K, N), np.uint16)
    for q in range(4):
        mv |= (mv_nib[:, :, q] << (4 * q)).astype(np.uint16)
    ss = np.full((K, M), 0x55, np.uint8)
    ms = np.full((K, N), 0x55, np.uint8)
    for g in range(K // 8):
        ss[scale_row(8 * g)] = rng.integers(124, 131, size=M)
        ms[scale_row(8 * g)] = rng.integers(124, 131, size=N)

    out = os.path.join(d, f"o{P}")
    rc, so, se = run(KERNEL, "--target", "trn3", "--inputs", save(d, f"x{P}.npy", x) + ":bfloat16",
                     save(d, f"st{P}.npy", st) + ":float8_e4m3fn_x4", save(d, f"mv{P}.npy", mv) + ":float4_e2m1fn_x4",
                     save(d, f"ss{P}.npy", ss), save(d, f"ms{P}.npy", ms) + ":float8_e8m0fnu", "-o", out, "-q")
    check_equal(rc, 0, f"exit code for P={P} (stderr: {se})")
    q_out = np.load(os.path.join(out, "output_0.npy"))
    s_out = np.load(os.path.join(out, "output_1.npy"))
    mm = np.load(os.path.join(out, "output_2.npy"))
    check_equal(q_out.dtype, np.dtype(np.uint32), "x4 output is written as raw uint32 words")

    # quantize_mx golden: X = 2^(floor(log2(amax)) - (8 - 1)) per group of 8 partitions x 4 elements.
    gs = np.zeros((P, F // 4), np.uint8)
    gq = np.zeros((P, F // 4), np.uint32)
    for g in range(P // 8):
        for c in range(F // 4):
            blk = x[8 * g:8 * g + 8, 4 * c:4 * c + 4].astype(np.float64)
            if not np.all(np.isfinite(blk)):
                byte = 0xFF
            else:
                amax = np.max(np.abs(blk))
                byte = 0 if amax == 0 else max(0, int(np.floor(np.log2(amax))) - 7 + 127)
            gs[scale_row(8 * g), c] = byte
            scaled = np.full(blk.shape, np.nan) if byte == 0xFF else blk / 2.0 ** (byte - 127)
            codes = encode_e4m3fn(scaled)
            for q in range(4):
                gq[8 * g:8 * g + 8, c] |= codes[:, q] << np.uint32(8 * q)
    check(np.array_equal(q_out, gq), f"P={P}: quantized words differ")
    check(np.array_equal(s_out, gs), f"P={P}: scales differ (other rows keep the memset 0)")

    # nc_matmul_mx golden: einsum("kiq,kjq->ij", stat*scale_s, mov*scale_m), twice (accumulate inferred).
    rows = np.array([scale_row(p) for p in range(K)])
    stat = E4M3FN[np.stack([(st >> np.uint32(8 * q)) & np.uint32(0xFF) for q in range(4)], axis=2)]
    mov = fp4_values(mv_nib.astype(np.int64))
    stat = stat * 2.0 ** (ss[rows].astype(np.float64) - 127)[:, :, None]
    mov = mov * 2.0 ** (ms[rows].astype(np.float64) - 127)[:, :, None]
    golden = (2 * np.einsum("kiq,kjq->ij", stat, mov)).astype(np.float32)  # exact: small integers x 2^-3..2^3
    check(np.array_equal(mm, golden), f"P={P}: matmul differs by {np.max(np.abs(mm - golden))}")

rc, so, se = run(KERNEL, "--target", "trn2", "--inputs", save(d, "x32.npy", x[:32]) + ":bfloat16",
                 save(d, "st32.npy", st[:32]) + ":float8_e4m3fn_x4", save(d, "mv32.npy", mv[:32]) + ":float4_e2m1fn_x4",
                 save(d, "ss32.npy", ss[:32]), save(d, "ms32.npy", ms[:32]) + ":float8_e8m0fnu", "-o", os.path.join(d, "b"))
check_equal(rc, 1, "MX on trn2 is a located error")
check("mx.py:17:5: error: quantize_mx: not available on trn2 (trn3 only)" in se, f"diagnostic: {se}")
rc, so, se = run(KERNEL, "--target", "trn3", "--inputs", save(d, "xf.npy", x[:32]) + ":bfloat16",
                 save(d, "stf.npy", np.zeros((32, 8), np.float32)) + ":float8_e4m3fn_x4",
                 save(d, "mvf.npy", mv[:32]) + ":float4_e2m1fn_x4", save(d, "ssf.npy", ss[:32]),
                 save(d, "msf.npy", ms[:32]) + ":float8_e8m0fnu", "-o", os.path.join(d, "c"))
check_equal(rc, 2 if rc == 2 else 1, "float data for a packed dtype is rejected")
check("takes its raw 32-bit words" in se, f"diagnostic: {se}")
finish()
