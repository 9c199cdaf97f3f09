// reuse.cpp - recomputation removal (loop-invariant code motion for unrolled loops): an element-wise op that
// computes into a fresh tile exactly what an earlier op computed from the same, unchanged inputs is dropped,
// and its tile is replaced by the earlier op's tile. docs/cost-model.md, "Whole kernels".
#include <map>
#include <tuple>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

bool pure_elementwise(const Op& op) {
  return isa::has_trait(op.opcode, isa::Trait::REUSE) && op.ctl == Ctl::none && op.dynamic.empty() && op.params.reduce_cmd == isa::ReduceCmd::idle &&
         !op.params.accumulate;
}

bool same_view(const View& a, const View& b) {
  return a.tensor == b.tensor && a.dtype == b.dtype && a.offset == b.offset && a.dims == b.dims;
}

// Ops are equal computations when opcode, engine, parameters and every operand but the destination match.
bool same_computation(const Op& a, const Op& b) {
  if (a.opcode != b.opcode || a.engine != b.engine || !(a.params == b.params)) return false;
  const isa::InstrInfo& in = isa::info(a.opcode);
  for (int s = 0; s < in.num_operands; ++s) {
    const auto& x = a.operands[size_t(s)];
    const auto& y = b.operands[size_t(s)];
    if (in.operands[s].written) {
      if (!x || !y || x->dtype != y->dtype || x->dims != y->dims) return false;
      continue;
    }
    if (x.has_value() != y.has_value() || (x && !same_view(*x, *y))) return false;
  }
  return true;
}

}  // namespace

