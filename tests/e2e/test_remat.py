"""End to end: rematerialisation (docs/spill.md, "Re-loading copies of the input"). Eight [128, 8192] fp32 tiles
(256 KiB per partition, SBUF is 192 KiB on trn1), each a plain copy of the input loaded first and read by two
accumulations, do not fit: they are dropped and loaded again from the input before each read (the Neuron
compiler's behaviour that the matmul tutorial's M,N-blocked profile shows: its MBU is the rhs tiles loaded once
per use), in program order, with no store. Checked: the note, numpy-exact outputs (timed and functional, and
--check=error), the DMA count and bytes read from HBM, and in the trace each load right before its add."""
import json
import os

import numpy as np

from common import check, check_equal, finish, load_core, run, save, tmpdir, write_kernel

d = tmpdir()

rng = np.random.default_rng(12)
f32 = np.float32


def sums(tile):
    """The kernels' outputs: out[b] = b + tile(b, 0) + ... + tile(b, 7), in fp32 in the kernel's order."""
    g = []
    for b in range(2):
        acc = np.full(tile(b, 0).shape, b, f32)
        for j in range(8):
            acc = acc + tile(b, j)
        g.append(acc)
    return np.stack(g)


kernel = write_kernel(d, "twice", """@nki.jit
def sum_twice(a, n=8, f=8192, m=2):
    out = nl.ndarray((m, 128, f), dtype=a.dtype, buffer=nl.shared_hbm)
    tiles = []
    for j in range(n):
        t = nl.ndarray((128, f), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[:, j * f:(j + 1) * f])
        tiles.append(t)
    for b in range(m):
        acc = nl.ndarray((128, f), dtype=a.dtype, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=float(b))
        for j in range(n):
            nisa.tensor_tensor(dst=acc, data1=acc, data2=tiles[j], op=nl.add)
        nisa.dma_copy(dst=out[b], src=acc)
    return out
""")

a = rng.standard_normal((128, 8 * 8192)).astype(f32)
out = os.path.join(d, "out")
stats = os.path.join(d, "stats.json")
trace = os.path.join(d, "trace.json")
rc, so, se = run(kernel, "--target", "trn1", "--inputs", save(d, "a.npy", a), "-o", out, "-q", "--stats", stats,
                 "--trace", trace)
check_equal(rc, 0, f"exit code (stderr: {se})")
check_equal(se, kernel + ":11:13: note: 8 tensors made here (the first 't_7', 32768 bytes per partition each) do not "
            "fit in SBUF; re-loaded from input 'a' before each use (16 loads)\n", "the note")
if rc == 0:
    g = sums(lambda b, j: a[:, j * 8192:(j + 1) * 8192])
    check(np.array_equal(np.load(os.path.join(out, "output_0.npy")), g), "outputs match numpy")
    s = load_core(stats)
    check_equal(s["dma"]["transfers"], 18, "16 loads (two per tile) and 2 stores; no spill store")
    check_equal(s["dma"]["hbm_read_bytes"], 2 * 8 * 128 * 8192 * 4, "each tile read from the input twice")
    check_equal(s["dma"]["hbm_write_bytes"], 2 * 128 * 8192 * 4, "only the outputs written")
    # In the trace, at the kernel line of each add, one load: the reloads are made at their use.
    with open(trace) as fh:
        everything = json.load(fh)["traceEvents"]
    tracks = {e["tid"]: e["args"]["name"] for e in everything if e.get("ph") == "M" and e.get("name") == "thread_name"}
    events = [e for e in everything if e.get("ph") == "X"]
    adds = [e for e in events if e["args"].get("opcode") == "tensor_tensor"]
    check_equal(len(adds), 16, "16 adds")
    at_add = {e["args"].get("nki_source_location") for e in adds}
    loads_at_add = [e for e in events if tracks.get(e["tid"], "").startswith("dma.q") and
                    e["args"].get("nki_source_location") in at_add]
    check_equal(len(loads_at_add), 16, "16 transfers at the adds' line")

# Reads of part of a tile, and a DMA reading a whole one (stored back to HBM): each reload copies the whole tile
# again (the defining DMA), the op reads its view of it. 8 x 2 adds of half tiles and 8 stores: 24 loads.
halves = write_kernel(d, "halves", """@nki.jit
def halves(a, n=8, f=8192):
    out = nl.ndarray((2, 128, f // 2), dtype=a.dtype, buffer=nl.shared_hbm)
    back = nl.ndarray((128, n * f), dtype=a.dtype, buffer=nl.shared_hbm)
    tiles = []
    for j in range(n):
        t = nl.ndarray((128, f), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[:, j * f:(j + 1) * f])
        tiles.append(t)
    for b in range(2):
        acc = nl.ndarray((128, f // 2), dtype=a.dtype, buffer=nl.sbuf)
        nisa.memset(dst=acc, value=float(b))
        for j in range(n):
            nisa.tensor_tensor(dst=acc, data1=acc, data2=tiles[j][:, b * (f // 2):(b + 1) * (f // 2)], op=nl.add)
        nisa.dma_copy(dst=out[b], src=acc)
    for j in range(n):
        nisa.dma_copy(dst=back[:, j * f:(j + 1) * f], src=tiles[j])
    return out, back
""")
out2 = os.path.join(d, "out_halves")
rc, so, se = run(halves, "--target", "trn1", "--inputs", save(d, "a2.npy", a), "-o", out2, "-q")
check_equal(rc, 0, f"halves: exit code (stderr: {se})")
check_equal(se, halves + ":12:13: note: 8 tensors made here (the first 't_7', 32768 bytes per partition each) do not "
            "fit in SBUF; re-loaded from input 'a' before each use (24 loads)\n", "halves: the note")
if rc == 0:
    g = sums(lambda b, j: a[:, j * 8192 + b * 4096:j * 8192 + (b + 1) * 4096])
    check(np.array_equal(np.load(os.path.join(out2, "output_0.npy")), g), "halves: the sums match numpy")
    check(np.array_equal(np.load(os.path.join(out2, "output_1.npy")), a), "halves: the stored tiles are the input")

finish()
