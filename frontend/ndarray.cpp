// ndarray.cpp - compile-time host arrays (ndarray.h): construction, attributes, indexing, arithmetic.
#include "frontend/ndarray.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include "frontend/builtin_util.h"
#include "frontend/nki.h"

namespace nkisim::frontend {
using Wide = NdArrayObj::Wide;

const NdArrayObj* as_ndarray(const Value& v) {
  return v.is(VK::Other) ? dynamic_cast<const NdArrayObj*>(v.obj()) : nullptr;
}
static NdArrayObj* mut(const Value& v) { return const_cast<NdArrayObj*>(as_ndarray(v)); }

bool NdArrayObj::is_int() const { return wide == Wide::I64 || (wide == Wide::None && isa::is_integer(dtype)); }
std::string NdArrayObj::dtype_str() const {
  return wide == Wide::F64 ? "float64" : wide == Wide::I64 ? "int64" : std::string(isa::dtype_name(dtype));
}

static int64_t count_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) raise("ValueError", "negative dimensions are not allowed");
    if (d && n > kMaxHostElements / d) n = kMaxHostElements + 1;
    else n *= d;
  }
  return n;
}

Value new_ndarray(std::vector<int64_t> shape, Wide wide, isa::DType dt) {
  const int64_t n = count_of(shape);
  if (n > kMaxHostElements)
    raise("ValueError", "compile-time numpy array of shape " + shape_str(shape) + " exceeds nki-sim's budget of " +
                            std::to_string(kMaxHostElements) + " elements");
  check_heap_budget(uint64_t(n) * sizeof(double));
  Value v = make<NdArrayObj>();
  auto* a = mut(v);
  a->wide = wide;
  a->dtype = dt;
  a->shape = std::move(shape);
  a->data.assign(size_t(n), 0.0);
  a->account(sizeof(NdArrayObj) + a->data.capacity() * sizeof(double));
  return v;
}

static std::string fmt_num(double x, bool is_int) {
  if (is_int) return std::to_string(int64_t(x));
  std::ostringstream os;
  os << x;
  std::string s = os.str();
  if (s.find_first_of(".eni") == std::string::npos) s += ".";
  return s;
}

std::string NdArrayObj::repr() const {
  std::ostringstream os;
  os << "array(";
  std::vector<int64_t> idx(shape.size(), 0);
  std::function<void(size_t, size_t)> rec = [&](size_t d, size_t off) {
    if (d == shape.size()) {
      os << fmt_num(data[off], is_int());
      return;
    }
    size_t stride = 1;
    for (size_t k = d + 1; k < shape.size(); ++k) stride *= size_t(shape[k]);
    os << "[";
    for (int64_t i = 0; i < shape[d]; ++i) {
      if (i) os << ", ";
      if (i == 6 && shape[d] > 12) {
        os << "...";
        i = shape[d] - 4;
        continue;
      }
      rec(d + 1, off + size_t(i) * stride);
    }
    os << "]";
  };
  rec(0, 0);
  os << ", dtype=" << dtype_str() << ")";
  return os.str();
}

static double round_to(double x, isa::DType dt) {
  if (dt == isa::DType::bool_) return x != 0;
  if (isa::is_float(dt)) return double(isa::to_f32(dt, isa::from_f32(dt, float(x))));
  if (std::isnan(x)) return 0;
  const int bits = int(isa::dtype_size(dt)) * 8;
  const uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  const uint64_t u = uint64_t(int64_t(std::trunc(x))) & mask;
  if (isa::dtype_kind(dt) == isa::DTypeKind::SInt && (u >> (bits - 1)) & 1) return double(int64_t(u | ~mask));
  return double(u);
}

Value ndarray_astype(const NdArrayObj& a, isa::DType dt) {
  Value v = new_ndarray(a.shape, Wide::None, dt);
  auto* r = mut(v);
  for (size_t i = 0; i < a.data.size(); ++i) r->data[i] = round_to(a.data[i], dt);
  return v;
}

