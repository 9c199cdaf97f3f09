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

bool touches(const Op& op, int ti) {
  for (auto& v : op.operands)
    if (v && v->tensor == ti) return true;
  return false;
}

}  // namespace

bool spillable(const Kernel& k, int ti) {
  const Tensor& t = k.tensors[size_t(ti)];
  if (!is_on_chip(t.buffer) || t.address) return false;
  for (const Op& op : k.ops)
    for (const DynOperand& d : op.dynamic) {
      if (d.offsets && d.offsets->tensor == ti) return false;
      if (op.operands[size_t(d.slot)] && op.operands[size_t(d.slot)]->tensor == ti) return false;
    }
  return true;
}

SpillNote spill_tensor(Kernel& k, int ti) {
  SpillNote note;
  note.tensor = ti;
  {
    const Tensor& t = k.tensors[size_t(ti)];
    note.name = t.name;
    note.from = t.buffer;
    note.bytes = isa::dtype_size(t.dtype);
    for (size_t i = 1; i < t.shape.size(); ++i) note.bytes *= t.shape[i];
  }
  k.tensors[size_t(ti)].buffer = Buffer::hbm;
  const std::string base = k.tensors[size_t(ti)].name;
  int counter = 0;
  std::vector<Op> ops;
  ops.reserve(k.ops.size());

  // A PSUM staging tile of a matmul written and not yet spilled: consecutive accumulating matmuls into the same
  // block keep adding into it, and it is spilled before anything else touches the tensor.
  struct Pending {
    View hbm, psum;
    Op at;
  };
  std::optional<Pending> pending;
  auto spill_from = [&](const View& hbm_view, const View& stage, const Op& at) {
    if (k.tensors[size_t(stage.tensor)].buffer == Buffer::psum) {  // DMA cannot read PSUM: through SBUF
      View sb = make_staging(k, hbm_view, Buffer::sbuf, at, base, counter);
      ops.push_back(make_move(isa::Opcode::tensor_copy, sb, stage, at));
      ops.push_back(make_move(isa::Opcode::dma_copy, hbm_view, sb, at));
    } else {
      ops.push_back(make_move(isa::Opcode::dma_copy, hbm_view, stage, at));
    }
    ++note.spills;
  };
  auto flush = [&] {
    if (!pending) return;
    spill_from(pending->hbm, pending->psum, pending->at);
    pending.reset();
  };

  for (Op& op : k.ops) {
    if (op.ctl != Ctl::none) flush();
    if (!touches(op, ti)) {
      ops.push_back(std::move(op));
      continue;
    }
    const isa::InstrInfo& in = isa::info(op.opcode);
    const bool accumulate = op.params.accumulate;
    // The continuation of an accumulation group into the pending PSUM tile.
    if (pending && accumulate && op.operands[0] && same_view(*op.operands[0], pending->hbm)) {
      bool other = false;
      for (int s = 1; s < isa::kMaxOperands; ++s)
        if (op.operands[size_t(s)] && op.operands[size_t(s)]->tensor == ti) other = true;
      if (!other) {
        op.operands[0] = pending->psum;
        pending->at = op;
        ops.push_back(std::move(op));
        continue;
      }
    }
    flush();
    std::vector<std::pair<View, View>> writes;  // (HBM view, staging view) to spill after the op
    std::optional<Pending> next;
    for (int s = 0; s < in.num_operands; ++s) {
      auto& v = op.operands[size_t(s)];
      if (!v || v->tensor != ti) continue;
      const isa::OperandSpec& oi = in.operands[size_t(s)];
      if (oi.memories & isa::memory_bit(isa::Memory::HBM)) continue;  // a DMA reads and writes HBM itself
      const bool written = oi.written;
      // SBUF where the operand may be there (reads, most writes), else PSUM (a matmul's dst).
      const Buffer buf = oi.memories & isa::memory_bit(isa::Memory::SBUF) ? Buffer::sbuf : Buffer::psum;
      const View hbm_view = *v;
      View stage = make_staging(k, hbm_view, buf, op, base, counter);
      if (!written || accumulate) {  // reload (an accumulating write adds to what is there)
        if (buf == Buffer::psum) {
          View sb = make_staging(k, hbm_view, Buffer::sbuf, op, base, counter);
          ops.push_back(make_move(isa::Opcode::dma_copy, sb, hbm_view, op));
          ops.push_back(make_move(isa::Opcode::tensor_copy, stage, sb, op));
        } else {
          ops.push_back(make_move(isa::Opcode::dma_copy, stage, hbm_view, op));
        }
        ++note.reloads;
      }
      v = stage;
      if (!written) continue;
      if (buf == Buffer::psum && s == 0 && (op.opcode == isa::Opcode::multiply_moving || op.opcode == isa::Opcode::multiply_moving_mx))
        next = Pending{hbm_view, stage, op};
      else
        writes.emplace_back(hbm_view, stage);
    }
    Op done = op;
    ops.push_back(std::move(op));
    for (auto& [h, st] : writes) spill_from(h, st, done);
    if (next) {
      next->at = done;
      pending = std::move(next);
    }
  }
  flush();
  k.ops = std::move(ops);
  return note;
}

}  // namespace nkisim::ir
