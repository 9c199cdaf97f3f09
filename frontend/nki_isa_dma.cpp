// nki_isa_dma.cpp - nki.isa DMA instructions (nki-isa.md §3.5): dma_copy, dma_transpose, dma_compute, with
// the DGE mode rules (dge_mode / engine=), oob_mode and indirect access patterns made by
// `.ap(vector_offset=..., scalar_offset=...)` (nki-language.md §5).
#include <algorithm>
#include <climits>

#include "frontend/isa_bindings.h"
#include "ir/view.h"
#include "isa/cost.h"

namespace nkisim::frontend {
namespace {
using namespace isa_binding;

constexpr int kDgeUnknown = int(isa::DgeMode::unknown), kDgeSwdge = int(isa::DgeMode::swdge),
              kDgeHwdge = int(isa::DgeMode::hwdge), kDgeNone = int(isa::DgeMode::none);
// dge_mode.unknown in an nki.jit kernel is left to the Neuron compiler of NKI 0.3+: DgeMode::unknown_nki (timed by
// the target's dma_dge_mode_nki, hardware DGE on trn2 and later; isa/target.cpp); legacy kernels keep unknown.
int unknown_dge(const Interp& in) { return int(in.nki->current_api ? isa::DgeMode::unknown_nki : isa::DgeMode::unknown); }

int enum_value_or(const Value& v, int def) { return present(v) && v.is(VK::Enum) ? int(v.enum_value()) : def; }

// The indirection of one instruction: at most one offsets tensor, shared by every indirect operand.
struct Indirection {
  const IndirectAp* ap = nullptr;
  const TensorObj* base_of = nullptr;  // an indirect operand (its base tensor is the one addressed)
  uint16_t slots = 0;
};

// A vector_offset tile with several columns ((128, C), C > 1; .ap() accepts it): only dma_transpose reads it.
bool multi_column_offsets(const IndirectAp& ap) {
  if (ap.kind != 1) return false;
  const TensorObj* o = ap.offsets.as<TensorObj>();
  return !o->view.dims.empty() && o->view.num_elements() != o->view.dims[0].count;
}

void note_indirect(Indirection& ind, const TensorObj* t, int slot, const char* fname) {
  if (!t->indirect) return;
  if (multi_column_offsets(*t->indirect) && std::string(fname) != "dma_transpose")
    raise("ValueError", std::string(fname) + ": a vector_offset with several columns (shape " +
                            shape_str(t->indirect->offsets.as<TensorObj>()->view.shape()) +
                            ") is only supported by dma_transpose; use one row index per partition (shape (" +
                            std::to_string(t->view.partitions()) + ", 1))");
  if (ind.ap) {
    bool same = ind.ap->kind == t->indirect->kind && ind.ap->row_stride == t->indirect->row_stride &&
                ind.base_of->id == t->id;
    if (same && ind.ap->kind == 3) {
      same = ind.ap->reg == t->indirect->reg;
    } else if (same) {
      const TensorObj* a = ind.ap->offsets.as<TensorObj>();
      const TensorObj* b = t->indirect->offsets.as<TensorObj>();
      same = a->id == b->id && a->view.offset == b->view.offset;
    }
    if (!same)
      raise("ValueError", std::string(fname) +
                              ": indirect operands must address the same tensor with the same offsets");
  }
  ind.ap = t->indirect.get();
  ind.base_of = t;
  ind.slots |= uint16_t(1u << slot);
}

// Puts the offsets tile in slot `idx`, the whole base tensor in slot `base` and the ind_* parameters.
void emit_indirection(OpBuilder& b, const Indirection& ind, int idx, int base, const char* fname) {
  if (!ind.ap) return;
  const TensorObj* t = ind.base_of;
  const ir::Tensor& bt = t->base();
  const int64_t es = isa::dtype_size(t->view.dtype);
  const int64_t size = bt.num_elements() * isa::dtype_size(bt.dtype) / es;
  if (size > INT32_MAX || ind.ap->row_stride > INT32_MAX || t->view.offset > INT32_MAX)
    raise("ValueError", std::string(fname) + ": an indirect access into '" + bt.name +
                            "' with more than 2^31 elements is not supported");
  if (ind.ap->kind != 3) b.operand(idx, ind.ap->offsets, ind.ap->kind == 1 ? "vector_offset" : "scalar_offset");
  b.op().operands[size_t(base)] = ir::full_view(bt, t->id);
  isa::InstrParams& p = b.params();
  if (ind.ap->kind == 3) p.rs0 = uint16_t(ind.ap->reg);  // the register holding the scalar_offset
  p.ind_kind = ind.ap->kind;
  p.ind_opnds = ind.slots;
  p.ind_stride = int32_t(ind.ap->row_stride);
  p.ind_before = int32_t(t->view.offset);
  p.ind_size = int32_t(size);
}

// dge_mode / engine= / oob_mode rules shared by dma_copy and dma_compute (nki-isa.md §3.5, DGE):
// hwdge is trn2+, triggered by Sync or Scalar (engine=); swdge descriptors are built on GpSimd (the trigger
// moves there); a vector_offset needs swdge (unknown picks it for any indirect access); a scalar_offset is
// allowed in every mode (the DGE deep-dive's table: docs/compatibility.md).
void dge_rules(Interp& in, OpBuilder& b, const char* fname, const Value& dge_v, const Value& oob_v, bool indirect,
               bool vector_offset) {
  int dge = enum_value_or(dge_v, kDgeUnknown);
  const std::optional<isa::Engine> eng = b.op().engine;
  const std::string f(fname);
  b.params().oob_skip = enum_value_or(oob_v, 0) == 1;  // with indirection only: isa::verify
  if (dge == kDgeHwdge) {  // the trigger engine and the offsets each mode takes: isa::verify
    if (!eng) b.op().engine = isa::Engine::Sync;
  } else if (dge == kDgeSwdge) {
    if (!eng) b.op().engine = isa::Engine::GpSimd;
  } else if (dge == kDgeNone) {  // the API's engine= picks a hwdge trigger; lowering may trigger from any engine
    if (eng && *eng != isa::Engine::Sync)
      raise("ValueError", f + ": engine=engine." + std::string(isa::engine_name(*eng)) +
                              " selects a hardware DGE trigger and needs dge_mode.hwdge");
  } else if (indirect) {  // unknown: software DGE is the only mode with indirection
    dge = kDgeSwdge;
    if (!eng) b.op().engine = isa::Engine::GpSimd;
  } else {
    dge = unknown_dge(in);
  }
  b.params().dge_mode = uint16_t(dge);
}

void check_priority(const Value& v, const char* fname) {
  if (present(v) && (!v.is_int_like() || v.i() < 0 || v.i() > 3))
    raise("ValueError", std::string(fname) + ": priority must be 0, 1, 2 or 3");
}

void dma_copy_modes(Interp& in, OpBuilder& b, const Value* v) {
  const TensorObj *dst = v[0].as<TensorObj>(), *src = v[1].as<TensorObj>();
  check_priority(v[2], "dma_copy");
  const Value oob = b.enum_arg(v[3], EnumOobMode, "oob_mode"), dge = b.enum_arg(v[4], EnumDgeMode, "dge_mode");
  Indirection ind;
  note_indirect(ind, dst, 0, "dma_copy");
  note_indirect(ind, src, 1, "dma_copy");
  if (dst->indirect && src->indirect) raise("ValueError", "dma_copy: only one of dst and src can be indirect");
  dge_rules(in, b, "dma_copy", dge, oob, ind.ap != nullptr, ind.ap && ind.ap->kind == 1);
  emit_indirection(b, ind, 2, 3, "dma_copy");
}

const Binding kDmaCopy{"dma_copy", isa::Opcode::dma_copy,
                       {tensor("dst", 0), tensor("src", 1), custom("priority"), custom("oob_mode"),
                        custom("dge_mode"), kEngine, kName},
                       dma_copy_modes};

std::string axes_str(const std::vector<int64_t>& axes) {
  std::string s = "(";
  for (size_t i = 0; i < axes.size(); ++i) s += (i ? ", " : "") + std::to_string(axes[i]);
  return s + (axes.size() == 1 ? ",)" : ")");
}

// The indirect form (nki-isa.md §3.5; trn2+, software DGE): a 2D, 3D or 4D HBM src of a 2-byte dtype whose dim 0
// is gathered (row j = the block src[idx[j]]), src.shape[0] a multiple of 16 in [16, 128] (one uint32 row index
// per partition of the indices), src.shape[-1] <= 128; a 4D src needs shape[1] or shape[2] == 1. The permutation
// is the direct form's: (1, 0), (2, 1, 0) or (3, 1, 2, 0), i.e. dst = src[idx].T.
void dma_transpose_indirect(OpBuilder& b, const TensorObj* src, int dge, bool skip) {
  const std::vector<int64_t> ss = src->view.shape();
  if (dge == kDgeHwdge || dge == kDgeNone)
    raise("ValueError", std::string("dma_transpose: an indirect src needs software DGE (dge_mode.swdge or unknown), not "
                                    "dge_mode.") + (dge == kDgeHwdge ? "hwdge" : "none"));
  const size_t n = ss.size();  // 2 to 4 (checked with the axes by the caller); the shape rules: isa::verify
  Indirection ind;
  note_indirect(ind, src, 1, "dma_transpose");
  if (skip) b.params().oob_skip = true;
  isa::InstrParams& p = b.params();
  p.axes = n == 2 ? 10 : n == 3 ? 210 : 3120;
  uint16_t* tdims[4] = {&p.tdim0, &p.tdim1, &p.tdim2, &p.tdim3};
  for (size_t k = 0; k < n; ++k) *tdims[k] = uint16_t(ss[k]);
  p.dge_mode = uint16_t(kDgeSwdge);
  b.op().engine = isa::Engine::GpSimd;
  emit_indirection(b, ind, 2, 3, "dma_transpose");
}

void dma_transpose_form(Interp& in, OpBuilder& b, const Value* v) {
  const TensorObj *dst = v[0].as<TensorObj>(), *src = v[1].as<TensorObj>();
  check_priority(v[3], "dma_transpose");
  const Value dge_v = b.enum_arg(v[4], EnumDgeMode, "dge_mode"), oob_v = b.enum_arg(v[5], EnumOobMode, "oob_mode");
  const std::vector<int64_t> ss = src->view.shape(), ds = dst->view.shape();
  const size_t n = ss.size();
  static const std::vector<int64_t> kAllowed[3] = {{1, 0}, {2, 1, 0}, {3, 1, 2, 0}};
  std::vector<int64_t> axes;
  if (present(v[2])) {
    for (auto& x : in.to_vector(v[2])) axes.push_back(in.to_index(x, "dma_transpose() axes"));
  } else if (n >= 2 && n <= 4) {
    axes = kAllowed[n - 2];
  }
  if (n < 2 || n > 4 || axes != kAllowed[n - 2])
    raise("ValueError", "dma_transpose: axes must be (1, 0) for a 2D src, (2, 1, 0) for 3D or (3, 1, 2, 0) for 4D; got " +
                            (present(v[2]) ? axes_str(axes) : std::string("None")) + " for src of shape " + shape_str(ss));
  std::vector<int64_t> want;
  for (int64_t ax : axes) want.push_back(ss[size_t(ax)]);
  if (ds != want)
    raise("ValueError", "dma_transpose: dst has shape " + shape_str(ds) + " but src of shape " + shape_str(ss) +
                            " transposed by " + axes_str(axes) + " has shape " + shape_str(want));
  if (dst->indirect) raise("ValueError", "dma_transpose: dst cannot be indirect; only src takes an indirect access pattern");
  // src's dims go into the 16-bit fields tdim0..tdim3: a larger one cannot be encoded (the binding's, as it fills them).
  for (int64_t d : ss)
    if (d > 65535)
      raise("ValueError", "dma_transpose: src dimensions must be at most 65535, got src of shape " + shape_str(ss));
  const int dge = enum_value_or(dge_v, kDgeUnknown);
  if (src->indirect) return dma_transpose_indirect(b, src, dge, enum_value_or(oob_v, 0) == 1);
  if (dge == kDgeSwdge)
    raise("ValueError", "dma_transpose: dge_mode.swdge is the indirect form; src needs .ap() with vector_offset or "
                        "scalar_offset");
  // dge_mode.none (host-built descriptors): the API page lists unknown and hwdge only, but the DGE deep-dive's
  // table lists none for a static dma_transpose and nki-library's mlp_tkg uses it (docs/compatibility.md).
  // Direct-form shape rules (nki-isa.md §3.5, NKI 0.6.0): the docs give them for dge_mode.hwdge (the hardware
  // DGE transpose, isa::verify); with dge_mode.unknown the compiler picks how to lower it, so only the permutation
  // and the 16-bit dimension encoding apply (docs/compatibility.md).
  isa::InstrParams& p = b.params();
  p.oob_skip = enum_value_or(oob_v, 0) == 1;  // with an indirect src only: isa::verify
  uint16_t code = 0;
  for (int64_t ax : axes) code = uint16_t(code * 10 + ax);
  p.axes = code;
  uint16_t* tdims[4] = {&p.tdim0, &p.tdim1, &p.tdim2, &p.tdim3};
  for (size_t k = 0; k < n; ++k) *tdims[k] = uint16_t(ss[k]);
  if (dge == kDgeHwdge) b.op().engine = isa::Engine::Sync;
  p.dge_mode = uint16_t(dge == kDgeUnknown ? unknown_dge(in) : dge);
}

const Binding kDmaTranspose{"dma_transpose", isa::Opcode::dma_transpose,
                            {tensor("dst", 0), tensor("src", 1), custom("axes"), custom("priority"),
                             custom("dge_mode"), custom("oob_mode"), kName},
                            dma_transpose_form};

// dma_compute with more than 3 sources: chained instructions accumulating in fp32 (the DMA engines sum
// in fp32, so rounding the running sum to fp32 between instructions changes nothing), through a private
// HBM fp32 temporary unless dst is itself fp32 and no later source aliases it.
Value isa_dma_compute(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"srcs", true}, {"reduce_op", true}, {"scales"},
                                 {"unique_indices"}, {"oob_mode"}, {"name"}};
  Value v[7];
  bind("dma_compute", ps, a, v);
  const char* fn = "dma_compute";
  if (!v[1].is(VK::List) && !v[1].is(VK::Tuple))
    raise("TypeError", "dma_compute: srcs must be a list of tensors, got '" + type_name(v[1]) + "'");
  std::vector<Value> srcs = in.to_vector(v[1]);
  if (srcs.size() < 2 || srcs.size() > 16)
    raise("ValueError", "dma_compute: srcs must hold 2 to 16 tensors, got " + std::to_string(srcs.size()));
  {
    OpBuilder probe(in, fn, isa::Opcode::dma_compute);
    if (probe.alu(v[2], "reduce_op") != isa::AluOp::add)
      raise("ValueError", "dma_compute: reduce_op must be nl.add (the only reduction of the DMA engines), got " + in.repr(v[2]));
  }
  if (present(v[3])) {
    std::vector<Value> scales = in.to_vector(v[3]);
    if (scales.size() != srcs.size())
      raise("ValueError", "dma_compute: scales has " + std::to_string(scales.size()) + " entries but srcs has " +
                              std::to_string(srcs.size()));
    for (size_t k = 0; k < scales.size(); ++k)
      if (!scales[k].is_number() || scales[k].num() != 1.0)
        raise("ValueError", "dma_compute: scales must all be 1.0, got scales[" + std::to_string(k) + "] = " + in.repr(scales[k]));
  }
  // unique_indices=False: the indirect rows are applied one at a time in partition order, so duplicate
  // indices accumulate (a static dma_compute has no indices and ignores it).
  const bool dup_idx = present(v[4]) && !in.truthy(v[4]);
  // Operand checks on the whole call first.
  OpBuilder head(in, fn, isa::Opcode::dma_compute);
  head.allow_indirect();
  const TensorObj* dst = head.operand(0, v[0], "dst");
  std::vector<const TensorObj*> st;
  Indirection ind;
  note_indirect(ind, dst, 0, fn);
  for (size_t k = 0; k < srcs.size(); ++k) {
    const std::string nm = "srcs[" + std::to_string(k) + "]";
    const TensorObj* t = head.operand(1, srcs[k], nm.c_str());  // element counts and rows: isa::verify
    if (t->indirect) {
      if (srcs.size() != 2) raise("ValueError", "dma_compute: an indirect dma_compute takes exactly 2 sources, got " + std::to_string(srcs.size()));
      if (k != 0 && dst->indirect)
        raise("ValueError", "dma_compute: with an indirect dst (scatter-add) the indirect source must be srcs[0]");
    }
    st.push_back(t);
  }
  if (ind.ap || std::any_of(st.begin(), st.end(), [](auto* t) { return t->indirect != nullptr; })) {
    OpBuilder b(in, fn, isa::Opcode::dma_compute);
    b.allow_indirect();
    Indirection ii;
    b.operand(0, v[0], "dst");
    note_indirect(ii, dst, 0, fn);
    for (int k = 0; k < 2; ++k) {
      b.operand(1 + k, srcs[size_t(k)], k ? "srcs[1]" : "srcs[0]");
      note_indirect(ii, st[size_t(k)], 1 + k, fn);
    }
    if (dst->indirect && !st[0]->indirect)
      raise("ValueError", "dma_compute: a scatter-add (indirect dst) reads dst through srcs[0]: srcs[0] must be the same indirect access");
    dge_rules(in, b, fn, Value(), v[5], true, true);
    emit_indirection(b, ii, 4, 5, fn);
    b.params().dup_idx = dup_idx;
    b.name(v[6]);
    return b.emit();
  }
  // Static form: groups of up to 3 sources.
  const bool direct = dst->view.dtype == isa::DType::float32 &&
                      std::none_of(st.begin() + std::min<size_t>(3, st.size()), st.end(),
                                   [&](auto* t) { return t->id == dst->id; });
  Value acc = v[0];
  if (srcs.size() > 3 && !direct) {
    ir::Tensor tmp;
    tmp.name = "dma_compute_acc" + std::to_string(in.kernel.tensors.size());
    tmp.dtype = isa::DType::float32;
    tmp.shape = {dst->view.num_elements()};
    tmp.buffer = ir::Buffer::hbm;
    tmp.loc = in.loc_of(in.current_site());
    const int id = in.kernel.add_tensor(tmp);
    acc = make<TensorObj>(id, in.kernel.full_view(id), &in.kernel);
  }
  size_t k = 0;
  bool first = true;
  while (k < srcs.size()) {
    const size_t left = srcs.size() - k;
    const bool last = left <= (first ? 3u : 2u);
    OpBuilder b(in, fn, isa::Opcode::dma_compute);
    b.operand(0, last ? v[0] : acc, "dst");
    int slot = 1;
    if (!first) b.operand(slot++, acc, "dst");
    while (slot <= 3 && k < srcs.size()) {
      const std::string nm = "srcs[" + std::to_string(k) + "]";
      b.operand(slot++, srcs[k++], nm.c_str());
    }
    dge_rules(in, b, fn, Value(), v[5], false, false);
    b.name(v[6]);
    b.emit();
    first = false;
  }
  return Value();
}

}  // namespace

void install_nki_isa_dma(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  install_binding(in, isa, kDmaCopy);
  install_binding(in, isa, kDmaTranspose);
  def("dma_compute", isa_dma_compute);
}

}  // namespace nkisim::frontend