std::vector<uint8_t> ndarray_bytes(const NdArrayObj& a) {
  const size_t es = isa::dtype_size(a.dtype);
  std::vector<uint8_t> out(a.data.size() * es);
  for (size_t i = 0; i < a.data.size(); ++i) {
    uint64_t bits = isa::is_float(a.dtype) ? uint64_t(isa::from_f32(a.dtype, float(a.data[i])))
                                           : uint64_t(int64_t(a.data[i]));
    for (size_t b = 0; b < es; ++b) out[i * es + b] = uint8_t(bits >> (8 * b));
  }
  return out;
}

// Nested lists / tuples / numbers / arrays -> shape and flat values.
static void flatten(Interp& in, const Value& v, size_t depth, std::vector<int64_t>& shape, std::vector<double>& out,
                    bool& is_float) {
  if (auto* a = as_ndarray(v)) {
    for (size_t k = 0; k < a->shape.size(); ++k) {
      if (shape.size() <= depth + k) shape.push_back(a->shape[k]);
      else if (shape[depth + k] != a->shape[k]) raise("ValueError", "setting an array element with a sequence: inhomogeneous shape");
    }
    is_float |= !a->is_int();
    out.insert(out.end(), a->data.begin(), a->data.end());
    return;
  }
  if (v.is_number()) {
    if (shape.size() != depth) raise("ValueError", "setting an array element with a sequence: inhomogeneous shape");
    is_float |= v.is(VK::Float);
    out.push_back(v.num());
    if (int64_t(out.size()) > kMaxHostElements)
      raise("ValueError", "compile-time numpy array exceeds nki-sim's budget of " + std::to_string(kMaxHostElements) + " elements");
    return;
  }
  if (!v.is(VK::List) && !v.is(VK::Tuple))
    raise("TypeError", "nki-sim's compile-time numpy cannot make an array of '" + type_name(v) + "'");
  const auto& items = items_of(v);
  if (shape.size() <= depth) shape.push_back(int64_t(items.size()));
  else if (shape[depth] != int64_t(items.size())) raise("ValueError", "setting an array element with a sequence: inhomogeneous shape");
  for (auto& x : items) flatten(in, x, depth + 1, shape, out, is_float);
}

Value to_ndarray(Interp& in, const Value& v) {
  if (as_ndarray(v)) return v;
  std::vector<int64_t> shape;
  std::vector<double> data;
  bool is_float = false;
  flatten(in, v, 0, shape, data, is_float);
  Value r = new_ndarray(shape, is_float ? Wide::F64 : Wide::I64);
  mut(r)->data = std::move(data);
  return r;
}

static Value scalar_of(const NdArrayObj& a, double x) {
  if (a.wide == Wide::None && a.dtype == isa::DType::bool_) return Value::boolean(x != 0);
  return a.is_int() ? Value::integer(int64_t(x)) : Value::floating(x);
}

static Value reshaped(Interp& in, const NdArrayObj& a, const Value& shape_v, const char* fname) {
  std::vector<int64_t> shape;
  for (auto& d : shape_v.is_int_like() ? std::vector<Value>{shape_v} : in.to_vector(shape_v))
    shape.push_back(in.to_index(d, fname));
  int64_t known = 1, neg = -1;
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] == -1 && neg < 0) neg = int64_t(k);
    else known *= shape[k];
  if (neg >= 0 && known) shape[size_t(neg)] = int64_t(a.data.size()) / known;
  if (count_of(shape) != int64_t(a.data.size()))
    raise("ValueError", "cannot reshape array of size " + std::to_string(a.data.size()) + " into shape " + shape_str(shape));
  Value r = new_ndarray(shape, a.wide, a.dtype);
  mut(r)->data = a.data;
  return r;
}

