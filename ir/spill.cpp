// spill.cpp - moves an automatically allocated on-chip tensor that does not fit to private HBM and stages every
// compute operand on it through a fresh on-chip tile with DMA reload / spill (docs/spill.md).
#include <string>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

bool same_view(const View& a, const View& b) {
  return a.tensor == b.tensor && a.dtype == b.dtype && a.offset == b.offset && a.dims == b.dims;
}

// A staging tile shaped like view `v` ([P, f1, f2, ...], contiguous) and the full view of it with v's dims.
View make_staging(Kernel& k, const View& v, Buffer buf, const Op& op, const std::string& base_name, int& counter) {
  Tensor s;
  s.name = base_name + ".spill" + std::to_string(counter++);
  s.dtype = v.dtype;
  s.buffer = buf;
  s.loc = op.loc;
  const int64_t parts = v.dims.empty() ? 1 : v.dims[0].count;
  int64_t free = 1;
  for (size_t i = 1; i < v.dims.size(); ++i) free *= v.dims[i].count;
  s.shape = {parts, free};
  View sv;
  sv.tensor = k.add_tensor(std::move(s));
  sv.dtype = v.dtype;
  sv.offset = 0;
  if (v.dims.empty()) {
    sv.dims.push_back(ViewDim{1, 1});
    return sv;
  }
  sv.dims.resize(v.dims.size());
  int64_t stride = 1;
  for (size_t i = v.dims.size(); i-- > 1;) {
    sv.dims[i] = ViewDim{stride, v.dims[i].count};
    stride *= v.dims[i].count;
  }
  sv.dims[0] = ViewDim{free, parts};
  return sv;
}

Op make_move(isa::Opcode opc, const View& dst, const View& src, const Op& at) {
  Op m;
  m.opcode = opc;
  m.operands[0] = dst;
  m.operands[1] = src;
  m.loc = at.loc;
  m.call_chain = at.call_chain;
  return m;
}

}  // namespace

std::vector<char> spillable_tensors(const Kernel& k) {
  std::vector<char> ok(k.tensors.size(), 0);
  for (size_t ti = 0; ti < k.tensors.size(); ++ti)
    ok[ti] = is_on_chip(k.tensors[ti].buffer) && !k.tensors[ti].address;
  for (const Op& op : k.ops)
    for (const DynOperand& d : op.dynamic) {
      if (d.offsets) ok[size_t(d.offsets->tensor)] = 0;
      if (op.operands[size_t(d.slot)]) ok[size_t(op.operands[size_t(d.slot)]->tensor)] = 0;
    }
  return ok;
}

SpillNote spill_note(const Kernel& k, int tensor) {
  const Tensor& t = k.tensors[size_t(tensor)];
  SpillNote note;
  note.tensor = tensor;
  note.name = t.name;
  note.from = t.buffer;
  note.bytes = isa::dtype_size(t.dtype);
  for (size_t i = 1; i < t.shape.size(); ++i) note.bytes *= t.shape[i];
  return note;
}

