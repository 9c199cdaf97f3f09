// nki_isa_tensor.cpp - nki.isa bindings: Tensor Engine instructions (nc_matmul, nc_transpose) and the
// matmul_perf_mode enum. nc_matmul emits load_stationary + multiply_moving (machine.md §4); accumulate=None
// is inferred per PSUM element (docs/tensor-engine.md). Limits and dtype rules: nki-isa.md §3.1.
#include <array>
#include <map>
#include <algorithm>
#include <unordered_map>

#include "frontend/isa_bindings.h"
#include "isa/verify.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;
using isa::DType;

// ---- shapes -------------------------------------------------------------------------------------------

std::string shape_of(const TensorObj* t) { return shape_str(t->view.shape()); }
std::string pair_str(int64_t a, int64_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }
std::string dts(DType t) { return std::string(isa::dtype_name(t)); }

bool is_fp32_class(DType t) { return t == DType::float32 || t == DType::tfloat32; }

// ---- accumulate=None inference --------------------------------------------------------------------------
// Per PSUM tensor and element: was its latest write an (accumulating-capable) matmul? Kept incrementally
// over the kernel's ops (append-only while a kernel compiles), bound to the nc_matmul builtin as `self`.
// Disjoint, non-adjacent closed element ranges [first, last] (first -> last), merged as they are added.
class RangeSet {
 public:
  void add(int64_t a, int64_t b) {
    auto it = r_.upper_bound(a);
    if (it != r_.begin() && std::prev(it)->second >= a - 1) {  // touches or overlaps the range before
      --it;
      a = it->first;
    }
    while (it != r_.end() && it->first <= b + 1) {
      b = std::max(b, it->second);
      it = r_.erase(it);
    }
    r_.emplace_hint(it, a, b);
  }
  void remove(int64_t a, int64_t b) {
    auto it = r_.upper_bound(a);
    if (it != r_.begin() && std::prev(it)->second >= a) --it;
    while (it != r_.end() && it->first <= b) {
      const int64_t f = it->first, l = it->second;
      it = r_.erase(it);
      if (f < a) r_.emplace_hint(it, f, a - 1);
      if (l > b) it = r_.emplace_hint(it, b + 1, l);
    }
  }
  // Elements of [a, b] inside the set.
  int64_t count(int64_t a, int64_t b) const {
    int64_t n = 0;
    auto it = r_.upper_bound(a);
    if (it != r_.begin() && std::prev(it)->second >= a) --it;
    for (; it != r_.end() && it->first <= b; ++it) n += std::min(b, it->second) - std::max(a, it->first) + 1;
    return n;
  }
  bool empty() const { return r_.empty(); }

 private:
  std::map<int64_t, int64_t> r_;
};

struct PsumTracker : OpaqueObj {
  const ir::Kernel* kernel = nullptr;
  size_t scanned = 0;
  // Tensor id -> the elements whose latest write was a matmul (only tensors a matmul has written).
  std::unordered_map<int, RangeSet> state;
  PsumTracker() : OpaqueObj("nki-sim PSUM accumulation tracker") {}
};

// Calls f(first, last) for the base-dtype element range of every element of view v.
template <class F>
void for_each_element(const ir::View& v, const ir::Tensor& base, F&& f) {
  const int64_t vs = isa::dtype_size(v.dtype), bs = isa::dtype_size(base.dtype);
  const size_t nd = v.dims.size();
  std::array<int64_t, ir::kMaxViewDims> idx{};
  for (auto& d : v.dims)
    if (d.count <= 0) return;
  // Same element size and a unit-stride innermost dim: one call per contiguous run (the ranges of its
  // elements are consecutive and disjoint, so callers see the same elements as element by element). Outer dims
  // that step by exactly the run so far continue it (a whole dense tile is one run).
  if (vs == bs && nd > 0 && v.dims[nd - 1].stride == 1) {
    size_t outer = nd - 1;
    int64_t run = v.dims[nd - 1].count;
    while (outer > 0 && v.dims[outer - 1].stride == run) run *= v.dims[--outer].count;
    while (true) {
      int64_t e = v.offset;
      for (size_t i = 0; i < outer; ++i) e += idx[i] * v.dims[i].stride;
      f(e, e + run - 1);
      size_t i = outer;
      while (i > 0 && ++idx[i - 1] == v.dims[i - 1].count) idx[--i] = 0;
      if (i == 0) return;
    }
  }
  while (true) {
    int64_t e = v.offset;
    for (size_t i = 0; i < nd; ++i) e += idx[i] * v.dims[i].stride;
    f(e * vs / bs, (e * vs + vs - 1) / bs);
    size_t i = nd;
    while (i > 0 && ++idx[i - 1] == v.dims[i - 1].count) idx[--i] = 0;
    if (i == 0) return;
  }
}

