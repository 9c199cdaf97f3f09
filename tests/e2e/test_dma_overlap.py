"""End to end (behaviour): independent DMA, Vector and Scalar work overlaps in time in the --trace output
(a point in time where all three tracks are busy), while a dependent load -> Vector -> Scalar -> store chain
runs strictly one after the other. Outputs are checked against numpy too."""
import os

import numpy as np

from common import check, check_equal, finish, load_json, run, save, tmpdir, write_file

d = tmpdir()

INDEPENDENT = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def independent(x):
    P, F = x.shape
    out_x = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    out_v = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    out_s = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    xt = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)                                  # DMA: a 4 MiB load
    v = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=v, value=1.0, engine=nisa.engine.vector)
    for i in range(24):                                          # Vector: no dependence on the load
        nisa.tensor_scalar(dst=v, data=v, op0=nl.add, operand0=1.0)
    g = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=g, value=0.5, engine=nisa.engine.gpsimd)
    s = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for i in range(24):                                          # Scalar: no dependence on either
        nisa.activation(dst=s, op=nl.exp, data=g, scale=float(i) / 24.0)
    nisa.dma_copy(dst=out_x, src=xt)
    nisa.dma_copy(dst=out_v, src=v)
    nisa.dma_copy(dst=out_s, src=s)
    return out_x, out_v, out_s
'''

CHAIN = '''import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def chain(x):
    P, F = x.shape
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    xt = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    v = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=v, data=xt, op0=nl.multiply, operand0=2.0)
    s = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(dst=s, op=nl.copy, data=v, scale=0.5)
    nisa.dma_copy(dst=out, src=s)
    return out
'''


def kernel(name, src):
    return write_file(d, name, src)


def slices(trace_path):
    """{track name: [(start_us, end_us, opcode)]} of the trace's complete slices."""
    ev = load_json(trace_path)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    out = {}
    for e in ev:
        if e["ph"] == "X":
            out.setdefault(names[e["tid"]], []).append((e["ts"], e["ts"] + e["dur"], e["args"].get("opcode", "")))
    return out


x = np.random.default_rng(3).normal(size=(128, 8192)).astype(np.float32)
px = save(d, "x.npy", x)

# Independent work overlaps.
k = kernel("independent.py", INDEPENDENT)
tr = os.path.join(d, "ind.json")
out = os.path.join(d, "ind")
rc, so, se = run(k, "--inputs", px, "-o", out, "-q", "--trace", tr)
check_equal(rc, 0, f"independent: exit code ({se})")
ox, ov, os_ = (np.load(os.path.join(out, f"output_{i}.npy")) for i in range(3))
check(np.array_equal(ox, x), "independent: x round trip")
check(np.array_equal(ov, np.full((128, 512), 25.0, np.float32)), "independent: 1 + 24 increments")
check(np.allclose(os_, np.float32(np.exp(0.5 * 23.0 / 24.0)), rtol=1e-5), "independent: last activation wins")
sl = slices(tr)
load = [s for q, v in sl.items() if q.startswith("dma.q") for s in v]
load = min(load, key=lambda s: s[0])  # the 4 MiB load is the first transfer (every store waits for compute)
vec = [s for s in sl.get("vector", []) if s[2] == "tensor_scalar"]
sca = [s for s in sl.get("scalar", []) if s[2] == "activation"]
check_equal(len(vec), 24, "24 Vector slices")
check_equal(len(sca), 24, "24 Scalar slices")
vspan = (min(s[0] for s in vec), max(s[1] for s in vec))
sspan = (min(s[0] for s in sca), max(s[1] for s in sca))
lo = max(load[0], vspan[0], sspan[0])
hi = min(load[1], vspan[1], sspan[1])
check(lo < hi, f"DMA {load[:2]}, Vector {vspan} and Scalar {sspan} are busy at the same time")
# At one instant inside the common window, a Vector and a Scalar slice are both executing.
both = any(v[0] < s[1] and s[0] < v[1] and max(v[0], s[0]) < load[1] and min(v[1], s[1]) > load[0]
           for v in vec for s in sca)
check(both, "some Vector and Scalar slices overlap each other while the load is in flight")

# A dependent chain does not overlap: load, then Vector, then Scalar, then store.
k = kernel("chain.py", CHAIN)
tr = os.path.join(d, "chain.json")
out = os.path.join(d, "chain")
rc, so, se = run(k, "--inputs", px, "-o", out, "-q", "--trace", tr)
check_equal(rc, 0, f"chain: exit code ({se})")
check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), (x * np.float32(2)) * np.float32(0.5)), "chain output")
sl = slices(tr)
dma = sorted(s for q, v in sl.items() if q.startswith("dma.q") for s in v)
check_equal(len(dma), 2, "chain: two transfers")
(v,) = [s for s in sl["vector"] if s[2] == "tensor_scalar"]
(s,) = [s for s in sl["scalar"] if s[2] == "activation"]
check(dma[0][1] <= v[0], f"chain: Vector {v[:2]} starts after the load {dma[0][:2]} completes")
check(v[1] <= s[0], f"chain: Scalar {s[:2]} starts after Vector {v[:2]} ends")
check(s[1] <= dma[1][0], f"chain: the store {dma[1][:2]} starts after Scalar {s[:2]} ends")
finish()