std::optional<Kernel> reuse_recomputations(const Kernel& k) {
  const size_t n = k.ops.size();
  // An element-wise op at top level writing a fresh tile: a candidate (below) when its destination, renamed, is.
  auto may_drop = [&](const Op& op, int depth) {
    const isa::InstrInfo& in = isa::info(op.opcode);
    return depth == 0 && pure_elementwise(op) && in.num_operands > 0 && in.operands[0].written && op.operands[0];
  };
  // Tensors written by more than one op (or by an op with run-time offsets) are never candidates.
  std::vector<int> writes(k.tensors.size(), 0);
  std::vector<uint32_t> maybe;  // the ops may_drop allows, found in the same pass
  for (int depth = 0; const Op& op : k.ops) {
    const isa::InstrInfo& in = isa::info(op.opcode);
    for (int s = 0; s < in.num_operands; ++s)  // (the written slots only: fewer of the op's bytes read)
      if (in.operands[s].written && op.operands[size_t(s)] && op.operands[size_t(s)]->tensor >= 0)
        writes[size_t(op.operands[size_t(s)]->tensor)] += op.dynamic.empty() ? 1 : 2;
    depth += (op.ctl == Ctl::loop_begin) - (op.ctl == Ctl::loop_end);
    if (may_drop(op, depth)) maybe.push_back(uint32_t(&op - k.ops.data()));
  }
  auto fresh_tile = [&](const View& v) {
    return auto_allocated(k.tensors[size_t(v.tensor)]) && writes[size_t(v.tensor)] == 1 && k.is_whole(v);
  };
  // A drop needs two candidates. Renaming never changes a candidate's destination (a renamed tile's one writer is
  // the dropped op), so they are counted first: most kernels have none.
  size_t candidates = 0;
  for (uint32_t j : maybe) candidates += fresh_tile(*k.ops[j].operands[0]);
  if (candidates < 2) return std::nullopt;

  std::vector<int> rename(k.tensors.size(), -1);
  auto renamed = [&](int t) { return t >= 0 && rename[size_t(t)] >= 0 ? rename[size_t(t)] : t; };
  std::vector<int64_t> last_write(k.tensors.size(), -1);
  std::vector<char> drop(n, 0);
  // Earlier computations by opcode and first source tensor, for a short scan.
  std::map<std::tuple<int, int>, std::vector<size_t>> seen;
  std::vector<Op> ops;  // the candidates' operands after renaming (only those are compared)
  std::vector<size_t> op_slot(n, SIZE_MAX);
  int depth = 0;
  bool any = false;
  for (size_t j = 0; j < n; ++j) {
    const Op& orig = k.ops[j];
    if (orig.ctl == Ctl::loop_begin) ++depth;
    if (orig.ctl == Ctl::loop_end) --depth;
    const isa::InstrInfo& in = isa::info(orig.opcode);
    const bool maybe = may_drop(orig, depth);
    View dst;
    if (maybe) {
      dst = *orig.operands[0];
      dst.tensor = renamed(dst.tensor);
    }
    if (maybe && fresh_tile(dst)) {  // a candidate: a copy with the renamed operands
      Op op = orig;
      for (auto& v : op.operands)
        if (v) v->tensor = renamed(v->tensor);
      int first_src = -1;
      for (int s = 1; s < in.num_operands && first_src < 0; ++s)
        if (op.operands[size_t(s)]) first_src = op.operands[size_t(s)]->tensor;
      auto& list = seen[{int(op.opcode), first_src}];
      for (auto it = list.rbegin(); it != list.rend() && !drop[j]; ++it) {
        const Op& prev = ops[op_slot[*it]];
        if (!same_computation(prev, op)) continue;
        const int ti = prev.operands[0]->tensor, tj = op.operands[0]->tensor;
        const Tensor &a = k.tensors[size_t(ti)], &b = k.tensors[size_t(tj)];
        if (a.buffer != b.buffer || a.dtype != b.dtype || a.shape != b.shape) continue;
        bool unchanged = true;  // no source was written since the earlier op
        for (int s = 1; s < in.num_operands && unchanged; ++s)
          if (op.operands[size_t(s)] && op.operands[size_t(s)]->tensor >= 0)
            unchanged = last_write[size_t(op.operands[size_t(s)]->tensor)] < int64_t(*it);
        if (!unchanged) continue;
        drop[j] = 1;
        rename[size_t(tj)] = ti;
        any = true;
      }
      if (!drop[j]) {
        op_slot[j] = ops.size();
        ops.push_back(std::move(op));
        list.push_back(j);
      }
    }
    if (drop[j]) continue;
    auto wrote = [&](const std::optional<View>& v) {  // the tensor of operand v, renamed
      const int t = v ? renamed(v->tensor) : -1;
      if (t >= 0) last_write[size_t(t)] = int64_t(j);
    };
    for (int s = 0; s < in.num_operands; ++s)
      if (in.operands[s].written) wrote(orig.operands[size_t(s)]);
    for (const DynOperand& d : orig.dynamic) wrote(orig.operands[size_t(d.slot)]);  // conservatively: the whole base tensor
  }
  if (!any) return std::nullopt;
  // Renaming applies after the dropped op only (a read before it, of a never-written tile, stays as it is).
  std::vector<size_t> dropped_at(k.tensors.size(), SIZE_MAX);
  for (size_t j = 0; j < n; ++j)
    if (drop[j]) dropped_at[size_t(k.ops[j].operands[0]->tensor)] = j;
  auto renamed_at = [&](int t, size_t j) {
    return t >= 0 && rename[size_t(t)] >= 0 && j > dropped_at[size_t(t)] ? rename[size_t(t)] : t;
  };
  Kernel out = k;
  out.ops.clear();
  out.ops.reserve(n);
  for (size_t j = 0; j < n; ++j) {
    if (drop[j]) continue;
    Op op = k.ops[j];
    for (auto& v : op.operands)
      if (v) v->tensor = renamed_at(v->tensor, j);
    for (DynOperand& d : op.dynamic)
      if (d.offsets) d.offsets->tensor = renamed_at(d.offsets->tensor, j);
    out.ops.push_back(std::move(op));
  }
  return out;
}

}  // namespace nkisim::ir