static Value transposed(const NdArrayObj& a, std::vector<int64_t> perm) {
  const size_t nd = a.shape.size();
  if (perm.empty())
    for (size_t k = 0; k < nd; ++k) perm.push_back(int64_t(nd - 1 - k));
  if (perm.size() != nd) raise("ValueError", "axes don't match array");
  std::vector<int64_t> shape(nd), stride(nd, 1), out_stride(nd);
  for (size_t k = nd; k-- > 1;) stride[k - 1] = stride[k] * a.shape[k];
  for (size_t k = 0; k < nd; ++k) {
    if (perm[k] < 0 || perm[k] >= int64_t(nd)) raise("ValueError", "axis out of bounds in transpose");
    shape[k] = a.shape[size_t(perm[k])];
    out_stride[k] = stride[size_t(perm[k])];
  }
  Value r = new_ndarray(shape, a.wide, a.dtype);
  auto* o = mut(r);
  std::vector<int64_t> idx(nd, 0);
  for (size_t i = 0; i < o->data.size(); ++i) {
    int64_t src = 0;
    for (size_t k = 0; k < nd; ++k) src += idx[k] * out_stride[k];
    o->data[i] = a.data[size_t(src)];
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return r;
}

static isa::DType dtype_arg(Interp& in, const Value& v, const char* fname) {
  if (v.is(VK::DType)) return v.dtype_v();
  if (v.is(VK::Str))
    if (auto d = isa::parse_dtype(str_of(v))) return *d;
  raise("TypeError", std::string(fname) + ": data type " + in.repr(v) + " not understood by nki-sim");
}

static Value method(Interp& in, const Value& self, const char* name, BuiltinFn fn) {
  return in.builtin(name, fn, self);
}

bool ndarray_attr(Interp& in, const Value& obj, Sym name, Value* out) {
  const NdArrayObj* a = as_ndarray(obj);
  if (!a) return false;
  const std::string n(sym_name(name));
  if (n == "shape") {
    std::vector<Value> s;
    for (int64_t d : a->shape) s.push_back(Value::integer(d));
    *out = make_tuple(std::move(s));
  } else if (n == "ndim") {
    *out = Value::integer(int64_t(a->shape.size()));
  } else if (n == "size") {
    *out = Value::integer(int64_t(a->data.size()));
  } else if (n == "dtype") {
    if (a->wide != Wide::None) raise("TypeError", "nki-sim has no dtype " + a->dtype_str() + " (use .astype())");
    *out = Value::dtype(a->dtype);
  } else if (n == "T") {
    *out = transposed(*a, {});
  } else if (n == "astype") {
    *out = method(in, obj, "astype", [](Interp& in, const BuiltinObj& b, CallArgs& c) -> Value {
      detail::nargs("astype", c, 1, 1, true);
      return ndarray_astype(*as_ndarray(b.self), dtype_arg(in, c.pos[0], "astype()"));
    });
  } else if (n == "reshape") {
    *out = method(in, obj, "reshape", [](Interp& in, const BuiltinObj& b, CallArgs& c) -> Value {
      detail::nargs("reshape", c, 1, SIZE_MAX);
      std::vector<Value> dims(c.pos, c.pos + c.npos);
      return reshaped(in, *as_ndarray(b.self), c.npos == 1 ? c.pos[0] : make_tuple(dims), "reshape()");
    });
  } else if (n == "flatten" || n == "ravel" || n == "copy") {
    *out = method(in, obj, "flatten", [](Interp& in, const BuiltinObj& b, CallArgs& c) -> Value {
      detail::nargs(b.name.c_str(), c, 0, 0);
      const NdArrayObj* a = as_ndarray(b.self);
      return reshaped(in, *a, b.name == "copy" ? make_tuple([&] {
        std::vector<Value> s;
        for (int64_t d : a->shape) s.push_back(Value::integer(d));
        return s;
      }()) : Value::integer(int64_t(a->data.size())), "reshape()");
    });
    out->as<BuiltinObj>()->name = n;
  } else if (n == "transpose") {
    *out = method(in, obj, "transpose", [](Interp& in, const BuiltinObj& b, CallArgs& c) -> Value {
      std::vector<int64_t> perm;
      std::vector<Value> axes = c.npos == 1 && !c.pos[0].is_int_like() ? in.to_vector(c.pos[0])
                                                                       : std::vector<Value>(c.pos, c.pos + c.npos);
      for (auto& x : axes) perm.push_back(in.to_index(x, "transpose()"));
      return transposed(*as_ndarray(b.self), perm);
    });
  } else if (n == "max" || n == "min" || n == "sum" || n == "prod") {
    // Whole-array reductions (host-side index arithmetic in kernels: `spans.max()`); an axis is not supported.
    *out = method(in, obj, "max", [](Interp&, const BuiltinObj& b, CallArgs& c) -> Value {
      const std::string& f = b.name;
      if (c.npos || c.nkw) raise("NotImplementedError", "ndarray." + f + "() with arguments is not supported yet by nki-sim");
      const NdArrayObj* a = as_ndarray(b.self);
      if (a->data.empty() && (f == "max" || f == "min"))
        raise("ValueError", "zero-size array to reduction operation " + std::string(f == "max" ? "maximum" : "minimum") +
                                " which has no identity");
      double acc = f == "prod" ? 1.0 : f == "sum" ? 0.0 : a->data[0];
      for (double x : a->data)  // a NaN wins max / min, as in numpy
        acc = x != x ? x : f == "max" ? std::max(acc, x) : f == "min" ? std::min(acc, x) : f == "sum" ? acc + x : acc * x;
      return scalar_of(*a, acc);
    });
    out->as<BuiltinObj>()->name = n;
  } else if (n == "item") {
    *out = method(in, obj, "item", [](Interp&, const BuiltinObj& b, CallArgs& c) -> Value {
      detail::nargs("item", c, 0, 0);
      const NdArrayObj* a = as_ndarray(b.self);
      if (a->data.size() != 1) raise("ValueError", "can only convert an array of size 1 to a Python scalar");
      return scalar_of(*a, a->data[0]);
    });
  } else if (n == "tolist") {
    *out = method(in, obj, "tolist", [](Interp&, const BuiltinObj& b, CallArgs& c) -> Value {
      detail::nargs("tolist", c, 0, 0);
      std::function<Value(const Value&)> rec = [&](const Value& v) -> Value {
        const NdArrayObj* a = as_ndarray(v);
        if (a->shape.empty()) return scalar_of(*a, a->data[0]);
        std::vector<Value> rows;
        for (auto& r : ndarray_rows(v)) rows.push_back(as_ndarray(r) ? rec(r) : r);
        return make_list(std::move(rows));
      };
      return rec(b.self);
    });
  } else {
    return false;
  }
  return true;
}

std::vector<Value> ndarray_rows(const Value& obj) {
  const NdArrayObj* a = as_ndarray(obj);
  if (a->shape.empty()) raise("TypeError", "iteration over a 0-d array");
  std::vector<Value> rows;
  const int64_t n = a->shape[0];
  const size_t inner = n ? a->data.size() / size_t(n) : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (a->shape.size() == 1) {
      rows.push_back(scalar_of(*a, a->data[size_t(i)]));
      continue;
    }
    Value r = new_ndarray(std::vector<int64_t>(a->shape.begin() + 1, a->shape.end()), a->wide, a->dtype);
    mut(r)->data.assign(a->data.begin() + long(size_t(i) * inner), a->data.begin() + long(size_t(i + 1) * inner));
    rows.push_back(r);
  }
  return rows;
}

