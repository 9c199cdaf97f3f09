// remat.cpp - rematerialisation (docs/spill.md, "Re-loading input copies"): an automatically allocated on-chip
// tile that is a plain DMA copy of kernel input data nothing writes is dropped when it does not fit and loaded
// again from the input before each op that reads it, instead of being spilled (stored and reloaded).
#include <string>

#include "ir/passes.h"

namespace nkisim::ir {

std::vector<int> rematerialisable_tensors(const Kernel& k, const std::vector<char>& spillable) {
  const size_t n = k.tensors.size();
  std::vector<int> def(n, -1);
  std::vector<char> bad(n, 0), written(n, 0), used(n, 0);
  for (size_t i = 0; i < k.ops.size(); ++i) {
    const Op& op = k.ops[i];
    for_each_operand(op, [&](int s, const View& v, const isa::OperandSpec& o) {
      const size_t t = size_t(v.tensor);
      if (o.written) {
        written[t] = 1;
        // The defining copy: the tile's first use, a plain static dma_copy into it.
        const bool plain = op.opcode == isa::Opcode::dma_copy && s == 0 && op.dynamic.empty() &&
                           !op.params.accumulate && op.operands[1] && op.ctl == Ctl::none;
        if (plain && !used[t] && def[t] < 0) def[t] = int(i);
        else bad[t] = 1;
      }
      used[t] = 1;
    });
  }
  for (size_t t = 0; t < n; ++t) {
    if (def[t] < 0) continue;
    const View& src = *k.ops[size_t(def[t])].operands[1];
    const Tensor& in = k.tensors[size_t(src.tensor)];
    const bool input = in.role == Tensor::Role::Param && !is_on_chip(in.buffer) && !written[size_t(src.tensor)];
    if (bad[t] || !spillable[t] || !input || src.tensor == int(t)) def[t] = -1;
  }
  return def;
}

std::vector<SpillNote> rematerialise_tensors(Kernel& k, const std::vector<int>& tensors, const std::vector<int>& def) {
  std::vector<SpillNote> notes(tensors.size());
  std::vector<int> which(k.tensors.size(), -1);
  std::vector<char> defining(k.ops.size(), 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int ti = tensors[i];
    SpillNote& note = notes[i] = spill_note(k, ti);
    note.remat = true;
    note.source = k.tensors[size_t(k.ops[size_t(def[size_t(ti)])].operands[1]->tensor)].name;
    which[size_t(ti)] = int(i);
    defining[size_t(def[size_t(ti)])] = 1;
  }
  const std::vector<Op> old = std::move(k.ops);
  k.ops.clear();
  k.ops.reserve(old.size() + old.size() / 2);
  int counter = 0;
  for (size_t i = 0; i < old.size(); ++i) {
    if (defining[i]) continue;  // the copy is made again next to each use
    Op op = old[i];
    std::vector<std::pair<int, int>> staged;  // (tile, its staging copy for this op)
    for (auto& v : op.operands) {
      if (!v || which[size_t(v->tensor)] < 0) continue;
      int stage = -1;
      for (auto [t, s] : staged)
        if (t == v->tensor) stage = s;
      if (stage < 0) {
        const Tensor& t = k.tensors[size_t(v->tensor)];
        Tensor s = t;
        s.name = t.name + ".reload" + std::to_string(counter++);
        s.loc = op.loc;
        const Op& d = old[size_t(def[size_t(v->tensor)])];
        const int tile = v->tensor;
        stage = k.add_tensor(std::move(s));
        Op load = d;  // the defining copy, into the staging tile, at the use
        load.operands[0]->tensor = stage;
        load.loc = op.loc;
        load.call_chain = op.call_chain;
        k.ops.push_back(std::move(load));
        ++notes[size_t(which[size_t(tile)])].reloads;
        staged.emplace_back(tile, stage);
      }
      v->tensor = stage;  // same shape and layout: the view applies as it is
    }
    k.ops.push_back(std::move(op));
  }
  return notes;
}

}  // namespace nkisim::ir
