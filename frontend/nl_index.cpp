// nl_index.cpp - legacy index tiles (nki-language.md §1.2): nl.arange(n)[:, None] / [None, :], nl.mgrid[...]
// with .p/.x/.y, affine arithmetic on them, tensor[i_p, i_f] as an affine view, and masks: compile-time
// affine predicates (`<`, `<=`, `>`, `>=`, `==`, `&`, `~`) over index tiles, loop variables and program ids,
// which restrict an op to a box of its tile (one [lo, hi) range per tile axis).
#include <algorithm>
#include <climits>

#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {

std::string IndexObj::repr() const {
  std::string s = "IndexTile(";
  for (size_t i = 0; i < terms.size(); ++i)
    s += (i ? " + " : "") + std::to_string(terms[i].second) + "*i" + std::to_string(terms[i].first);
  return s + (terms.empty() ? "" : " + ") + std::to_string(constant) + ")";
}

bool is_index(const Value& v) { return v.is(VK::Other) && dynamic_cast<IndexObj*>(v.obj()); }
const ParDimObj* as_par_dim(const Value& v) {
  return v.is(VK::Other) ? dynamic_cast<const ParDimObj*>(v.obj()) : nullptr;
}
bool is_pred(const Value& v) { return v.is(VK::Other) && dynamic_cast<PredObj*>(v.obj()); }

namespace {
using Terms = std::vector<std::pair<int, int64_t>>;

int new_iter(Interp& in, int axis, int64_t extent) {
  auto& its = nl_state(in).iters;
  its.push_back(NlIter{axis, extent});
  return int(its.size()) - 1;
}

Value index_of(Terms terms, int64_t c, int rank) {
  Value v = make<IndexObj>();
  auto* o = v.as<IndexObj>();
  std::sort(terms.begin(), terms.end());
  for (auto& [id, k] : terms) {
    if (!o->terms.empty() && o->terms.back().first == id)
      o->terms.back().second += k;
    else
      o->terms.push_back({id, k});
  }
  o->terms.erase(std::remove_if(o->terms.begin(), o->terms.end(), [](auto& t) { return t.second == 0; }),
                 o->terms.end());
  o->constant = c;
  o->rank = rank;
  return v;
}

// An int or an index expression as terms + constant.
bool affine(const Value& v, Terms* t, int64_t* c, int* rank) {
  if (v.is_int_like()) {
    t->clear();
    *c = v.i();
    *rank = 0;
    return true;
  }
  if (!is_index(v)) return false;
  auto* o = v.as<IndexObj>();
  *t = o->terms;
  *c = o->constant;
  *rank = o->rank;
  return true;
}

Value pred_const(bool b) {
  Value p = make<PredObj>();
  p.as<PredObj>()->never = !b;
  return p;
}

const PredObj* as_pred(const Value& v) { return is_pred(v) ? v.as<PredObj>() : nullptr; }

using Conj = std::vector<PredObj::Cons>;
using Dnf = std::vector<Conj>;  // a disjunction of conjunctions; {} is false, {{}} is true
constexpr size_t kMaxMaskTerms = 64;

Dnf dnf_of(const PredObj* p) {
  if (p->never) return {};
  if (!p->any.empty()) return p->any;
  return {p->all};
}

// A mask from a disjunction: constant constraints are folded, a true conjunction makes the mask true.
Value pred_of(const Dnf& d) {
  Dnf out;
  for (const Conj& c : d) {
    Conj k;
    bool dead = false;
    for (const auto& x : c) {
      if (x.terms.empty()) {
        dead |= x.constant < 0;
        continue;
      }
      k.push_back(x);
    }
    if (dead) continue;
    if (k.empty()) return pred_const(true);
    out.push_back(std::move(k));
  }
  if (out.empty()) return pred_const(false);
  if (out.size() > kMaxMaskTerms)
    raise("NotImplementedError", "this mask expands to more than " + std::to_string(kMaxMaskTerms) +
                                     " alternatives; nki-sim does not support masks that large");
  Value r = make<PredObj>();
  if (out.size() == 1)
    r.as<PredObj>()->all = std::move(out[0]);
  else
    r.as<PredObj>()->any = std::move(out);
  return r;
}

Dnf dnf_and(const Dnf& a, const Dnf& b) {
  Dnf r;
  for (const Conj& x : a)
    for (const Conj& y : b) {
      Conj c = x;
      c.insert(c.end(), y.begin(), y.end());
      r.push_back(std::move(c));
      if (r.size() > kMaxMaskTerms)
        raise("NotImplementedError", "this mask expands to more than " + std::to_string(kMaxMaskTerms) +
                                         " alternatives; nki-sim does not support masks that large");
    }
  return r;
}

// not (e >= 0)  <=>  -e - 1 >= 0 over the integers
PredObj::Cons negate(PredObj::Cons c) {
  for (auto& x : c.terms) x.second = -x.second;
  c.constant = -c.constant - 1;
  return c;
}

Dnf dnf_not(const Dnf& d) {
  Dnf r = {Conj{}};  // true
  for (const Conj& c : d) {
    Dnf nc;  // not c = OR of the negated constraints
    for (const auto& x : c) nc.push_back({negate(x)});
    r = dnf_and(r, nc);
  }
  return r;
}

Dnf dnf_of_value(const Value& v) {
  if (v.is_int_like()) return v.i() ? Dnf{Conj{}} : Dnf{};
  return dnf_of(as_pred(v));
}

}  // namespace