// Basic indexing: integers and slices (one per leading axis). The selected elements' flat indices and the
// result shape.
static std::vector<size_t> select(Interp& in, const NdArrayObj& a, const Value& key, std::vector<int64_t>* out_shape) {
  std::vector<Value> keys = key.is(VK::Tuple) ? items_of(key) : std::vector<Value>{key};
  if (keys.size() > a.shape.size()) raise("IndexError", "too many indices for array");
  std::vector<size_t> flat{0};
  size_t stride_all = a.data.size();
  for (size_t d = 0; d < a.shape.size(); ++d) {
    const int64_t dim = a.shape[d];
    stride_all = dim ? stride_all / size_t(dim) : 0;
    std::vector<int64_t> picks;
    if (d < keys.size() && keys[d].is_int_like()) {
      int64_t i = keys[d].i();
      if (i < -dim || i >= dim)
        raise("IndexError", "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(d) +
                                " with size " + std::to_string(dim));
      picks.push_back(i < 0 ? i + dim : i);
    } else if (d < keys.size() && keys[d].is(VK::Slice)) {
      int64_t start, stop, step;
      int64_t n = slice_indices(in, keys[d].as<SliceObj>(), dim, &start, &stop, &step);
      for (int64_t k = 0; k < n; ++k) picks.push_back(start + k * step);
      out_shape->push_back(n);
    } else if (d < keys.size()) {
      raise("IndexError", "nki-sim's compile-time numpy supports only integer and slice indices, not '" +
                              type_name(keys[d]) + "'");
    } else {
      for (int64_t k = 0; k < dim; ++k) picks.push_back(k);
      out_shape->push_back(dim);
    }
    std::vector<size_t> next;
    next.reserve(flat.size() * picks.size());
    for (size_t f : flat)
      for (int64_t p : picks) next.push_back(f + size_t(p) * stride_all);
    flat = std::move(next);
  }
  return flat;
}

