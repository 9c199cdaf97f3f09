"""Stand-in `neuronxcc` package (tests/device/sdk/standin.py)."""