Value index_binop(Interp& in, BinKind k, const Value& a, const Value& b) {
  Terms ta, tb;
  int64_t ca = 0, cb = 0;
  int ra = 0, rb = 0;
  if (affine(a, &ta, &ca, &ra) && affine(b, &tb, &cb, &rb)) {
    switch (k) {
      case BinKind::Add:
      case BinKind::Sub: {
        const int64_t s = k == BinKind::Add ? 1 : -1;
        for (auto& [id, x] : tb) ta.push_back({id, s * x});
        return index_of(ta, ca + s * cb, std::max(ra, rb));
      }
      case BinKind::Mul: {
        if (!ta.empty() && !tb.empty())
          raise("TypeError", "the product of two index tiles is not an affine index expression");
        Terms& t = ta.empty() ? tb : ta;
        const int64_t f = ta.empty() ? ca : cb;
        for (auto& x : t) x.second *= f;
        return index_of(t, ca * cb, std::max(ra, rb));
      }
      default:
        raise("TypeError", std::string("operator '") + bin_symbol(k) +
                               "' on index tiles is not supported (index expressions must be affine: +, -, * by an "
                               "integer)");
    }
  }
  // Masks: & and | combine predicates (and ints, as constants); ^ only with compile-time constants.
  auto check = [&](const Value& v) {
    if (!v.is_int_like() && !as_pred(v))
      raise("TypeError", std::string("unsupported operand types for ") + bin_symbol(k) + ": '" + type_name(a) +
                             "' and '" + type_name(b) + "'");
  };
  check(a);
  check(b);
  const Dnf da = dnf_of_value(a), db = dnf_of_value(b);
  if (k == BinKind::BitAnd) return pred_of(dnf_and(da, db));
  if (k == BinKind::BitOr) {
    Dnf r = da;
    r.insert(r.end(), db.begin(), db.end());
    return pred_of(r);
  }
  if (k == BinKind::BitXor) {  // (a & ~b) | (~a & b)
    Dnf r = dnf_and(da, dnf_not(db)), r2 = dnf_and(dnf_not(da), db);
    r.insert(r.end(), r2.begin(), r2.end());
    return pred_of(r);
  }
  raise("TypeError", std::string("operator '") + bin_symbol(k) + "' is not supported on masks");
}

Value index_unary(Interp& in, UnaryKind k, const Value& v) {
  if (is_index(v)) {
    auto* o = v.as<IndexObj>();
    if (k == UnaryKind::Pos) return v;
    if (k == UnaryKind::Neg) {
      Terms t = o->terms;
      for (auto& x : t) x.second = -x.second;
      return index_of(t, -o->constant, o->rank);
    }
    raise("TypeError", "operator '~' is not supported on index tiles");
  }
  auto* p = v.as<PredObj>();
  if (k != UnaryKind::Invert) raise("TypeError", "the value of a mask is not known at compile time");
  return pred_of(dnf_not(dnf_of(p)));
}

