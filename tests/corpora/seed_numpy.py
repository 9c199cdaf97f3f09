"""A pytest plugin for the SDK's test files (sdk_tests.py loads it with -p): numpy's global random state is seeded
before each test, so their unseeded draws repeat from run to run (test_nki_isa_dropout.py's probabilities, drawn
from [0, 100), are all >= 1 in 28% of unseeded runs, and its check that something is kept then fails)."""
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seed_numpy():
    np.random.seed(0)
