"""Host stand-in for the neuronxcc package: only neuronxcc.nki (the legacy NKI API), run in nki-sim."""