Value index_compare(Interp& in, CmpKind k, const Value& a, const Value& b) {
  Terms ta, tb;
  int64_t ca = 0, cb = 0;
  int ra = 0, rb = 0;
  if (!affine(a, &ta, &ca, &ra) || !affine(b, &tb, &cb, &rb))
    raise("TypeError", "masks compare index tiles with integers or other index tiles, not '" + type_name(a) +
                           "' and '" + type_name(b) + "'");
  // d = a - b
  for (auto& [id, x] : tb) ta.push_back({id, -x});
  Value dv = index_of(ta, ca - cb, 0);
  const Terms& d = dv.as<IndexObj>()->terms;
  const int64_t c = dv.as<IndexObj>()->constant;
  auto cons = [&](int64_t sign, int64_t add) {
    PredObj::Cons x;
    for (auto& [id, co] : d) x.terms.push_back({id, sign * co});
    x.constant = sign * c + add;
    return x;
  };
  Value r = make<PredObj>();
  auto& all = r.as<PredObj>()->all;
  switch (k) {
    case CmpKind::Lt: all.push_back(cons(-1, -1)); break;   // b - a - 1 >= 0
    case CmpKind::LtE: all.push_back(cons(-1, 0)); break;   // b - a >= 0
    case CmpKind::Gt: all.push_back(cons(1, -1)); break;    // a - b - 1 >= 0
    case CmpKind::GtE: all.push_back(cons(1, 0)); break;    // a - b >= 0
    case CmpKind::Eq:
      all.push_back(cons(1, 0));
      all.push_back(cons(-1, 0));
      break;
    case CmpKind::NotEq:
      if (d.empty()) return pred_const(c != 0);
      return pred_of({{cons(1, -1)}, {cons(-1, -1)}});  // a - b - 1 >= 0  or  b - a - 1 >= 0
    default:
      raise("TypeError", "this comparison is not supported on index tiles");
  }
  if (d.empty()) return pred_const(all[0].constant >= 0 && (all.size() < 2 || all[1].constant >= 0));
  return r;
}

namespace {
constexpr int64_t kFree = int64_t(1) << 60;  // an unrestricted axis of a Box
constexpr size_t kMaxMaskBoxes = 4096;
using Box = std::vector<std::pair<int64_t, int64_t>>;  // [lo, hi) per tile axis

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The disjoint boxes of one conjunction, appended to *out. Constraints over one iterator bound its axis;
// constraints relating several iterators are resolved by enumerating the values of the iterator on the
// outermost axis among them (consecutive values giving the same box of the other axes are merged).
void conj_boxes(const std::vector<NlIter>& iters, const Box& full, const Conj& conj, std::vector<Box>* out,
                const char* fname) {
  const size_t rank = full.size();
  Box box = full;
  Conj multi;
  for (const auto& c : conj) {
    if (c.terms.empty()) {
      if (c.constant < 0) return;
      continue;
    }
    if (c.terms.size() > 1) {
      multi.push_back(c);
      continue;
    }
    auto [id, co] = c.terms[0];
    const NlIter& it = iters[size_t(id)];
    // co * i + c >= 0
    int64_t lo = 0, hi = it.extent;
    if (co > 0)
      lo = -floor_div(c.constant, co);  // i >= ceil(-c / co)
    else
      hi = floor_div(c.constant, -co) + 1;  // i <= floor(c / -co)
    auto& b = box[size_t(it.axis)];
    b.first = std::max({b.first, lo, int64_t(0)});
    b.second = std::min({b.second, hi, it.extent});
    if (b.first >= b.second) return;
  }
  if (multi.empty()) {
    out->push_back(box);
    return;
  }
  int e = -1;
  for (const auto& c : multi)
    for (auto [id, co] : c.terms)
      if (e < 0 || iters[size_t(id)].axis < iters[size_t(e)].axis) e = id;
  const size_t ax = size_t(iters[size_t(e)].axis);
  const int64_t lo = std::max<int64_t>(box[ax].first, 0), hi = std::min(box[ax].second, iters[size_t(e)].extent);
  for (int64_t v = lo; v < hi; ++v) {
    Conj sub;
    for (const auto& c : conj) {
      if (c.terms.size() < 2) {
        sub.push_back(c);
        continue;
      }
      PredObj::Cons x;
      x.constant = c.constant;
      for (auto [id, co] : c.terms)
        if (id == e)
          x.constant += co * v;
        else
          x.terms.push_back({id, co});
      sub.push_back(std::move(x));
    }
    std::vector<Box> part;
    conj_boxes(iters, full, sub, &part, fname);
    for (Box& p : part) {
      p[ax] = {std::max(p[ax].first, v), std::min(p[ax].second, v + 1)};
      if (p[ax].first >= p[ax].second) continue;
      // merge with the box of the previous value when the other axes agree
      bool merged = false;
      for (auto it = out->rbegin(); it != out->rend() && !merged; ++it) {
        Box& q = *it;
        if (q[ax].second != v) continue;
        bool same = true;
        for (size_t k = 0; k < rank && same; ++k) same = k == ax || q[k] == p[k];
        if (same) {
          q[ax].second = v + 1;
          merged = true;
        }
      }
      if (!merged) out->push_back(p);
      if (out->size() > kMaxMaskBoxes)
        raise("NotImplementedError", std::string(fname) + ": the mask splits into more than " +
                                         std::to_string(kMaxMaskBoxes) + " boxes; nki-sim does not support it");
    }
  }
}

// a minus b, as disjoint boxes
void box_sub(Box a, const Box& b, std::vector<Box>* out) {
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].second <= b[k].first || b[k].second <= a[k].first) {
      out->push_back(a);
      return;
    }
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].first < b[k].first) {
      Box p = a;
      p[k].second = b[k].first;
      out->push_back(p);
      a[k].first = b[k].first;
    }
    if (a[k].second > b[k].second) {
      Box p = a;
      p[k].first = b[k].second;
      out->push_back(p);
      a[k].second = b[k].second;
    }
  }
}

