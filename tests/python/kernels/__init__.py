"""Kernels of our own for tests/python (the Python package)."""
