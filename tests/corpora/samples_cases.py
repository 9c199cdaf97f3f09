"""SDK examples (aws-neuron-sdk nki/examples/**) and nki-samples tutorials (src/nki_samples/tutorials/**)."""


def cases():
    return []