AxisBounds to_bounds(const Box& b) {
  AxisBounds r(b.size());
  for (size_t k = 0; k < b.size(); ++k)
    if (b[k].first != -kFree || b[k].second != kFree) r[k] = b[k];
  return r;
}
}  // namespace

std::vector<AxisBounds> mask_boxes(Interp& in, const Value& mask, const char* fname) {
  if (mask.is_unbound() || mask.is_none()) return {AxisBounds{}};
  if (mask.is_int_like()) return mask.i() ? std::vector<AxisBounds>{AxisBounds{}} : std::vector<AxisBounds>{};
  const PredObj* p = as_pred(mask);
  if (!p)
    raise("TypeError", std::string(fname) + ": mask must be a predicate over index tiles such as (i_p < n), got '" +
                           type_name(mask) + "'");
  const auto& iters = nl_state(in).iters;
  const Dnf d = dnf_of(p);
  // The axes the mask mentions range over [0, extent of their iterators); the others are unrestricted.
  Box full;
  for (const Conj& c : d)
    for (const auto& x : c)
      for (auto [id, co] : x.terms) {
        const NlIter& it = iters[size_t(id)];
        if (full.size() <= size_t(it.axis)) full.resize(size_t(it.axis) + 1, {-kFree, kFree});
        auto& f = full[size_t(it.axis)];
        f = f.first == -kFree ? std::make_pair(int64_t(0), it.extent) : std::make_pair(int64_t(0), std::max(f.second, it.extent));
      }
  std::vector<Box> all;  // disjoint
  for (const Conj& c : d) {
    std::vector<Box> mine;
    conj_boxes(iters, full, c, &mine, fname);
    for (const Box& b : all) {  // keep only what earlier alternatives do not cover
      std::vector<Box> rest;
      for (const Box& m : mine) box_sub(m, b, &rest);
      mine = std::move(rest);
    }
    all.insert(all.end(), mine.begin(), mine.end());
    if (all.size() > kMaxMaskBoxes)
      raise("NotImplementedError", std::string(fname) + ": the mask splits into more than " +
                                       std::to_string(kMaxMaskBoxes) + " boxes; nki-sim does not support it");
  }
  std::vector<AxisBounds> r;
  for (const Box& b : all) r.push_back(to_bounds(b));
  return r;
}

AxisBounds mask_bounds(Interp& in, const Value& mask, bool* never, const char* fname, bool hull) {
  *never = false;
  const std::vector<AxisBounds> boxes = mask_boxes(in, mask, fname);
  if (boxes.empty()) {
    *never = true;
    return {};
  }
  if (boxes.size() == 1) return boxes[0];
  if (!hull)
    raise("NotImplementedError",
          std::string(fname) + ": this mask does not select a box (it relates two index tiles, or uses '|' or "
                               "'!='); nki-sim supports such masks on elementwise ops, loads and stores only");
  AxisBounds h = boxes[0];
  for (const AxisBounds& b : boxes) {
    for (size_t k = 0; k < h.size(); ++k) {
      if (!h[k]) continue;
      if (k >= b.size() || !b[k]) {
        h[k].reset();
        continue;
      }
      h[k]->first = std::min(h[k]->first, b[k]->first);
      h[k]->second = std::max(h[k]->second, b[k]->second);
    }
  }
  return h;
}

void widen_partition(AxisBounds& b) {
  if (!b.empty() && b[0]) b[0]->first = 0;
}

