"""NKI dtypes on the host: numpy's types where numpy has them, ml_dtypes' when it is importable, else markers."""
import sys

import numpy as np

try:  # optional: bfloat16 / float8 numpy dtypes
    import ml_dtypes
except ImportError:  # pragma: no cover - depends on the machine
    ml_dtypes = None

# NKI dtype names numpy has natively.
NUMPY_NATIVE = ("float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32", "bool_")
# NKI dtypes numpy lacks (some are ml_dtypes types).
LOW_PRECISION = ("bfloat16", "tfloat32", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float8_e8m0fnu",
                 "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4")


class MlDtypesMissing(RecursionError):
    """numpy was asked for a dtype only ml_dtypes provides. A RecursionError because numpy's dtype conversion
    passes only that kind of error on from a `.dtype` attribute (any other becomes "Cannot interpret ... as a
    data type"); under pytest it is also pytest's skip outcome, so a test that builds such host arrays skips."""


_skip_class = None


def _missing_error_class():
    global _skip_class
    outcomes = sys.modules.get("_pytest.outcomes")  # loaded only when pytest runs
    if outcomes is None:
        return MlDtypesMissing
    if _skip_class is None:
        class MlDtypesMissingSkip(MlDtypesMissing, outcomes.Skipped):
            def __init__(self, msg):
                outcomes.Skipped.__init__(self, msg, allow_module_level=True)
                MlDtypesMissing.__init__(self, msg)

        MlDtypesMissingSkip.__qualname__ = MlDtypesMissingSkip.__name__ = "MlDtypesMissing"
        _skip_class = MlDtypesMissingSkip
    return _skip_class


class DType:
    """An NKI dtype numpy cannot represent here (no ml_dtypes): a marker naming it. Asking numpy for it as a
    dtype (np.ones(..., dtype=nl.bfloat16), a.astype(nl.float8_e5m2)) raises MlDtypesMissing, a skip under
    pytest; nkisim.as_dtype(a, NAME) marks float32 / raw-bit arrays instead."""

    def __init__(self, name):
        self.name = name
        self._nki_ref = ("nki.language", name)

    def __repr__(self):
        return f"nki.language.{self.name}"

    @property
    def dtype(self):  # numpy's dtype conversion asks for this attribute
        raise _missing_error_class()(
            f"numpy arrays of {self.name} need the ml_dtypes package, which is not installed; pass float32 "
            f"data or raw bits marked with nkisim.as_dtype(array, {self.name!r}) instead")

    def __reduce__(self):
        return (DType, (self.name,))

    def __eq__(self, other):
        if isinstance(other, DType):
            return other.name == self.name
        return isinstance(other, str) and other == self.name

    def __hash__(self):
        return hash(self.name)


def _make():
    out = {}
    for n in NUMPY_NATIVE:
        out[n] = getattr(np, n)
    for n in LOW_PRECISION:
        out[n] = getattr(ml_dtypes, n, None) if ml_dtypes else None
        if out[n] is None:
            out[n] = DType(n)
    return out


DTYPES = _make()


def dtype_name(v):
    """The NKI dtype name of a dtype-like value (a name, a numpy / ml_dtypes type, a marker), else None."""
    if isinstance(v, str):
        name = "bool_" if v == "bool" else v
        return name if name in DTYPES else None
    if isinstance(v, DType):
        return v.name
    try:
        name = np.dtype(v).name
    except TypeError:
        return None
    name = "bool_" if name == "bool" else name
    return name if name in DTYPES else None


def dtype_ref(v):
    """(module, file, attribute) naming a dtype value in the front end, or None if `v` is no dtype."""
    if isinstance(v, DType):
        return ("nki.language", "", v.name)
    if isinstance(v, np.dtype) or (isinstance(v, type) and issubclass(v, np.generic)):
        name = dtype_name(v)
        if name is None:
            raise TypeError(f"{v!r} is not an NKI dtype")
        return ("numpy", "", name) if name in NUMPY_NATIVE else ("nki.language", "", name)
    return None


def array_dtype(a):
    """The NKI dtype to request for an input array: None when numpy's own dtype is it."""
    name = getattr(a, "nki_dtype", None)
    if name:
        return name
    n = a.dtype.name
    if n in LOW_PRECISION:  # an ml_dtypes array: its raw bits
        return n
    return None


def host_output(a, name):
    """An output as the caller gets it: bf16 / fp8 as ml_dtypes arrays when ml_dtypes is present."""
    t = DTYPES.get(name)
    if name in LOW_PRECISION and not isinstance(t, DType) and a.dtype == np.float32:
        return a.astype(t)
    return a
