"""Stand-in `ml_dtypes` (tests/device/sdk/standin.py): each float type numpy lacks is a one-field structured dtype
named after it, holding the raw bits, so an input viewed as it reaches the stand-in SDK with its name."""
import numpy as np

bfloat16 = np.dtype([("bfloat16", "<u2")])
float8_e4m3 = np.dtype([("float8_e4m3", "u1")])
float8_e5m2 = np.dtype([("float8_e5m2", "u1")])
float8_e4m3fn = np.dtype([("float8_e4m3fn", "u1")])
