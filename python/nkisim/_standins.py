"""Host stand-ins for the names NKI code imports (nki.*, neuronxcc.nki.*): they only have to import and to say
which front-end name they are. The names come from nki-sim's own front end (_nkisim.namespaces()), so the host
side knows exactly what the simulator knows; the meaning of each lives in the C++ front end."""
import sys
import types

from . import _dtypes
from . import _nkisim

_NAMESPACES = _nkisim.namespaces("trn2")  # {module: {name: (kind, number)}}; nl.tile_size as on trn2
# Importable stand-in modules (the others are namespaces inside them, or the front end's own modules).
_MODULE_FILES = ("nki", "nki.language", "nki.isa", "nki.isa.constants", "nki.typing", "nki.compiler", "neuronxcc",
                 "neuronxcc.nki", "neuronxcc.nki.language", "neuronxcc.nki.isa", "neuronxcc.nki.isa.constants",
                 "neuronxcc.nki.typing", "neuronxcc.nki.compiler")


def _is_module_name(name):
    return name in _MODULE_FILES


class _Named:
    """Something that names a front-end value as `_nki_ref` = (importable module, attribute path): its repr is that
    name, and an unknown attribute is a Ref to the name below it."""

    __slots__ = ()

    def __repr__(self):
        return f"{self._nki_ref[0]}.{self._nki_ref[1]}"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Ref(self._nki_ref[0], f"{self._nki_ref[1]}.{name}")


class Ref(_Named):
    """A front-end name (module, attribute path): nl.add, nisa.dge_mode.hwdge, nl.ndarray, ... Equal when the
    names are; attributes are names below it; subscripts and `|` give it back (annotations like
    `nl.ndarray | None` or `tensor[128, 512]`); calling it on the host gives a HostCall."""

    __slots__ = ("_nki_ref",)

    def __init__(self, module, path):
        object.__setattr__(self, "_nki_ref", (module, path))

    def __eq__(self, other):
        return isinstance(other, Ref) and other._nki_ref == self._nki_ref

    def __hash__(self):
        return hash(self._nki_ref)

    def __getitem__(self, key):
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __call__(self, *args, **kwargs):
        return HostCall(self, args, kwargs)


class HostCall:
    """The result of calling an NKI function on the host (module-level host code such as
    `ncc.sbuf.mod_alloc(...)`): a placeholder; it cannot be passed to a kernel."""

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def __repr__(self):
        return f"<host call {self.fn!r}(...)>"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, key):
        return self


class NKIObject:
    """Base of NKI's compile-time classes (dataclass configs). A subclass that is not a dataclass takes
    keyword arguments as attributes, as in NKI."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)


class NC:
    """nl.nc(n): a launch-grid dimension spread over n NeuronCores."""

    def __init__(self, n):
        self.n = int(n)

    def __mul__(self, other):
        return spmd_dim(self, other)

    def __rmul__(self, other):
        return spmd_dim(other, self)

    def __repr__(self):
        return f"nc({self.n})"


class SpmdDim:
    """nl.spmd_dim(...): one launch-grid dimension made of factors (ints and nl.nc)."""

    def __init__(self, factors):
        self.factors = factors
        self.size, self.cores = 1, 1
        for f in factors:
            if isinstance(f, NC):
                self.size *= f.n
                self.cores *= f.n
            elif isinstance(f, SpmdDim):
                self.size *= f.size
                self.cores *= f.cores
            else:
                self.size *= int(f)

    def __mul__(self, other):
        return spmd_dim(self, other)

    def __rmul__(self, other):
        return spmd_dim(other, self)

    def __repr__(self):
        return f"spmd_dim({', '.join(map(repr, self.factors))})"


def nc(n):
    return NC(n)


def spmd_dim(*factors):
    return SpmdDim(factors)


def grid_dim(d):
    """(size, cores) of one launch-grid dimension: an int, nl.nc(n) or nl.spmd_dim(...)."""
    if isinstance(d, NC):
        return d.n, d.n
    if isinstance(d, SpmdDim):
        return d.size, d.cores
    return int(d), 1


class Namespace(_Named):
    """A namespace inside a front-end module that is no importable module (nl.tile_size, nl.fp32): its
    constants are the front end's numbers (nl.tile_size.pmax == 128, nl.fp32.min), the rest markers."""

    def __init__(self, frontend_name, ref):
        object.__setattr__(self, "_nki_ref", ref)  # (importable module, attribute path)
        populate(self.__dict__, frontend_name, ref=(ref[0], ref[1] + "."))