std::vector<SpillNote> spill_tensors(Kernel& k, const std::vector<int>& tensors) {
  std::vector<SpillNote> notes(tensors.size());
  std::vector<int> which(k.tensors.size(), -1);  // tensor -> index into `tensors` (-1: not spilled)
  for (size_t n = 0; n < tensors.size(); ++n) {
    const int ti = tensors[n];
    notes[n] = spill_note(k, ti);
    which[size_t(ti)] = int(n);
  }
  for (int ti : tensors) k.tensors[size_t(ti)].buffer = Buffer::hbm;
  int counter = 0;
  std::vector<Op> ops;
  ops.reserve(k.ops.size());

  // A PSUM staging tile of a matmul written and not yet spilled, per spilled tensor: consecutive accumulating
  // matmuls into the same block keep adding into it; it is spilled before anything else touches the tensor.
  struct Pending {
    View hbm, psum;
    Op at;
  };
  std::vector<std::optional<Pending>> pending(tensors.size());
  std::vector<int> open;  // spilled tensors with a pending tile
  auto base = [&](const View& v) { return k.tensors[size_t(v.tensor)].name; };
  auto spill_from = [&](const View& hbm_view, const View& stage, const Op& at) {
    if (k.tensors[size_t(stage.tensor)].buffer == Buffer::psum) {  // DMA cannot read PSUM: through SBUF
      View sb = make_staging(k, hbm_view, Buffer::sbuf, at, base(hbm_view), counter);
      ops.push_back(make_move(isa::Opcode::tensor_copy, sb, stage, at));
      ops.push_back(make_move(isa::Opcode::dma_copy, hbm_view, sb, at));
    } else {
      ops.push_back(make_move(isa::Opcode::dma_copy, hbm_view, stage, at));
    }
    ++notes[size_t(which[size_t(hbm_view.tensor)])].spills;
  };
  auto flush = [&](int n) {
    if (!pending[size_t(n)]) return;
    spill_from(pending[size_t(n)]->hbm, pending[size_t(n)]->psum, pending[size_t(n)]->at);
    pending[size_t(n)].reset();
  };
  auto flush_all = [&] {
    for (int n : open) flush(n);
    open.clear();
  };

  for (Op& op : k.ops) {
    if (op.ctl != Ctl::none) flush_all();
    bool any = false;
    for (auto& v : op.operands)
      if (v && which[size_t(v->tensor)] >= 0) any = true;
    if (!any) {
      ops.push_back(std::move(op));
      continue;
    }
    const isa::InstrInfo& in = isa::info(op.opcode);
    const bool accumulate = op.params.accumulate;
    // The continuation of an accumulation group into a pending PSUM tile.
    if (accumulate && op.operands[0] && which[size_t(op.operands[0]->tensor)] >= 0) {
      const int n = which[size_t(op.operands[0]->tensor)];
      bool other = false;
      for (int s = 1; s < isa::kMaxOperands; ++s)
        if (op.operands[size_t(s)] && op.operands[size_t(s)]->tensor == op.operands[0]->tensor) other = true;
      if (pending[size_t(n)] && !other && same_view(*op.operands[0], pending[size_t(n)]->hbm)) {
        op.operands[0] = pending[size_t(n)]->psum;
        pending[size_t(n)]->at = op;
        ops.push_back(std::move(op));
        continue;
      }
    }
    for (auto& v : op.operands)
      if (v && which[size_t(v->tensor)] >= 0) flush(which[size_t(v->tensor)]);
    std::vector<std::pair<View, View>> writes;  // (HBM view, staging view) to spill after the op
    std::optional<Pending> next;
    for (int s = 0; s < in.num_operands; ++s) {
      auto& v = op.operands[size_t(s)];
      if (!v || which[size_t(v->tensor)] < 0) continue;
      SpillNote& note = notes[size_t(which[size_t(v->tensor)])];
      const isa::OperandSpec& oi = in.operands[size_t(s)];
      if (oi.memories & isa::memory_bit(isa::Memory::HBM)) continue;  // a DMA reads and writes HBM itself
      const bool written = oi.written;
      // SBUF where the operand may be there (reads, most writes), else PSUM (a matmul's dst).
      const Buffer buf = oi.memories & isa::memory_bit(isa::Memory::SBUF) ? Buffer::sbuf : Buffer::psum;
      const View hbm_view = *v;
      View stage = make_staging(k, hbm_view, buf, op, base(hbm_view), counter);
      if (!written || accumulate || oi.keeps) {  // reload: a write that adds to or keeps what is there too
        if (buf == Buffer::psum) {
          View sb = make_staging(k, hbm_view, Buffer::sbuf, op, base(hbm_view), counter);
          ops.push_back(make_move(isa::Opcode::dma_copy, sb, hbm_view, op));
          ops.push_back(make_move(isa::Opcode::tensor_copy, stage, sb, op));
        } else {
          ops.push_back(make_move(isa::Opcode::dma_copy, stage, hbm_view, op));
        }
        ++note.reloads;
      }
      v = stage;
      if (!written) continue;
      if (buf == Buffer::psum && s == 0 &&
          isa::has_trait(op.opcode, isa::Trait::PE_MOVE))
        next = Pending{hbm_view, stage, op};
      else
        writes.emplace_back(hbm_view, stage);
    }
    Op done = op;
    ops.push_back(std::move(op));
    for (auto& [h, st] : writes) spill_from(h, st, done);
    if (next) {
      next->at = done;
      const int n = which[size_t(next->hbm.tensor)];
      pending[size_t(n)] = std::move(next);
      open.push_back(n);
    }
  }
  flush_all();
  k.ops = std::move(ops);
  return notes;
}

}  // namespace nkisim::ir