ir::View restrict_view(const ir::View& v, const AxisBounds& b) {
  ir::View r = v;
  for (size_t k = 0; k < b.size() && k < r.dims.size(); ++k) {
    if (!b[k]) continue;
    int64_t lo = std::max<int64_t>(b[k]->first, 0), hi = std::min(b[k]->second, r.dims[k].count);
    if (hi < lo) hi = lo;
    r.offset += lo * r.dims[k].stride;
    r.dims[k].count = hi - lo;
  }
  return r;
}

Value restrict_value(const Value& v, const AxisBounds& b) {
  if (!v.is(VK::Tensor) || b.empty()) return v;
  const TensorObj* t = v.as<TensorObj>();
  if (!t->valid.empty() && !t->deferred_error.empty()) {
    // A legacy slice past the tensor: in bounds when the mask keeps every dim within its valid elements.
    for (size_t k = 0; k < t->valid.size() && k < t->view.dims.size(); ++k) {
      const int64_t n = t->view.dims[k].count;
      const int64_t hi = k < b.size() && b[k] ? std::min(b[k]->second, n) : n;
      const int64_t lo = k < b.size() && b[k] ? std::max<int64_t>(b[k]->first, 0) : 0;
      if (hi > lo && hi > t->valid[k]) t->check_usable();  // raises the slice's error
    }
    return make<TensorObj>(t->id, restrict_view(t->view, b), t->kernel);
  }
  Value r = nl::view_value(t, restrict_view(t->view, b));
  if (t->indirect) {  // t[idx[i_p, 0], ...]: partitions lo..hi use rows idx[lo..hi] (kind 1)
    auto ind = std::make_shared<IndirectAp>(*t->indirect);
    if (ind->kind == 1 && b[0] && ind->offsets.is(VK::Tensor))
      ind->offsets = restrict_value(ind->offsets, AxisBounds{b[0]});
    const_cast<TensorObj*>(r.as<TensorObj>())->indirect = std::move(ind);
  }
  return r;
}

