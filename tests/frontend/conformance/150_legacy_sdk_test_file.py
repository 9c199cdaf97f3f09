# feature: a file shaped like the SDK's per-instruction tests (legacy kernel, numpy golden, unittest class, __main__) runs its kernel over the launch grid its test method spells (kernel[2, 2](...))
# input: a = rng.standard_normal((256, 1024)).astype(np.float32)
# input: b = rng.standard_normal((256, 1024)).astype(np.float32)
# golden: numpy_add(a, b)
import unittest

import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc.nki import baremetal


@baremetal
def tensor_add_kernel(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    ix = nl.program_id(0) * 128 + nl.arange(128)[:, None]
    iy = nl.program_id(1) * 512 + nl.arange(512)[None, :]
    a_tile = nl.load(a_input[ix, iy])
    b_tile = nl.load(b_input[ix, iy])
    c_tile = nisa.tensor_tensor(a_tile, b_tile, op=nl.add)
    nl.store(c_output[ix, iy], value=c_tile)
    return c_output


def numpy_add(a, b):
    return a + b


class TestTensorAdd(unittest.TestCase):
    def test_tensor_add(self):
        a = np.random.random_sample([256, 1024]).astype(np.float32)
        b = np.random.random_sample([256, 1024]).astype(np.float32)
        c = tensor_add_kernel[2, 2](a, b)
        self.assertTrue(np.allclose(c, numpy_add(a, b)))


if __name__ == "__main__":
    unittest.main()
