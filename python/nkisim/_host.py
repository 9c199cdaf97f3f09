"""Host values -> the tagged tuples _nkisim.compile turns into frontend::HostValue trees (frontend/host_value.h).

Plain values, containers, numpy arrays (kernel input tensors), references to module attributes (nl/nisa op
objects, dtypes, enum members, numpy ufuncs, user functions and classes) and instances of user classes
(dataclasses, NKIObject subclasses: rebuilt in the front end without calling __init__).
"""
import enum
import os
import sys
import types

import numpy as np

from . import _dtypes

# Packages whose host stand-ins mirror namespaces built into nki-sim's front end (no source file to load).
_BUILTIN_ROOTS = ("nki", "neuronxcc", "numpy", "math")


class MarkedArray(np.ndarray):
    """A numpy array view that carries the NKI dtype its raw data means (nkisim.as_dtype)."""

    nki_dtype = None

    def __array_finalize__(self, obj):
        self.nki_dtype = getattr(obj, "nki_dtype", None)


def as_dtype(array, dtype):
    """Marks `array` as a kernel input of NKI dtype `dtype` ("bfloat16", "float8_e4m3", nl.bfloat16, ...):
    float data is rounded to it with the hardware's rounding, raw data of its width (uint16 for bfloat16)
    is taken bit for bit. The result shares `array`'s memory (kernel writes come back into it)."""
    name = _dtypes.dtype_name(dtype)
    if name is None:
        raise TypeError(f"as_dtype: unknown NKI dtype {dtype!r}")
    out = np.asarray(array).view(MarkedArray)
    out.nki_dtype = name
    return out


class SbufInput:
    """An input the function takes in SBUF (nkisim.sbuf): the array goes to HBM and is DMA'd into an SBUF tile of
    its shape (partition dimension first) before the call."""

    def __init__(self, array):
        if isinstance(array, (SbufInput, SbufOutput)):
            raise TypeError("nkisim.sbuf: the argument is already an SBUF argument")
        if not isinstance(array, np.ndarray):
            raise TypeError(f"nkisim.sbuf expects a numpy array, got {type(array).__name__}")
        self.array = array

    def __repr__(self):
        return f"nkisim.sbuf(<array {self.array.shape} {self.array.dtype}>)"


class SbufOutput:
    """An SBUF tile the function writes (nkisim.sbuf_output): passed in empty, DMA'd to HBM after the call and
    returned after the function's own return values, in argument order. `split`: with lnc=2, the axis along
    which each core holds its share (core c copies out part c); None: core 0 copies out the whole tile."""

    def __init__(self, shape, dtype, split=None):
        try:
            shape = tuple(int(d) for d in shape)
        except TypeError:
            raise TypeError(f"nkisim.sbuf_output: shape must be a tuple of ints, got {shape!r}") from None
        if not shape or any(d <= 0 for d in shape):
            raise ValueError(f"nkisim.sbuf_output: invalid shape {shape}")
        name = _dtypes.dtype_name(dtype)
        if name is None:
            raise TypeError(f"nkisim.sbuf_output: unknown NKI dtype {dtype!r}")
        if split is not None and not (isinstance(split, int) and 0 <= split < len(shape)):
            raise ValueError(f"nkisim.sbuf_output: split axis {split!r} is not an axis of shape {shape}")
        self.shape, self.dtype, self.split = shape, name, split

    def __repr__(self):
        return f"nkisim.sbuf_output({self.shape}, {self.dtype!r}, split={self.split})"


def sbuf(array):
    """Passes `array` to a function that takes an SBUF tile: DMA'd from HBM into SBUF before the call."""
    return SbufInput(array)


def sbuf_output(shape, dtype, split=None):
    """An SBUF tile of `shape` (partition dimension first) and NKI `dtype` that the function writes; the call
    returns its contents after the function's own return values (SbufOutput)."""
    return SbufOutput(shape, dtype, split)


def _module_file(modname):
    mod = sys.modules.get(modname)
    f = getattr(mod, "__file__", None) or ""
    return os.path.abspath(f) if f else ""


def _is_builtin_module(modname):
    return modname.split(".")[0] in _BUILTIN_ROOTS