def static_cast(x, dtype):
    """nl.static_cast called on the host with a numpy array (the tutorials cast their inputs this way): numpy's
    astype; a dtype numpy lacks here (bf16 / fp8 without ml_dtypes) gives float32 data marked with that dtype
    (nkisim.as_dtype), bf16 rounded to nearest even on the host already, so host references see kernel inputs."""
    import numpy as np
    from ._host import as_dtype
    name = _dtypes.dtype_name(dtype)
    if name is None:
        raise TypeError(f"static_cast: {dtype!r} is not an NKI dtype")
    t = _dtypes.DTYPES[name]
    if not isinstance(t, _dtypes.DType):
        return np.asarray(x).astype(t)
    a = np.array(x, dtype=np.float32)
    if name == "bfloat16":
        bits = a.view(np.uint32)
        finite = np.isfinite(a)
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
        bits[finite] = rounded[finite]
        nan = np.isnan(a)
        bits[~finite & ~nan] &= np.uint32(0xFFFF0000)  # +-inf
        bits[nan] = (bits[nan] & np.uint32(0xFFFF0000)) | np.uint32(0x7FC00000)  # a quiet NaN
    return as_dtype(a, name)


_SPECIAL_LANGUAGE = {
    "static_cast": static_cast,
    "NKIObject": NKIObject,
    "nc": nc,
    "spmd_dim": spmd_dim,
}


def populate(namespace, frontend_module, specials=None, ref=None):
    """Fills a stand-in module's globals with the front end's names of `frontend_module`. Markers name their
    value as ref = (importable module, attribute prefix); by default (frontend_module, "")."""
    ref_module, prefix = ref or (frontend_module, "")
    names = _NAMESPACES.get(frontend_module, {})
    specials = dict(specials or {})
    if frontend_module.endswith("language"):
        for k, v in _SPECIAL_LANGUAGE.items():
            specials.setdefault(k, v)
    for name, (kind, value) in names.items():
        if name in namespace and not isinstance(namespace[name], types.ModuleType):
            continue
        inner = f"{frontend_module}.{name}"
        if name in specials:
            namespace[name] = specials[name]
        elif name in _dtypes.DTYPES and kind == "v":
            namespace[name] = _dtypes.DTYPES[name]
        elif kind in ("i", "x"):
            namespace[name] = value
        elif kind == "m" and inner in sys.modules:
            namespace[name] = sys.modules[inner]
        elif kind == "m" and inner in _NAMESPACES and inner.split(".")[0] in ("nki", "neuronxcc") \
                and not _is_module_name(inner):
            namespace[name] = Namespace(inner, (ref_module, prefix + name))
        else:
            namespace[name] = Ref(ref_module, prefix + name)
    for k, v in specials.items():
        namespace.setdefault(k, v)
    if "__name__" not in namespace or isinstance(namespace.get("_nki_ref"), tuple):
        return  # a Namespace object: its class handles unknown names

    def __getattr__(name):
        # A name the front end does not list (yet): a marker all the same, so that host code (annotations such as
        # `dtype: nki.dtype`, imports of names only kernels use) imports; a kernel that gets it as an argument
        # has the front end report it.
        if name.startswith("__"):
            raise AttributeError(name)
        return Ref(frontend_module, name)

    namespace["__getattr__"] = __getattr__


def _identity_decorator(func=None, **kwargs):
    """A compiler directive used as a decorator on a kernel: the host keeps the function."""
    return func if func is not None else (lambda f: f)


def compiler_specials(frontend_module):
    """nki.compiler / neuronxcc.nki.compiler: markers for sbuf / psum allocation, identity decorators."""
    return {
        "sbuf": Ref(frontend_module, "sbuf"),
        "psum": Ref(frontend_module, "psum"),
        "skip_middle_end_transformations": _identity_decorator,
        "enable_stack_allocator": _identity_decorator,
        "force_auto_alloc": _identity_decorator,
    }


class _NamespaceFinder:
    """Imports any other nki.* / neuronxcc.* namespace of the front end (nki.collectives, ...) as a stand-in
    module, so the host imports exactly what the simulator provides."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        import importlib.machinery
        if fullname in _NAMESPACES and fullname.split(".")[0] in ("nki", "neuronxcc"):
            return importlib.machinery.ModuleSpec(fullname, _NamespaceFinder, is_package=True)
        return None

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        module.__path__ = []
        populate(module.__dict__, module.__name__)


if not any(f is _NamespaceFinder for f in sys.meta_path):
    sys.meta_path.append(_NamespaceFinder)
