// numpy_arrays.cpp - compile-time numpy array functions (np.array, zeros, ones, eye, identity, arange, kron,
// tile, concatenate, reshape, transpose, save, load), tempfile.NamedTemporaryFile as a virtual file, and
// scipy.linalg.circulant. Nothing here touches host files: np.save fills Interp::virtual_files.
#include <cmath>

#include "frontend/builtin_util.h"
#include "frontend/ndarray.h"
#include "frontend/nki.h"

namespace nkisim::frontend {
namespace {
using detail::kwarg;
using detail::only_kwargs;
using Wide = NdArrayObj::Wide;

NdArrayObj* mut(const Value& v) { return const_cast<NdArrayObj*>(as_ndarray(v)); }

std::vector<int64_t> shape_arg(Interp& in, const Value& v, const char* fname) {
  std::vector<int64_t> s;
  if (v.is_int_like()) return {in.to_index(v, fname)};
  for (auto& d : in.to_vector(v)) s.push_back(in.to_index(d, fname));
  return s;
}

// The dtype= argument (None: numpy's default, float64 or int64).
std::optional<isa::DType> dtype_kw(Interp& in, CallArgs& a, const char* fname, size_t pos_index = SIZE_MAX) {
  const Value* v = kwarg(a, "dtype");
  if (!v && pos_index < a.npos) v = &a.pos[pos_index];
  if (!v || v->is(VK::None)) return std::nullopt;
  if (v->is(VK::DType)) return v->dtype_v();
  if (v->is(VK::Builtin) && v->as<BuiltinObj>()->name == "float") return std::nullopt;
  if (v->is(VK::Str))
    if (auto d = isa::parse_dtype(str_of(*v))) return *d;
  raise("TypeError", std::string(fname) + "(): data type " + in.repr(*v) + " not understood by nki-sim");
}

Value copy_of(const Value& v) {
  const NdArrayObj* a = as_ndarray(v);
  Value r = new_ndarray(a->shape, a->wide, a->dtype);
  mut(r)->data = a->data;
  return r;
}

Value with_dtype(Value arr, std::optional<isa::DType> dt) {
  return dt ? ndarray_astype(*as_ndarray(arr), *dt) : arr;
}

Value np_array(Interp& in, const BuiltinObj& b, CallArgs& a) {
  only_kwargs(b.name.c_str(), a, {"dtype", "copy"});
  detail::nargs(b.name.c_str(), a, 1, 2, true);
  Value arr = copy_of(to_ndarray(in, a.pos[0]));
  return with_dtype(arr, dtype_kw(in, a, b.name.c_str(), 1));
}

// zeros / ones / empty / full
Value np_fill(Interp& in, const BuiltinObj& b, CallArgs& a) {
  only_kwargs(b.name.c_str(), a, {"dtype", "fill_value"});
  const bool full = b.data == 2;
  detail::nargs(b.name.c_str(), a, full ? 1 : 1, full ? 3 : 2, true);
  auto dt = dtype_kw(in, a, b.name.c_str(), full ? 2 : 1);
  double fill = b.data == 1 ? 1.0 : 0.0;
  bool is_int = false;
  if (full) {
    const Value* fv = a.npos > 1 ? &a.pos[1] : kwarg(a, "fill_value");
    if (!fv) raise("TypeError", "full() missing required argument 'fill_value'");
    fill = detail::to_float(in, *fv, "full()");
    is_int = fv->is_int_like();
  }
  Value r = new_ndarray(shape_arg(in, a.pos[0], b.name.c_str()), is_int ? Wide::I64 : Wide::F64);
  for (double& x : mut(r)->data) x = fill;
  return with_dtype(r, dt);
}

// eye(N, M=None, k=0, dtype=float) / identity(n, dtype=float)
Value np_eye(Interp& in, const BuiltinObj& b, CallArgs& a) {
  // identity(n, dtype=None), eye(N, M=None, k=0, dtype=float): the size positional or by keyword.
  only_kwargs(b.name.c_str(), a, {"dtype", "M", "k", b.data ? "n" : "N"});
  detail::nargs(b.name.c_str(), a, 0, b.data ? 2 : 4, true);
  const Value* nv = a.npos ? &a.pos[0] : kwarg(a, b.data ? "n" : "N");
  if (!nv) raise("TypeError", b.name + "() missing required argument '" + (b.data ? "n" : "N") + "'");
  const int64_t n = in.to_index(*nv, b.name.c_str());
  int64_t m = n, k = 0;
  std::optional<isa::DType> dt;
  if (b.data) {
    dt = dtype_kw(in, a, "identity", 1);
  } else {
    const Value* mv = a.npos > 1 ? &a.pos[1] : kwarg(a, "M");
    if (mv && !mv->is(VK::None)) m = in.to_index(*mv, "eye()");
    const Value* kv = a.npos > 2 ? &a.pos[2] : kwarg(a, "k");
    if (kv) k = in.to_index(*kv, "eye()");
    dt = dtype_kw(in, a, "eye", 3);
  }
  Value r = new_ndarray({n, m}, Wide::F64);
  for (int64_t i = 0; i < n; ++i)
    if (i + k >= 0 && i + k < m) mut(r)->data[size_t(i * m + i + k)] = 1.0;
  return with_dtype(r, dt);
}

// arange([start,] stop[, step], dtype=None)
Value np_arange(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("arange", a, {"dtype", "start", "stop", "step"});
  detail::nargs("arange", a, 1, 4, true);
  auto dt = dtype_kw(in, a, "arange", 3);
  Value start = Value::integer(0), stop, step = Value::integer(1);
  if (a.npos == 1) stop = a.pos[0];
  else start = a.pos[0], stop = a.pos[1];
  if (a.npos >= 3) step = a.pos[2];
  const bool ints = start.is_int_like() && stop.is_int_like() && step.is_int_like();
  const double s0 = detail::to_float(in, start, "arange()"), s1 = detail::to_float(in, stop, "arange()"),
               st = detail::to_float(in, step, "arange()");
  if (st == 0) raise("ZeroDivisionError", "arange(): step must not be zero");
  const double n = std::max(0.0, std::ceil((s1 - s0) / st));
  if (n > double(kMaxHostElements)) new_ndarray({kMaxHostElements + 1}, Wide::F64);  // the budget error
  Value r = new_ndarray({int64_t(n)}, ints ? Wide::I64 : Wide::F64);
  for (size_t i = 0; i < mut(r)->data.size(); ++i) mut(r)->data[i] = s0 + double(i) * st;
  return with_dtype(r, dt);
}

Value result_like(const NdArrayObj& x, const NdArrayObj& y, std::vector<int64_t> shape) {
  const bool same = x.wide == y.wide && x.dtype == y.dtype;
  Wide w = same ? x.wide : (x.is_int() && y.is_int()) ? Wide::I64 : Wide::F64;
  return new_ndarray(std::move(shape), w, x.dtype);
}

// kron(a, b) for arrays of equal rank (1-D or 2-D and up).
Value np_kron(Interp& in, const BuiltinObj&, CallArgs& a) {
  detail::nargs("kron", a, 2, 2);
  Value av = to_ndarray(in, a.pos[0]), bv = to_ndarray(in, a.pos[1]);
  const NdArrayObj *x = as_ndarray(av), *y = as_ndarray(bv);
  if (x->shape.size() != y->shape.size())
    raise("ValueError", "nki-sim's np.kron needs operands of equal rank, got " + shape_str(x->shape) + " and " + shape_str(y->shape));
  const size_t nd = x->shape.size();
  std::vector<int64_t> shape(nd);
  for (size_t k = 0; k < nd; ++k) shape[k] = x->shape[k] * y->shape[k];
  Value r = result_like(*x, *y, shape);
  auto* o = mut(r);
  std::vector<int64_t> idx(nd, 0);
  for (size_t i = 0; i < o->data.size(); ++i) {
    size_t xi = 0, yi = 0;
    for (size_t k = 0; k < nd; ++k) {
      xi = xi * size_t(x->shape[k]) + size_t(idx[k] / y->shape[k]);
      yi = yi * size_t(y->shape[k]) + size_t(idx[k] % y->shape[k]);
    }
    o->data[i] = x->data[xi] * y->data[yi];
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return r;
}

// tile(a, reps)
Value np_tile(Interp& in, const BuiltinObj&, CallArgs& a) {
  detail::nargs("tile", a, 2, 2);
  Value av = to_ndarray(in, a.pos[0]);
  const NdArrayObj* x = as_ndarray(av);
  std::vector<int64_t> reps = shape_arg(in, a.pos[1], "tile()");
  std::vector<int64_t> xs = x->shape;
  while (xs.size() < reps.size()) xs.insert(xs.begin(), 1);
  while (reps.size() < xs.size()) reps.insert(reps.begin(), 1);
  const size_t nd = xs.size();
  std::vector<int64_t> shape(nd);
  for (size_t k = 0; k < nd; ++k) shape[k] = xs[k] * reps[k];
  Value r = new_ndarray(shape, x->wide, x->dtype);
  auto* o = mut(r);
  std::vector<int64_t> idx(nd, 0);
  for (size_t i = 0; i < o->data.size(); ++i) {
    size_t xi = 0;
    for (size_t k = 0; k < nd; ++k) xi = xi * size_t(xs[k]) + size_t(idx[k] % xs[k]);
    o->data[i] = x->data[xi];
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return r;
}

// concatenate(seq, axis=0)
Value np_concatenate(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("concatenate", a, {"axis"});
  detail::nargs("concatenate", a, 1, 2, true);
  const Value* axv = a.npos > 1 ? &a.pos[1] : kwarg(a, "axis");
  std::vector<Value> parts;
  for (auto& p : in.to_vector(a.pos[0])) parts.push_back(to_ndarray(in, p));
  if (parts.empty()) raise("ValueError", "need at least one array to concatenate");
  const NdArrayObj* f = as_ndarray(parts[0]);
  const int64_t nd = int64_t(f->shape.size());
  int64_t axis = axv ? in.to_index(*axv, "concatenate()") : 0;
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd) raise("ValueError", "concatenate(): axis out of bounds");
  std::vector<int64_t> shape = f->shape;
  shape[size_t(axis)] = 0;
  Wide w = f->wide;
  for (auto& p : parts) {
    const NdArrayObj* x = as_ndarray(p);
    for (int64_t k = 0; k < nd; ++k)
      if (k != axis && (int64_t(x->shape.size()) != nd || x->shape[size_t(k)] != f->shape[size_t(k)]))
        raise("ValueError", "concatenate(): array shapes " + shape_str(f->shape) + " and " + shape_str(x->shape) + " do not match");
    shape[size_t(axis)] += x->shape[size_t(axis)];
    if (x->wide != f->wide || x->dtype != f->dtype) w = f->is_int() && x->is_int() ? Wide::I64 : Wide::F64;
  }
  Value r = new_ndarray(shape, w, f->dtype);
  size_t outer = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= size_t(shape[size_t(k)]);
  size_t pos = 0;
  for (size_t o = 0; o < outer; ++o)
    for (auto& p : parts) {
      const NdArrayObj* x = as_ndarray(p);
      const size_t chunk = outer ? x->data.size() / outer : 0;
      for (size_t i = 0; i < chunk; ++i) mut(r)->data[pos++] = x->data[o * chunk + i];
    }
  return r;
}

Value np_reshape(Interp& in, const BuiltinObj& b, CallArgs& a) {
  detail::nargs(b.name.c_str(), a, 1, 2);
  Value arr = to_ndarray(in, a.pos[0]);
  Value m = in.get_attr(arr, intern(b.name));
  std::vector<Value> rest(a.pos + 1, a.pos + a.npos);
  CallArgs c{rest.data(), rest.size(), nullptr, 0, a.site};
  return in.call(m, c);
}

// The virtual file behind tempfile.NamedTemporaryFile: a name and nothing on the host.
struct VirtualFileObj : Object {
  std::string name;
  explicit VirtualFileObj(std::string n) : Object(VK::Other), name(std::move(n)) {}
  std::string repr() const override { return "<nki-sim virtual file '" + name + "'>"; }
  std::string type_name() const override { return "_TemporaryFileWrapper"; }
};

Value tempfile_named(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("NamedTemporaryFile", a, {"mode", "buffering", "encoding", "newline", "suffix", "prefix", "dir", "delete", "delete_on_close", "errors"});
  const Value* suffix = kwarg(a, "suffix");
  const Value* prefix = kwarg(a, "prefix");
  std::string name = "/nkisim-virtual/" + (prefix && prefix->is(VK::Str) ? str_of(*prefix) : std::string("tmp")) +
                     std::to_string(in.virtual_file_count++) + (suffix && suffix->is(VK::Str) ? str_of(*suffix) : "");
  return make<VirtualFileObj>(name);
}

std::string file_name(Interp& in, const Value& f, const char* fname) {
  if (f.is(VK::Other))
    if (auto* vf = dynamic_cast<const VirtualFileObj*>(f.obj())) return vf->name;
  if (f.is(VK::Str)) return str_of(f);
  raise("TypeError", std::string(fname) + ": expected a file name or a tempfile.NamedTemporaryFile, got '" +
                         type_name(f) + "'");
  (void)in;
}

Value np_save(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("save", a, {"allow_pickle"});
  detail::nargs("save", a, 2, 2, true);
  std::string name = file_name(in, a.pos[0], "np.save()");
  if (a.pos[0].is(VK::Str) && (name.size() < 4 || name.substr(name.size() - 4) != ".npy")) name += ".npy";
  Value arr = copy_of(to_ndarray(in, a.pos[1]));
  in.virtual_files[name] = arr;  // kernel code never writes host files
  return Value();
}

Value np_load(Interp& in, const BuiltinObj&, CallArgs& a) {
  only_kwargs("load", a, {"allow_pickle", "mmap_mode"});
  detail::nargs("load", a, 1, 1, true);
  return virtual_file_load(in, file_name(in, a.pos[0], "np.load()"), "np.load()");
}

// scipy.linalg.circulant(c): C[i, j] = c[(i - j) mod n]
Value scipy_circulant(Interp& in, const BuiltinObj&, CallArgs& a) {
  detail::nargs("circulant", a, 1, 1);
  Value cv = to_ndarray(in, a.pos[0]);
  const NdArrayObj* c = as_ndarray(cv);
  if (c->shape.size() != 1) raise("ValueError", "nki-sim's circulant() takes a 1-D array, got shape " + shape_str(c->shape));
  const int64_t n = c->shape[0];
  Value r = new_ndarray({n, n}, c->wide, c->dtype);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) mut(r)->data[size_t(i * n + j)] = c->data[size_t(((i - j) % n + n) % n)];
  return r;
}

Value file_enter(Interp&, const BuiltinObj& b, CallArgs&) { return b.self; }
Value file_noop(Interp&, const BuiltinObj&, CallArgs&) { return Value(); }

}  // namespace

bool virtual_file_attr(Interp& in, const Value& obj, Sym name, Value* out) {
  if (!obj.is(VK::Other)) return false;
  auto* vf = dynamic_cast<const VirtualFileObj*>(obj.obj());
  if (!vf) return false;
  const std::string n(sym_name(name));
  if (n == "name") *out = make_str(vf->name);
  else if (name == S::__enter__) *out = in.builtin("__enter__", file_enter, obj);
  else if (name == S::__exit__ || n == "close" || n == "flush") *out = in.builtin(n.c_str(), file_noop, obj);
  else return false;
  return true;
}

Value virtual_file_load(Interp& in, const std::string& name, const char* fname) {
  auto it = in.virtual_files.find(name);
  if (it == in.virtual_files.end())
    raise("FileNotFoundError", std::string(fname) + ": '" + name +
                                   "' is not a file np.save wrote during this compile (nki-sim reads no host files "
                                   "from kernel code)");
  return it->second;
}

void install_numpy_arrays(Interp& in, ModuleObj* np) {
  auto def = [&](const char* name, BuiltinFn fn, int64_t data = 0) {
    np->globals[intern(name)] = in.builtin(name, fn, Value(), data);
  };
  def("array", np_array);
  def("zeros", np_fill, 0);
  def("empty", np_fill, 0);
  def("ones", np_fill, 1);
  def("full", np_fill, 2);
  def("eye", np_eye, 0);
  def("identity", np_eye, 1);
  def("arange", np_arange);
  def("kron", np_kron);
  def("tile", np_tile);
  def("concatenate", np_concatenate);
  def("reshape", np_reshape);
  def("transpose", np_reshape);
  def("save", np_save);
  def("load", np_load);
  ModuleObj* tf = in.new_module("tempfile").as<ModuleObj>();
  tf->initialized = true;
  in.set_global(tf, "NamedTemporaryFile", in.builtin("NamedTemporaryFile", tempfile_named));
  Value scipy = in.new_module("scipy");
  scipy.as<ModuleObj>()->initialized = true;
  Value linalg = in.new_module("scipy.linalg");
  linalg.as<ModuleObj>()->initialized = true;
  in.set_global(linalg.as<ModuleObj>(), "circulant", in.builtin("circulant", scipy_circulant));
  in.set_global(scipy.as<ModuleObj>(), "linalg", linalg);
}

}  // namespace nkisim::frontend