// for_each_element with consecutive ranges merged: a whole tile is usually one call.
template <class F>
void for_each_range(const ir::View& v, const ir::Tensor& base, F&& f) {
  int64_t a = 0, b = -2;
  for_each_element(v, base, [&](int64_t x, int64_t y) {
    if (x == b + 1) {
      b = y;
      return;
    }
    if (b >= a) f(a, b);
    a = x;
    b = y;
  });
  if (b >= a) f(a, b);
}

void track_op(PsumTracker& tr, const ir::Kernel& k, const ir::Op& op) {
  const isa::InstrInfo& inf = isa::info(op.opcode);
  const bool mm = isa::has_trait(op.opcode, isa::Trait::PE_MOVE) && !op.params.transpose;
  for (int s = 0; s < inf.num_operands; ++s) {
    if (!inf.operands[s].written || !op.operands[s]) continue;
    const ir::View& v = *op.operands[s];
    const ir::Tensor& base = k.tensors[size_t(v.tensor)];
    if (base.buffer != ir::Buffer::psum) continue;
    auto found = tr.state.find(v.tensor);
    if (found == tr.state.end()) {
      if (!mm) continue;
      found = tr.state.emplace(v.tensor, RangeSet{}).first;
    }
    RangeSet& st = found->second;
    const int64_t last = base.num_elements() - 1;
    for_each_range(v, base, [&](int64_t a, int64_t b) {
      const int64_t lo = std::max<int64_t>(a, 0), hi = std::min<int64_t>(b, last);
      if (lo > hi) return;
      if (mm) st.add(lo, hi);
      else st.remove(lo, hi);
    });
  }
}

// accumulate for a matmul writing `dst`: false if no element was written by a matmul since its last other
// write, true if all were; a mix cannot be expressed by one instruction and is an error.
bool infer_accumulate(Interp& in, PsumTracker& tr, const TensorObj* dst, const char* fn) {
  const ir::Kernel& k = in.kernel;
  if (tr.kernel != &k || tr.scanned > k.ops.size()) {
    tr.kernel = &k;
    tr.scanned = 0;
    tr.state.clear();
  }
  for (; tr.scanned < k.ops.size(); ++tr.scanned) track_op(tr, k, k.ops[tr.scanned]);
  auto it = tr.state.find(dst->id);
  if (it == tr.state.end()) return false;
  size_t total = 0, written = 0;
  const RangeSet& st = it->second;
  const int64_t last = dst->base().num_elements() - 1;
  for_each_range(dst->view, dst->base(), [&](int64_t a, int64_t b) {
    const int64_t lo = std::max<int64_t>(a, 0), hi = std::min<int64_t>(b, last);
    if (lo > hi) return;
    total += size_t(hi - lo + 1);
    written += size_t(st.count(lo, hi));
  });
  if (written == 0) return false;
  if (written == total) return true;
  raise("ValueError", std::string(fn) + ": cannot infer accumulate for dst '" + dst->base().name +
                          "': " + std::to_string(written) + " of its " + std::to_string(total) +
                          " elements hold an earlier matmul result and the others do not; pass accumulate=True or "
                          "accumulate=False");
}

// ---- nc_matmul ------------------------------------------------------------------------------------------

