"""Host stand-in for nki.language: dtypes (numpy / ml_dtypes types), nl.tile_size, nl.nc / nl.spmd_dim,
NKIObject, and identity markers for the rest (their meaning lives in nki-sim's front end)."""
from nkisim._standins import populate as _populate

_populate(globals(), "nki.language")
