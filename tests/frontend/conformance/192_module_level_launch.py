# feature: host code at module level that launches the kernel (a direct call and a unittest method run at import time) does not stop the compile
# input: a = rng.standard_normal((32, 16)).astype(np.float32)
# golden: a + 1.0
import unittest

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit(mode="simulation")
def plus_one(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a) + 1.0)
    return out


class TestPlusOne(unittest.TestCase):
    def test_plus_one(self):
        x = np.ones((32, 16), np.float32)
        self.assertTrue(np.allclose(plus_one(x), x + 1))


result = plus_one(np.zeros((32, 16), np.float32))
TestPlusOne().test_plus_one()