Value isa_nc_matmul(Interp& in, const BuiltinObj& self, CallArgs& a) {
  static const ParamSpec ps[] = {
      {"dst", true},         {"stationary", true}, {"moving", true}, {"is_stationary_onezero"},
      {"is_moving_onezero"}, {"is_transpose"},     {"accumulate"},   {"tile_position"},
      {"tile_size"},         {"perf_mode"},        {"name"}};
  Value v[11];
  bind("nc_matmul", ps, a, v);
  const int ncv = in.nki->nc_version;
  OpBuilder ls(in, "nc_matmul", isa::Opcode::load_stationary);
  OpBuilder mm(in, "nc_matmul", isa::Opcode::multiply_moving);
  auto* dst = mm.operand(0, v[0], "dst");
  auto* st = ls.operand(0, v[1], "stationary");
  auto* mv = mm.operand(1, v[2], "moving");
  flag(in, v[3]);  // is_*_onezero: performance hints for FP32 operands; not modelled (docs/tensor-engine.md)
  flag(in, v[4]);
  const bool transpose = flag(in, v[5]);

  // perf_mode: nisa.matmul_perf_mode.none / .double_row (string values), or the legacy 'double_row_gen3'.
  bool dbl = false;
  if (present(v[9])) {
    if (!v[9].is(VK::Str))
      raise("TypeError",
            "nc_matmul: perf_mode must be a nki.isa.matmul_perf_mode value, got '" + type_name(v[9]) + "'");
    const std::string& pm = str_of(v[9]);
    if (pm == "double_row" || pm == "double_row_gen3")
      dbl = true;
    else if (pm != "none")
      raise("ValueError",
            "nc_matmul: perf_mode must be matmul_perf_mode.none or matmul_perf_mode.double_row, got '" + pm + "'");
  }

  // Shapes: stationary [K, M], moving [K, N], dst [M, N]; double_row: [K, 2, M] and [K, 2, N].
  const int64_t K = partitions(st), Km = partitions(mv);
  int64_t M = free_size(st), N = free_size(mv);
  ls.params().double_row = dbl;
  mm.params().double_row = dbl;
  mm.params().transpose = transpose;
  ls.emit();  // the stationary's rules (isa::verify) before the rules across the two instructions
  if (dbl) {
    for (auto [t, nm] : {std::pair{st, "stationary"}, std::pair{mv, "moving"}})
      if (t->view.dims.size() < 3 || t->view.dims[1].count != 2)
        raise("ValueError", std::string("nc_matmul: perf_mode=double_row needs ") + nm + " of shape (K, 2, " +
                                (t == st ? "M" : "N") + "), got " + shape_of(t));
    M /= 2;
    N /= 2;
  }
  matmul_shapes("nc_matmul", dst, K, Km, M, N);

  // Dtypes.
  const DType sd = st->view.dtype, md = mv->view.dtype, dd = dst->view.dtype;
  if (is_fp32_class(sd) != is_fp32_class(md))
    raise("ValueError", "nc_matmul: float32/tfloat32 inputs must pair with float32/tfloat32, got stationary " +
                            dts(sd) + " and moving " + dts(md));
  if ((sd == DType::float8_e4m3fn && md == DType::float8_e4m3) ||
      (sd == DType::float8_e4m3 && md == DType::float8_e4m3fn))
    raise("ValueError", "nc_matmul: float8_e4m3fn cannot be mixed with float8_e4m3");
  if (transpose) {
    // The transposed values in the stationary's dtype (the bit-exact 16-bit PSUM output of NC-v3+), or in
    // float32 (exact; the attention tutorial transposes bf16 into an fp32 PSUM tile): docs/compatibility.md.
    if (dd != sd && dd != DType::float32)
      raise("ValueError", "nc_matmul: with is_transpose=True dst must have the stationary's dtype " + dts(sd) +
                              " or float32, got " + dts(dd));
  }

  // PE tiling (validated; the placement does not change the numerics, see docs/tensor-engine.md).
  int64_t pos[2], size[2];
  const bool has_pos = int_pair(in, "nc_matmul", v[7], "tile_position", pos);
  const bool has_size = int_pair(in, "nc_matmul", v[8], "tile_size", size);
  if (has_pos != has_size) raise("ValueError", "nc_matmul: tile_position and tile_size must be given together");
  if (has_size) {
    for (int d = 0; d < 2; ++d) {
      const char* what = d ? "column" : "row";
      const bool ok = size[d] == 128 || size[d] == 64 || (size[d] == 32 && ncv >= 3);
      if (!ok)
        raise("ValueError", std::string("nc_matmul: tile_size ") + what + " size must be " +
                                (ncv >= 3 ? "32, 64 or 128" : "64 or 128") + ", got " + std::to_string(size[d]));
      if (pos[d] < 0 || pos[d] % size[d] || pos[d] + size[d] > 128)
        raise("ValueError", std::string("nc_matmul: tile_position ") + what + " " + std::to_string(pos[d]) +
                                " must be a multiple of the tile size " + std::to_string(size[d]) +
                                " inside the 128 x 128 PE array");
    }
    if (K > size[0] || M > size[1])
      raise("ValueError", "nc_matmul: stationary (K=" + std::to_string(K) + ", M=" + std::to_string(M) +
                              ") does not fit tile_size " + pair_str(size[0], size[1]));
    if (dbl && size[1] != 128)
      raise("ValueError", "nc_matmul: perf_mode=double_row cannot be combined with column tiling");
  }

  // accumulate: True / False, or None = inferred per PSUM element.
  bool acc;
  if (present(v[6])) {
    acc = in.truthy(v[6]);
  } else if (transpose) {
    acc = false;
  } else {
    acc = infer_accumulate(in, *self.self.as<PsumTracker>(), dst, "nc_matmul");
  }
  mm.name(v[10]);
  mm.params().accumulate = acc;
  return mm.emit();
}

