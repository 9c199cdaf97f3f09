// nki_tensor.cpp - NkiTensor attributes (shape, dtype, buffer, ...), view methods (reshape, slice, select,
// permute, broadcast, expand_dim, squeeze_dim) and indexing (ints, slices, nl.ds, ...), via ir/view.h.
#include "frontend/nki.h"
#include "ir/view.h"

namespace nkisim::frontend {

std::string TensorObj::repr() const {
  const ir::Tensor& t = base();
  return "tensor('" + t.name + "', shape=" + shape_str(view.shape()) + ", dtype=" + std::string(dtype_str(view.dtype)) +
         ", buffer=" + buffer_str(t.buffer) + ")";
}

namespace {

Value shape_tuple(const std::vector<int64_t>& s) {
  std::vector<Value> items;
  for (auto d : s) items.push_back(Value::integer(d));
  return make_tuple(std::move(items));
}

Value with_view(const TensorObj* t, ir::View v) { return make<TensorObj>(t->id, std::move(v), t->kernel); }

std::vector<int64_t> int_list(Interp& in, const Value& v, const char* what) {
  std::vector<int64_t> out;
  if (v.is_int_like()) return {v.i()};
  for (auto& x : in.to_vector(v)) out.push_back(in.to_index(x, what));
  return out;
}

int norm_dim(int64_t d, size_t nd, const char* fname) {
  if (d < 0) d += int64_t(nd);
  if (d < 0 || d >= int64_t(nd))
    raise("IndexError",
          std::string(fname) + ": dimension out of range for a " + std::to_string(nd) + "-dimensional tensor");
  return int(d);
}

Value tensor_method(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const TensorObj* t = b.self.as<TensorObj>();
  bool on_chip = buffer_on_chip(t->base().buffer);
  std::string m = b.name.substr(b.name.find('.') + 1);
  const char* fn = m.c_str();
  size_t nd = t->view.dims.size();
  if (m == "reshape") {
    std::vector<int64_t> shape;
    if (a.npos == 1 && !a.pos[0].is_int_like())
      shape = int_list(in, a.pos[0], "reshape() shape");
    else
      for (size_t i = 0; i < a.npos; ++i) shape.push_back(in.to_index(a.pos[i], "reshape() shape"));
    if (a.nkw) raise("TypeError", "reshape() takes no keyword arguments");
    return with_view(t, ir::reshape_view(t->view, shape, on_chip));
  }
  if (m == "slice") {
    static const ParamSpec ps[] = {{"dim", true}, {"start", true}, {"end", true}, {"step"}};
    Value v[4];
    bind_args("slice", ps, 4, a, v);
    int d = norm_dim(in.to_index(v[0], "slice() dim"), nd, fn);
    int64_t n = t->view.dims[d].count;
    int64_t start = in.to_index(v[1], "slice() start"), end = in.to_index(v[2], "slice() end");
    if (start < 0) start += n;
    if (end < 0) end += n;
    int64_t step = v[3].is_unbound() ? 1 : in.to_index(v[3], "slice() step");
    if (on_chip && d == 0 && step != 1)
      raise("ValueError",
            "the partition dimension cannot be sliced with a step (got step " + std::to_string(step) + ")");
    return with_view(t, ir::slice_dim(t->view, d, start, end, step));
  }
  if (m == "select") {
    static const ParamSpec ps[] = {{"dim", true}, {"index", true}};
    Value v[2];
    bind_args("select", ps, 2, a, v);
    int d = norm_dim(in.to_index(v[0], "select() dim"), nd, fn);
    if (on_chip && d == 0)
      raise("ValueError", "select: the partition dimension of an on-chip tensor cannot be selected");
    if (v[1].is(VK::Tensor)) raise("ValueError", "select: dynamic (tensor) indices are not supported yet");
    int64_t i = in.to_index(v[1], "select() index");
    if (i < 0) i += t->view.dims[d].count;
    return with_view(t, ir::select_dim(t->view, d, i));
  }
  if (m == "permute") {
    std::vector<int64_t> order;
    if (a.npos == 1 && !a.pos[0].is_int_like())
      order = int_list(in, a.pos[0], "permute() dims");
    else
      for (size_t i = 0; i < a.npos; ++i) order.push_back(in.to_index(a.pos[i], "permute() dims"));
    std::vector<int> o(order.begin(), order.end());
    return with_view(t, ir::permute_view(t->view, o, on_chip));
  }
  if (m == "broadcast") {
    static const ParamSpec ps[] = {{"dim", true}, {"size", true}};
    Value v[2];
    bind_args("broadcast", ps, 2, a, v);
    int d = norm_dim(in.to_index(v[0], "broadcast() dim"), nd, fn);
    return with_view(t, ir::broadcast_dim(t->view, d, in.to_index(v[1], "broadcast() size"), on_chip));
  }
  if (m == "expand_dim") {
    static const ParamSpec ps[] = {{"dim", true}};
    Value v[1];
    bind_args("expand_dim", ps, 1, a, v);
    int64_t d = in.to_index(v[0], "expand_dim() dim");
    if (d < 0) d += int64_t(nd) + 1;
    return with_view(t, ir::expand_dim(t->view, int(d), on_chip));
  }
  if (m == "squeeze_dim") {
    static const ParamSpec ps[] = {{"dim", true}};
    Value v[1];
    bind_args("squeeze_dim", ps, 1, a, v);
    return with_view(t, ir::squeeze_dim(t->view, norm_dim(in.to_index(v[0], "squeeze_dim() dim"), nd, fn), on_chip));
  }
  if (m == "is_contiguous") return Value::boolean(ir::is_contiguous(t->view));
  raise("AttributeError", "'NkiTensor' object has no attribute '" + m + "'");
}

}  // namespace

bool nki_attr(Interp& in, const Value& obj, Sym name, Value* out) {
  std::string_view n = sym_name(name);
  switch (obj.kind()) {
    case VK::Tensor: {
      const TensorObj* t = obj.as<TensorObj>();
      if (name == S::shape) {
        *out = shape_tuple(t->view.shape());
        return true;
      }
      if (name == S::dtype) {
        *out = Value::dtype(t->view.dtype);
        return true;
      }
      if (name == S::buffer) {
        *out = Value::buffer(t->base().buffer);
        return true;
      }
      if (name == S::ndim) {
        *out = Value::integer(int64_t(t->view.dims.size()));
        return true;
      }
      if (name == S::size) {
        *out = Value::integer(t->view.num_elements());
        return true;
      }
      if (name == S::name) {
        *out = make_str(t->base().name);
        return true;
      }
      if (n == "offset") {
        *out = Value::integer(t->view.offset);
        return true;
      }
      if (n == "strides") {
        std::vector<int64_t> s;
        for (auto& d : t->view.dims) s.push_back(d.stride);
        *out = shape_tuple(s);
        return true;
      }
      for (const char* m :
           {"reshape", "slice", "select", "permute", "broadcast", "expand_dim", "squeeze_dim", "is_contiguous"})
        if (n == m) {
          *out = in.builtin((std::string("NkiTensor.") + m).c_str(), tensor_method, obj);
          return true;
        }
      return false;
    }
    case VK::Enum:
      if (name == S::name) {
        *out = make_str(enum_member_name(obj.enum_type(), obj.enum_value()));
        return true;
      }
      if (name == S::value) {
        *out = Value::integer(obj.enum_value());
        return true;
      }
      return false;
    case VK::NkiOp:
      if (name == S::__name__) {
        *out = make_str(nki_ops()[obj.nki_op_index()].name);
        return true;
      }
      return false;
    case VK::DType:
      if (name == S::name || name == S::__name__) {
        *out = make_str(std::string(dtype_str(obj.dtype_v())));
        return true;
      }
      return false;
    default:
      return false;
  }
}

namespace {

void add_key(Interp& in, std::vector<ir::IndexKey>& keys, const Value& k) {
  {
    switch (k.kind()) {
      case VK::Int:
      case VK::Bool:
        keys.push_back(ir::IndexKey::at(k.i()));
        return;
      case VK::Ellipsis:
        keys.push_back(ir::IndexKey::all());
        return;
      case VK::Slice: {
        auto* s = k.as<SliceObj>();
        auto bound = [&](const Value& b) -> std::optional<int64_t> {
          if (b.is_none()) return std::nullopt;
          return in.to_index(b, "tensor slice bounds");
        };
        int64_t step = s->step.is_none() ? 1 : in.to_index(s->step, "tensor slice step");
        keys.push_back(ir::IndexKey::range(bound(s->start), bound(s->stop), step));
        return;
      }
      case VK::Tensor:
        raise("TypeError", "indexing a tensor with a tensor is not supported; use .ap() or .select()");
      case VK::None:
        raise("TypeError", "None (newaxis) is not supported in tensor indexing; use .expand_dim()");
      default:
        raise("TypeError", "tensor indices must be integers, slices, nl.ds(...) or '...', not '" + type_name(k) + "'");
    }
  }
}

void add_key_expr(Interp& in, std::vector<ir::IndexKey>& keys, const Expr* e, FrameObj* f) {
  if (e->kind != NK::Slice) return add_key(in, keys, in.eval(e, f));
  auto* s = static_cast<const SliceExpr*>(e);
  auto bound = [&](const Expr* b) -> std::optional<int64_t> {
    if (!b) return std::nullopt;
    Value v = in.eval(b, f);
    if (v.is_none()) return std::nullopt;
    return in.to_index(v, "tensor slice bounds");
  };
  std::optional<int64_t> lo = bound(s->lower), hi = bound(s->upper), st = bound(s->step);
  keys.push_back(ir::IndexKey::range(lo, hi, st ? *st : 1));
}

}  // namespace

Value nki_get_item(Interp& in, const Value& obj, const Value& key) {
  const TensorObj* t = obj.as<TensorObj>();
  std::vector<ir::IndexKey> keys;
  if (key.is(VK::Tuple))
    for (auto& k : items_of(key)) add_key(in, keys, k);
  else
    add_key(in, keys, key);
  return make<TensorObj>(t->id, ir::index_view(t->view, buffer_on_chip(t->base().buffer), keys), t->kernel);
}

Value nki_index_literal(Interp& in, const Value& obj, const Expr* key, FrameObj* f) {
  const TensorObj* t = obj.as<TensorObj>();
  std::vector<ir::IndexKey> keys;
  if (key->kind == NK::Tuple) {
    auto& elts = static_cast<const SeqExpr*>(key)->elts;
    keys.reserve(elts.size());
    for (const Expr* e : elts) {
      if (e->kind == NK::Starred) return nki_get_item(in, obj, in.eval(key, f));
      add_key_expr(in, keys, e, f);
    }
  } else {
    add_key_expr(in, keys, key, f);
  }
  return make<TensorObj>(t->id, ir::index_view(t->view, buffer_on_chip(t->base().buffer), keys), t->kernel);
}

}  // namespace nkisim::frontend