// t[key] with index tiles: element (i_0, i_1, ...) of the result is t[e_0(i), e_1(i), ...].
Value index_tensor(Interp& in, const TensorObj* t, const Value& key) {
  std::vector<Value> keys = subscript_keys(key);
  bool any = false;
  for (auto& k : keys) any |= is_index(k);
  if (!any) return Value::unbound();
  // Indirect rows: t[idx[i_p, 0], ...] with idx an integer SBUF [P, 1] tile (partition p reads row idx[p]); the
  // index tile may follow integer subscripts (t[b, idx[i_p, 0], i_f]: rows of t[b]).
  Value row_offsets;
  size_t ind_dim = 0;
  while (ind_dim < keys.size() && keys[ind_dim].is_int_like()) ++ind_dim;
  if (ind_dim == keys.size() || !keys[ind_dim].is(VK::Tensor)) ind_dim = 0;
  if (!keys.empty() && keys[ind_dim].is(VK::Tensor)) {
    const TensorObj* it = keys[ind_dim].as<TensorObj>();
    if (buffer_on_chip(t->base().buffer))
      raise("NotImplementedError", "indirect indexing of on-chip tensor '" + t->base().name +
                                       "' is not supported yet by nki-sim (only HBM tensors: nl.load(t[idx[i_p, 0], i_f]))");
    if (it->base().buffer != ir::Buffer::sbuf)
      raise("ValueError", "the row index tile of an indirect subscript must be in SBUF, but '" + it->base().name +
                              "' is in " + buffer_str(it->base().buffer));
    if (!isa::is_integer(it->view.dtype))
      raise("TypeError", "the row index tile of an indirect subscript must have an integer dtype, got " +
                             std::string(isa::dtype_name(it->view.dtype)));
    const int64_t P = it->view.partitions();
    if (it->view.num_elements() != P)
      raise("ValueError", "the row index tile of an indirect subscript must have shape (P, 1), got " +
                              shape_str(it->view.shape()));
    if (P > 128)
      raise("ValueError", "the row index tile of an indirect subscript has " + std::to_string(P) +
                              " partitions (at most 128)");
    row_offsets = keys[ind_dim];
    keys[ind_dim] = Value::integer(0);  // row 0; the offset tile moves partition p to row idx[p] at run time
  }
  const auto& iters = nl_state(in).iters;
  const ir::View& v = t->view;
  const bool on_chip = buffer_on_chip(t->base().buffer);
  if (keys.size() > v.dims.size())
    raise("IndexError", "too many indices for tensor: tensor is " + std::to_string(v.dims.size()) +
                            "-dimensional, but " + std::to_string(keys.size()) + " were indexed");
  int rank = 0;
  for (auto& k : keys) {
    if (is_index(k)) {
      rank = std::max(rank, k.as<IndexObj>()->rank);
      for (auto& [id, co] : k.as<IndexObj>()->terms) rank = std::max(rank, iters[size_t(id)].axis + 1);
    } else if (k.is(VK::Tensor)) {
      raise("NotImplementedError", "indirect indexing with a tile is supported only on the first subscript that is "
                                   "not an integer (nl.load(t[idx[i_p, 0], i_f]) or t[b, idx[i_p, 0], i_f]) by "
                                   "nki-sim");
    } else if (!k.is_int_like()) {
      raise("TypeError", "an index tile cannot be combined with '" + type_name(k) +
                             "' in one subscript; use integers and index tiles");
    }
  }
  std::vector<int> axis_iter(size_t(rank), -1);
  std::vector<int64_t> axis_stride(size_t(rank), 0);
  // Bounds: the values an index expression takes must lie in its dimension. Past the end, a legacy kernel may rely
  // on a mask= to keep the access in (as for slices, view_of_keys): when the expression is c + k * i (c >= 0, k > 0)
  // the elements i < valid are inside, and the error waits for the use (TensorObj::deferred_error); otherwise now.
  std::string oob;
  std::vector<int64_t> axis_valid(size_t(rank), INT64_MAX);
  for (size_t d = 0; d < keys.size() && d < v.dims.size(); ++d) {
    if (!is_index(keys[d]) || (d == ind_dim && row_offsets.is(VK::Tensor))) continue;
    const auto* o = keys[d].as<IndexObj>();
    int64_t lo = o->constant, hi = o->constant;
    for (auto& [id, co] : o->terms) {
      const int64_t span = co * (iters[size_t(id)].extent - 1);
      lo += std::min<int64_t>(0, span);
      hi += std::max<int64_t>(0, span);
    }
    const int64_t n = v.dims[d].count;
    if (lo >= 0 && hi < n) continue;
    const std::string what = "index tile values " + std::to_string(lo) + ".." + std::to_string(hi) +
                             " are out of bounds for dimension " + std::to_string(d) + " of size " + std::to_string(n);
    // c + k1 * i1 + k2 * i2 + ... (c >= 0, every k > 0): one term bears the mask's restriction (the one on the
    // partition axis if any: legacy masks bound the partition index, as nki-samples' maxpooling's `i_h < h_out`
    // for `in[i_h + i_kh, i_w]`), the others at their largest value.
    bool prefix = !o->terms.empty() && o->constant >= 0;
    size_t j = 0;
    for (size_t q = 0; q < o->terms.size(); ++q) {
      prefix = prefix && o->terms[q].second > 0;
      if (iters[size_t(o->terms[q].first)].axis == 0) j = q;
    }
    if (!nl::legacy(in) || !prefix) raise("IndexError", what);
    if (oob.empty()) oob = what;
    int64_t room = n - 1 - o->constant;  // what the term j may reach
    for (size_t q = 0; q < o->terms.size(); ++q)
      if (q != j) room -= o->terms[q].second * (iters[size_t(o->terms[q].first)].extent - 1);
    const int ax = iters[size_t(o->terms[j].first)].axis;
    const int64_t valid = room < 0 ? 0 : room / o->terms[j].second + 1;
    axis_valid[size_t(ax)] = std::min(axis_valid[size_t(ax)], valid);
  }
  int64_t offset = v.offset;
  for (size_t d = 0; d < keys.size(); ++d) {
    const int64_t stride = v.dims[d].stride;
    if (keys[d].is_int_like()) {
      int64_t i = keys[d].i();
      if (i < 0) i += v.dims[d].count;
      if (i < 0 || i >= v.dims[d].count)
        raise("IndexError", "index " + std::to_string(keys[d].i()) + " is out of bounds for dimension " +
                                std::to_string(d) + " of size " + std::to_string(v.dims[d].count));
      offset += i * stride;
      continue;
    }
    auto* o = keys[d].as<IndexObj>();
    offset += o->constant * stride;
    for (auto& [id, co] : o->terms) {
      const int ax = iters[size_t(id)].axis;
      if (axis_iter[size_t(ax)] >= 0 && axis_iter[size_t(ax)] != id)
        raise("IndexError", "two different index tiles run along axis " + std::to_string(ax) + " of the subscript");
      axis_iter[size_t(ax)] = id;
      axis_stride[size_t(ax)] += co * stride;
      if (on_chip && (d == 0) != (ax == 0 && co == 1))
        raise("IndexError", "the partition dimension of on-chip tensor '" + t->base().name +
                                "' must be indexed by a partition index tile (axis 0, unit step)");
    }
  }
  ir::View r;
  r.tensor = v.tensor;
  r.dtype = v.dtype;
  r.offset = offset;
  for (int ax = 0; ax < rank; ++ax) {
    ir::ViewDim dim;
    if (axis_iter[size_t(ax)] >= 0) {
      dim.count = iters[size_t(axis_iter[size_t(ax)])].extent;
      dim.stride = axis_stride[size_t(ax)];
    } else {
      dim.count = 1;
      dim.stride = ax == 0 && on_chip ? v.dims[0].stride : 0;
    }
    r.dims.push_back(dim);
  }
  for (size_t d = keys.size(); d < v.dims.size(); ++d) r.dims.push_back(v.dims[d]);  // unindexed trailing dims
  if (r.dims.size() > ir::kMaxViewDims) raise("IndexError", "too many dimensions in an indexed view");
  if (row_offsets.is(VK::Tensor)) {
    if (axis_iter[0] >= 0)
      raise("IndexError", "with an indirect row index the partition axis of the subscript comes from the index "
                          "tile; the other subscripts must not use a partition index tile");
    const TensorObj* it = row_offsets.as<TensorObj>();
    auto ind = std::make_shared<IndirectAp>();
    ind->kind = 1;
    ind->offsets = row_offsets;
    ind->row_stride = v.dims[ind_dim].stride;
    r.dims[0] = ir::ViewDim{0, it->view.partitions()};
    Value out = nl::view_value(t, r);
    const_cast<TensorObj*>(out.as<TensorObj>())->indirect = std::move(ind);
    return out;
  }
  if (oob.empty()) return nl::view_value(t, r);
  std::vector<int64_t> valid;
  for (size_t k = 0; k < r.dims.size(); ++k)
    valid.push_back(k < axis_valid.size() ? std::min(axis_valid[k], r.dims[k].count) : r.dims[k].count);
  return overhanging_view(t, r, oob, std::move(valid));
}

