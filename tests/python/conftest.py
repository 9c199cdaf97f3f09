"""tests/python runs against build/python (ctest sets PYTHONPATH); the kernels package is imported from here."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