Value ndarray_get_item(Interp& in, const Value& obj, const Value& key) {
  const NdArrayObj* a = as_ndarray(obj);
  std::vector<int64_t> shape;
  std::vector<size_t> flat = select(in, *a, key, &shape);
  if (shape.empty()) return scalar_of(*a, a->data[flat[0]]);
  Value r = new_ndarray(shape, a->wide, a->dtype);
  for (size_t i = 0; i < flat.size(); ++i) mut(r)->data[i] = a->data[flat[i]];
  return r;
}

void ndarray_set_item(Interp& in, const Value& obj, const Value& key, const Value& v) {
  NdArrayObj* a = mut(obj);
  std::vector<int64_t> shape;
  std::vector<size_t> flat = select(in, *a, key, &shape);
  auto conv = [&](double x) { return a->wide == Wide::None ? round_to(x, a->dtype) : a->is_int() ? std::trunc(x) : x; };
  if (v.is_number()) {
    for (size_t f : flat) a->data[f] = conv(v.num());
    return;
  }
  Value src = to_ndarray(in, v);
  const NdArrayObj* s = as_ndarray(src);
  if (s->data.size() == 1) {
    for (size_t f : flat) a->data[f] = conv(s->data[0]);
    return;
  }
  if (s->data.size() != flat.size())
    raise("ValueError", "could not broadcast input array from shape " + shape_str(s->shape) + " into shape " + shape_str(shape));
  for (size_t i = 0; i < flat.size(); ++i) a->data[flat[i]] = conv(s->data[i]);
}

// Element-wise arithmetic with a scalar or an array of the same shape (no other broadcasting).
Value ndarray_binop(Interp& in, BinKind k, const Value& av, const Value& bv) {
  const NdArrayObj* a = as_ndarray(av);
  const NdArrayObj* b = as_ndarray(bv);
  if ((!a && !bv.is_number() && !b) || (!b && !av.is_number() && !a)) return Value();
  const NdArrayObj* like = a ? a : b;
  if (a && b && a->shape != b->shape)
    raise("ValueError", "nki-sim's compile-time numpy: operands of shapes " + shape_str(a->shape) + " and " +
                            shape_str(b->shape) + " (only equal shapes or a scalar)");
  const bool ints = (a ? a->is_int() : av.is_int_like()) && (b ? b->is_int() : bv.is_int_like());
  Wide wide = like->wide;
  if (!ints && like->is_int()) wide = Wide::F64;
  if (k == BinKind::Div) wide = like->is_int() ? Wide::F64 : wide;
  Value r = new_ndarray(like->shape, wide, like->dtype);
  auto* o = mut(r);
  for (size_t i = 0; i < o->data.size(); ++i) {
    Value x = a ? scalar_of(*a, a->data[i]) : av, y = b ? scalar_of(*b, b->data[i]) : bv;
    if (k == BinKind::Div || !ints) x = Value::floating(x.num());
    Value z = in.binop(k, x, y);
    if (!z.is_number()) raise("TypeError", "unsupported operand for ndarray: " + std::string(bin_symbol(k)));
    o->data[i] = o->wide == Wide::None ? round_to(z.num(), o->dtype) : z.num();
  }
  return r;
}

}  // namespace nkisim::frontend