Value overhanging_view(const TensorObj* t, const ir::View& v, const std::string& error, std::vector<int64_t> valid) {
  Value out = make<TensorObj>(t->id, v, t->kernel);
  auto* o = const_cast<TensorObj*>(out.as<TensorObj>());
  o->deferred_error = error + " (a mask= keeping the access within the tensor would allow it)";
  o->valid = std::move(valid);
  return out;
}

namespace {

// nl.arange(start, stop=None, step=1): a 1-D index tile; [:, None] / [None, :] place it on an axis.
Value fn_arange(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"start", true}, {"stop"}, {"step"}};
  Value v[3];
  bind_args("arange", ps, 3, a, v);
  int64_t start = in.to_index(v[0], "arange() arguments"), stop, step = 1;
  if (v[1].is_unbound() || v[1].is_none()) {
    stop = start;
    start = 0;
  } else {
    stop = in.to_index(v[1], "arange() arguments");
  }
  if (!v[2].is_unbound() && !v[2].is_none()) step = in.to_index(v[2], "arange() arguments");
  if (step <= 0) raise("ValueError", "arange(): step must be positive");
  const int64_t n = stop > start ? (stop - start + step - 1) / step : 0;
  if (n <= 0) raise("ValueError", "arange(): the range is empty");
  Value r = index_of({{new_iter(in, 0, n), step}}, start, 1);
  r.as<IndexObj>()->unplaced = true;
  return r;
}

// mgrid[0:P, 0:F, ...] -> an object with .p, .x, .y (and iterable: i_p, i_f = nl.mgrid[...]).
// Bound per result: `self` of the builtin is the tuple of index tiles.
Value mgrid_iter(Interp&, const BuiltinObj& b, CallArgs&) { return b.self; }
Value mgrid_item(Interp& in, const BuiltinObj& b, CallArgs& a);

