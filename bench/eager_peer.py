"""An eager per-instruction NumPy interpreter of bench/tile_relu.py: the peer bench/run.py compares case (d) with.

Like nki.simulate, every ISA call executes at once on numpy arrays (SBUF tiles are fp32 numpy arrays, HBM
tensors are the caller's arrays); nothing is compiled or scheduled. The kernel below is tile_relu's loop
written against this interpreter, instruction for instruction (2 DMA loads, activation, tensor_scalar,
tensor_tensor, 1 DMA store per [P, 64] tile).

    /usr/bin/python3 bench/eager_peer.py [N]      (prints the in-memory run time and checks the result)
"""
import sys
import time

import numpy as np

_ACT = {"relu": lambda v: np.maximum(v, np.float32(0)), "copy": lambda v: v}
_ALU = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "subtract": np.subtract}


def ndarray(shape, dtype=np.float32):
    return np.empty(shape, dtype=dtype)


def dma_copy(dst, src):
    np.copyto(dst, src, casting="unsafe")


def activation(dst, op, data, scale=1.0, bias=None):
    v = data * np.float32(scale) if scale != 1.0 else data
    if bias is not None:
        v = v + bias
    np.copyto(dst, _ACT[op](v), casting="unsafe")


def tensor_scalar(dst, data, op0, operand0):
    _ALU[op0](data, np.float32(operand0), out=dst, casting="unsafe")


def tensor_tensor(dst, data1, data2, op):
    _ALU[op](data1, data2, out=dst, casting="unsafe")


def tile_relu(x, y):
    P, N = x.shape
    TILE_F = 64
    out = np.empty((P, N), dtype=x.dtype)
    for j in range(N // TILE_F):
        cols = slice(j * TILE_F, (j + 1) * TILE_F)
        xt = ndarray((P, TILE_F))
        yt = ndarray((P, TILE_F))
        dma_copy(xt, x[:, cols])
        dma_copy(yt, y[:, cols])
        r = ndarray((P, TILE_F))
        activation(r, "relu", xt, scale=0.5)
        tensor_scalar(r, r, "add", 1.0)
        tensor_tensor(r, r, yt, "add")
        dma_copy(out[:, cols], r)
    return out


def reference(x, y):
    return np.maximum(x * np.float32(0.5), np.float32(0)) + np.float32(1) + y


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 131072
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, n), dtype=np.float32)
    y = rng.standard_normal((128, n), dtype=np.float32)
    t = time.perf_counter()
    out = tile_relu(x, y)
    dt = time.perf_counter() - t
    assert np.array_equal(out, reference(x, y))
    print(f"eager peer, [128, {n}]: {dt:.3f} s ({n // 64 * 6} instructions)")


if __name__ == "__main__":
    main()