class Converter:
    """Walks one call's arguments; collects the input arrays (in first-seen order) and the import roots."""

    def __init__(self):
        self.arrays = []      # numpy arrays, in input order
        self.names = []       # their names ("a", "cfg.weight", "xs[1]")
        self.roots = []       # folders to add to the front end's import path
        self.sbuf = False     # an SBUF argument was seen
        self.host_files = {}  # .npy names in the arguments -> (name, dtype, shape, values, mtime): host-made files

    def _add_root(self, modname, file):
        if not file:
            return
        path = os.path.dirname(file)
        depth = modname.count(".") + (1 if os.path.basename(file) == "__init__.py" else 0)
        for _ in range(depth):
            path = os.path.dirname(path)
        if path not in self.roots:
            self.roots.append(path)

    def ref(self, modname, path):
        if _is_builtin_module(modname):
            return ("a", modname, "", path)
        file = _module_file(modname)
        self._add_root(modname, file)
        return ("a", modname, file, path)

    def _tensor(self, a, name):
        for k, b in enumerate(self.arrays):
            if b is a:
                return ("T", k, self.names[k])
        self.arrays.append(a)
        self.names.append(name)
        return ("T", len(self.arrays) - 1, name)

    def _note_host_file(self, s):
        # A string naming an .npy file the host made (e.g. constants a library prepares on the host and names in a
        # config): the kernel's np.load / nl.shared_constant of that name reads this copy (CompileOptions::host_files)
        if s in self.host_files or not s.endswith(".npy") or not os.path.isfile(s):
            return
        a = np.load(s, allow_pickle=False)
        name = "float64" if a.dtype == np.float64 else "int64" if a.dtype == np.int64 else _dtypes.dtype_name(a.dtype)
        if name is None:
            raise TypeError(f"{s}: an .npy file of dtype {a.dtype} cannot be a kernel constant")
        self.host_files[s] = (s, name, list(a.shape), np.ascontiguousarray(a, dtype=np.float64).ravel().tolist(),
                              os.stat(s).st_mtime_ns)

    def convert(self, v, name):
        if v is None:
            return ("n",)
        if isinstance(v, (bool, np.bool_)):
            return ("b", bool(v))
        if isinstance(v, np.ndarray):
            return self._tensor(v, name)
        if isinstance(v, SbufInput):
            self.sbuf = True
            return ("S",) + self._tensor(v.array, name)[1:]
        if isinstance(v, SbufOutput):
            self.sbuf = True
            return ("O", name, list(v.shape), v.dtype, -1 if v.split is None else v.split)
        if isinstance(v, enum.Enum):
            t = type(v)
            ref = getattr(v, "_nki_ref", None)
            if ref:
                return ("a", ref[0], "", ref[1])
            return self.ref(t.__module__, f"{t.__qualname__}.{v.name}")
        if isinstance(v, (int, np.integer)):
            return ("i", int(v))
        if isinstance(v, (float, np.floating)):
            return ("f", float(v))
        if isinstance(v, str):
            self._note_host_file(v)
            return ("s", v)
        ref = getattr(v, "_nki_ref", None)
        if isinstance(ref, tuple) and not isinstance(v, type):
            return ("a", ref[0], "", ref[1])
        dt = _dtypes.dtype_ref(v)
        if dt is not None:
            return ("a",) + dt
        if isinstance(v, np.ufunc):
            return ("a", "numpy", "", v.__name__)
        if isinstance(v, tuple):
            return ("t", [self.convert(x, f"{name}[{i}]") for i, x in enumerate(v)])
        if isinstance(v, list):
            return ("l", [self.convert(x, f"{name}[{i}]") for i, x in enumerate(v)])
        if isinstance(v, dict):
            items = []
            for k, x in v.items():
                items.append(self.convert(k, name))
                items.append(self.convert(x, f"{name}[{k!r}]"))
            return ("d", items)
        fn = getattr(v, "nki_function", None)  # a decorated kernel passed as a value: its function
        if fn is not None:
            v = fn
        if isinstance(v, (type, types.FunctionType)):
            if "<locals>" in v.__qualname__:
                raise TypeError(f"argument '{name}': {v.__qualname__} is defined inside a function; nki-sim can "
                                "only pass module-level functions and classes to a kernel")
            return self.ref(v.__module__, v.__qualname__)
        if isinstance(v, types.ModuleType):
            return self._module(v, name)
        cls = type(v)
        if hasattr(v, "__dict__") or hasattr(cls, "__slots__"):
            if "<locals>" in cls.__qualname__:
                raise TypeError(f"argument '{name}': class {cls.__qualname__} is defined inside a function; "
                                "nki-sim rebuilds instances from module-level classes only")
            fields = dict(getattr(v, "__dict__", {}))
            for s in getattr(cls, "__slots__", ()):
                if hasattr(v, s):
                    fields[s] = getattr(v, s)
            keys = list(fields)
            vals = [self.convert(fields[k], f"{name}.{k}") for k in keys]
            ref = self.ref(cls.__module__, cls.__qualname__)
            return ("o", ref[1], ref[2], ref[3], keys, vals)
        raise TypeError(f"argument '{name}': nki-sim cannot pass a {cls.__module__}.{cls.__qualname__} to a kernel")

    def _module(self, m, name):
        raise TypeError(f"argument '{name}': a module ({m.__name__}) cannot be passed to a kernel")