Value mgrid_getitem(Interp& in, const BuiltinObj& b, CallArgs& a) {
  const Value& key = a.npos == 2 ? a.pos[1] : a.pos[0];
  std::vector<Value> keys = key.is(VK::Tuple) ? items_of(key) : std::vector<Value>{key};
  const int rank = int(keys.size());
  std::vector<Value> items;
  for (int ax = 0; ax < rank; ++ax) {
    if (!keys[size_t(ax)].is(VK::Slice)) raise("TypeError", "mgrid[...] takes slices such as 0:128");
    auto* s = keys[size_t(ax)].as<SliceObj>();
    int64_t start = s->start.is_none() ? 0 : in.to_index(s->start, "mgrid bounds");
    if (s->stop.is_none()) raise("ValueError", "mgrid[...]: every slice needs a stop");
    int64_t stop = in.to_index(s->stop, "mgrid bounds");
    int64_t step = s->step.is_none() ? 1 : in.to_index(s->step, "mgrid step");
    if (step <= 0) raise("ValueError", "mgrid[...]: step must be positive");
    const int64_t n = stop > start ? (stop - start + step - 1) / step : 0;
    if (n <= 0) raise("ValueError", "mgrid[...]: empty range");
    items.push_back(index_of({{new_iter(in, ax, n), step}}, start, rank));
  }
  Value r = make<InstanceObj>(b.self);
  auto& attrs = r.as<InstanceObj>()->attrs;
  const char* names[] = {"p", "x", "y", "z"};
  for (int ax = 0; ax < rank && ax < 4; ++ax) attrs[intern(names[ax])] = items[size_t(ax)];
  Value tup = make_tuple(items);
  attrs[S::__iter__] = in.builtin("__iter__", mgrid_iter, tup);
  attrs[S::__getitem__] = in.builtin("__getitem__", mgrid_item, tup);
  return r;
}

Value mgrid_item(Interp& in, const BuiltinObj& b, CallArgs& a) {  // result[i]
  if (a.npos != 1) raise("TypeError", "expected one index");
  auto& items = items_of(b.self);
  int64_t i = in.to_index(a.pos[0], "mgrid index");
  if (i < 0) i += int64_t(items.size());
  if (i < 0 || i >= int64_t(items.size())) raise("IndexError", "mgrid index out of range");
  return items[size_t(i)];
}

Value builtin_class(Interp& in, const char* name) {
  Value c = make<ClassObj>(name);
  c.as<ClassObj>()->mro.push_back(c.as<ClassObj>());
  c.as<ClassObj>()->builtin = true;
  return c;
}

}  // namespace

Value mgrid_key(const Value& key) {
  if (!key.is(VK::Instance)) return key;
  const InstanceObj* o = key.as<InstanceObj>();
  if (!o->cls.is(VK::Class) || o->cls.as<ClassObj>()->name != "MGridResult") return key;
  auto it = o->attrs.find(S::__iter__);
  return it == o->attrs.end() ? key : it->second.as<BuiltinObj>()->self;  // the tuple of index tiles
}

Value index_get_item(Interp& in, const Value& obj, const Value& key) {
  auto* o = obj.as<IndexObj>();
  std::vector<Value> keys = key.is(VK::Tuple) ? items_of(key) : std::vector<Value>{key};
  if (!o->unplaced || o->terms.size() != 1)
    raise("TypeError", "only nl.arange(n) can be subscripted, as [:, None] (partition) or [None, :] (free)");
  int axis = -1;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].is_none()) continue;
    if (keys[i].is(VK::Slice) && axis < 0) {
      auto* s = keys[i].as<SliceObj>();
      if (s->start.is_none() && s->stop.is_none() && s->step.is_none()) {
        axis = int(i);
        continue;
      }
    }
    raise("TypeError", "an arange index tile is subscripted with one ':' and Nones, e.g. [:, None] or [None, :]");
  }
  if (axis < 0) raise("TypeError", "an arange index tile is subscripted with one ':' and Nones, e.g. [:, None]");
  const NlIter it = nl_state(in).iters[size_t(o->terms[0].first)];
  return index_of({{new_iter(in, axis, it.extent), o->terms[0].second}}, o->constant, int(keys.size()));
}

// nl.par_dim(n): a legacy shape marker for the partition dimension (nki-language.md §1.2).
Value fn_par_dim(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"size", true}};
  Value v[1];
  bind_args("par_dim", ps, 1, a, v);
  const int64_t n = in.to_index(v[0], "par_dim() argument");
  if (n <= 0) raise("ValueError", "par_dim(): the size must be positive, got " + std::to_string(n));
  return make<ParDimObj>(n);
}

void install_nl_index(Interp& in, ModuleObj* nl) {
  nl->globals[intern("arange")] = in.builtin("arange", fn_arange);
  nl->globals[intern("par_dim")] = in.builtin("par_dim", fn_par_dim);
  Value res = builtin_class(in, "MGridResult");
  Value mg = builtin_class(in, "mgrid");
  mg.as<ClassObj>()->set(S::__getitem__, in.builtin("__getitem__", mgrid_getitem, res));
  nl->globals[intern("mgrid")] = make<InstanceObj>(mg);
}

}  // namespace nkisim::frontend