// ---- nc_transpose ---------------------------------------------------------------------------------------

// Engine: engine= if given, else by the destination buffer (NKI 0.4.0+): PSUM -> Tensor, SBUF -> Vector; the
// instruction is the engine's (nc_transpose_pe or nc_transpose_ve).
void transpose_engine(Interp&, OpBuilder& b, const Value* v) {
  bool pe = v[0].as<TensorObj>()->base().buffer == ir::Buffer::psum;
  if (present(v[2])) {
    if (!v[2].is(VK::Enum) || v[2].enum_type() != EnumEngine)
      raise("TypeError", "nc_transpose: engine must be a nki.isa.engine value, got '" + type_name(v[2]) + "'");
    const int e = v[2].enum_value();
    if (e == kEngineTensor)
      pe = true;
    else if (e == kEngineVector)
      pe = false;
    else if (e != kEngineUnknown)
      raise("ValueError", std::string("nc_transpose: engine=") + enum_member_name(EnumEngine, e) +
                              " cannot execute this instruction (allowed: tensor, vector)");
  }
  if (!pe) b.op().opcode = isa::Opcode::nc_transpose_ve;
}

const Binding kTranspose{"nc_transpose", isa::Opcode::nc_transpose_pe,
                         {tensor("dst", 0), tensor("data", 1), custom("engine"), kName}, transpose_engine};

}  // namespace

Value make_psum_tracker() { return make<PsumTracker>(); }
bool infer_matmul_accumulate(Interp& in, const Value& tracker, const TensorObj* dst, const char* fn) {
  return infer_accumulate(in, *tracker.as<PsumTracker>(), dst, fn);
}

void install_nki_isa_tensor(Interp& in, ModuleObj* isa) {
  Value tracker = make<PsumTracker>();
  isa->globals[intern("nc_matmul")] = in.builtin("nc_matmul", isa_nc_matmul, tracker);
  install_binding(in, isa, kTranspose);
  if (!isa->globals.count(intern("matmul_perf_mode"))) {  // nki-isa.md §1.7: string-valued members
    Value em = make<ModuleObj>("matmul_perf_mode");
    em.as<ModuleObj>()->globals[intern("none")] = make_str("none");
    em.as<ModuleObj>()->globals[intern("double_row")] = make_str("double_row");
    isa->globals[intern("matmul_perf_mode")] = em;
  }
}

}  // namespace nkisim::frontend
