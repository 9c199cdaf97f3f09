// forward.cpp - instructions the Neuron compiler does not emit for what a legacy kernel writes
// (docs/cost-model.md, "Copies forwarded, dead fills dropped"):
//   * a copy out of a temporary: `x[i] = nl.copy(psum_tile)` or `m[:, i] = nisa.tensor_reduce(...)` computes into a
//     fresh tile and copies it into x's slice. When that tile is written by one instruction, read by the copy
//     alone (all of it, or exactly the part a masked instruction wrote), and the copy is bit-exact (one dtype), the
//     instruction writes the slice itself and the copy goes.
//   * a load into a slice: `buf[i] = nl.load(x[...])` loads into a fresh tile and copies it into buf's slice; under
//     the same conditions the DMA writes the slice itself (any start partition: a DMA has no partition rule).
//   * a dead fill: `acc = nl.zeros(..., buffer=nl.psum)` then `acc += nisa.nc_matmul(...)`. The first matmul into
//     a location overwrites it (accumulate is inferred per element, docs/tensor-engine.md), so the zeros are never
//     read: a memset whose whole tile is next written whole, by an instruction that reads nothing of it, goes; so
//     does a memset the front end made only to end an accumulation group when later ops overwrite all of it first.
// Values never change: every element any later instruction reads is the same as before.
#include <vector>

#include "ir/passes.h"
#include "ir/view.h"

namespace nkisim::ir {
namespace {

// How far on the pass looks for an op's next access: both idioms put it right after the producer, and a bounded
// look keeps the pass linear on kernels whose results are read much later.
constexpr size_t kWindow = 256;

// The op's slot-0 result when that slot is written, else nullptr (tensor_scalar_reduce and activation_reduce also
// write their reduce_res elsewhere).
const View* result(const Op& op) {
  const isa::InstrInfo& in = isa::info(op.opcode);
  return in.num_operands > 0 && in.operands[0].written && op.operands[0] ? &*op.operands[0] : nullptr;
}

// Whether another operand than slot 0 is written, in `tensor` (-1: anywhere).
bool writes_besides_result(const Op& op, int tensor) {
  const isa::InstrInfo& in = isa::info(op.opcode);
  for (int s = 1; s < in.num_operands; ++s)
    if (in.operands[s].written && op.operands[size_t(s)] && (tensor < 0 || op.operands[size_t(s)]->tensor == tensor))
      return true;
  return false;
}

// The op's written operand when it is slot 0 alone (the elementwise / reduction shape), else nullptr.
const View* only_written(const Op& op) { return writes_besides_result(op, -1) ? nullptr : result(op); }

// A view's shape without its size-1 dims: a [P] reduction result and the [P, 1] column it is copied into agree.
std::vector<int64_t> squeezed(const View& v) {
  std::vector<int64_t> s;
  for (const ViewDim& d : v.dims)
    if (d.count != 1) s.push_back(d.count);
  return s;
}

// Whether one of op's run-time offsets is read from `tensor`.
bool offsets_from(const Op& op, int tensor) {
  for (const DynOperand& d : op.dynamic)
    if (d.offsets && d.offsets->tensor == tensor) return true;
  return false;
}

bool touches(const Op& op, int tensor) {
  bool hit = offsets_from(op, tensor);
  for_each_operand(op, [&](int, const View& v, const isa::OperandSpec&) { hit |= v.tensor == tensor; });
  return hit;
}

bool reads(const Op& op, int tensor) {
  bool hit = offsets_from(op, tensor);
  for_each_operand(op, [&](int s, const View& v, const isa::OperandSpec& o) {
    hit |= v.tensor == tensor && reads_operand(op, s, o);
  });
  return hit;
}

// Whether `w` may write `dst` while reading it: it reads dst's tile only through views equal to dst, and is an
// element-wise instruction (the table's REUSE trait: element i of the result depends on element i of each input).
bool in_place_ok(const Op& w, const View& dst) {
  bool reads_dst = false, other = offsets_from(w, dst.tensor);
  for_each_operand(w, [&](int, const View& v, const isa::OperandSpec& o) {
    if (v.tensor != dst.tensor || o.written) return;
    reads_dst = true;
    other |= v.dtype != dst.dtype || v.offset != dst.offset || v.dims != dst.dims;
  });
  return !other && (!reads_dst || isa::has_trait(w.opcode, isa::Trait::REUSE));
}

// Whether a PSUM view, laid out as its tensor is, stays within one bank of each partition (a matmul's output
// must); an automatically allocated PSUM tensor starts on a bank boundary, a placed one at its address.
bool in_one_bank(const Kernel& k, const View& v, int64_t bank) {
  const Tensor& d = k.tensors[size_t(v.tensor)];
  if (bank <= 0 || v.dims.size() < 2) return false;
  int64_t per_partition = 1;
  for (size_t a = 1; a < d.shape.size(); ++a) per_partition *= d.shape[a];
  int64_t lo = v.offset % per_partition, hi = lo;
  for (size_t a = 1; a < v.dims.size(); ++a) {
    const int64_t span = v.dims[a].stride * (v.dims[a].count - 1);
    (span < 0 ? lo : hi) += span;
  }
  const int64_t es = isa::dtype_size(d.dtype), base = d.address ? d.address->second : 0;
  const int64_t b0 = base + lo * es, b1 = base + (hi + 1) * es - 1;
  return lo >= 0 && b0 / bank == b1 / bank;
}

// Whether the ops after i (up to kWindow on, no control op between) write every element of `v` before any op reads
// v's tensor (or writes it at a run-time offset).
bool overwritten_before_read(const Kernel& k, const std::vector<char>& drop, size_t i, const View& v) {
  const int t = v.tensor;
  const int64_t total = k.tensors[size_t(t)].num_elements();
  if (total <= 0 || total > (int64_t(1) << 24)) return false;
  std::vector<char> left(size_t(total), 0);
  int64_t remaining = 0;
  for_each_element(v, [&](int64_t e) {
    if (e >= 0 && e < total && !left[size_t(e)]) left[size_t(e)] = 1, ++remaining;
  });
  for (size_t j = i + 1; j < k.ops.size() && j <= i + kWindow && remaining > 0; ++j) {
    const Op& op = k.ops[j];
    if (drop[j]) continue;
    if (op.ctl != Ctl::none) return false;
    if (!touches(op, t)) continue;
    if (reads(op, t) || !op.dynamic.empty()) return false;
    for_each_operand(op, [&](int, const View& x, const isa::OperandSpec& o) {
      if (!o.written || x.tensor != t) return;
      for_each_element(x, [&](int64_t e) {
        if (e >= 0 && e < total && left[size_t(e)]) left[size_t(e)] = 0, --remaining;
      });
    });
  }
  return remaining == 0;
}

// One sweep; true when it changed something.
bool sweep(Kernel& k, int64_t psum_bank_bytes) {
  const size_t n = k.ops.size();
  std::vector<int> writers(k.tensors.size(), 0), readers(k.tensors.size(), 0);
  for (const Op& op : k.ops) {
    for_each_operand(op, [&](int s, const View& v, const isa::OperandSpec& o) {
      if (v.tensor < 0) return;
      if (o.written) ++writers[size_t(v.tensor)];
      // (a write at a run-time offset may land anywhere in its tile: counted as a read too)
      if (reads_operand(op, s, o) || (o.written && !op.dynamic.empty())) ++readers[size_t(v.tensor)];
    });
    for (const DynOperand& d : op.dynamic)
      if (d.offsets && d.offsets->tensor >= 0) ++readers[size_t(d.offsets->tensor)];
  }
  std::vector<char> drop(n, 0);
  bool changed = false;
  // The next op after i that touches `tensor`, if no control op comes first and it is at most kWindow ops on
  // (n otherwise): both idioms put the next access right after the producer, and a bounded look keeps the pass
  // linear on kernels whose results are read much later.
  auto next_touch = [&](size_t i, int tensor) {
    for (size_t j = i + 1; j < n && j <= i + kWindow; ++j) {
      if (drop[j]) continue;
      if (k.ops[j].ctl != Ctl::none) return n;
      if (touches(k.ops[j], tensor)) return j;
    }
    return n;
  };
  for (size_t i = 0; i < n; ++i) {
    Op& w = k.ops[i];
    // Of the DMAs, a dma_copy takes part (as a load's producer).
    const bool dma = isa::has_trait(w.opcode, isa::Trait::DMA);
    if (drop[i] || w.ctl != Ctl::none || !w.dynamic.empty() || (dma && w.opcode != isa::Opcode::dma_copy)) continue;
    // A memset made only to end a PSUM accumulation group (frontend/nl_blocks.cpp): the matmuls' accumulate flags
    // are already set, so the zeros matter only if something reads them. Dropped when later ops overwrite every
    // element before anything reads the tensor (within the window, no control op, no run-time offset).
    if (w.group_end && w.opcode == isa::Opcode::memset && w.operands[0] && w.operands[0]->tensor >= 0 &&
        overwritten_before_read(k, drop, i, *w.operands[0])) {
      drop[i] = 1;
      changed = true;
      continue;
    }
    // (another written operand in the same tile keeps it; so does a destination whose old value counts: `keeps`, an
    // accumulating write, or a transfer with oob_mode=skip, whose dropped rows the copy would have carried)
    const View* out = result(w);
    if (!out || out->tensor < 0 || writes_besides_result(w, out->tensor) ||
        reads_operand(w, 0, isa::info(w.opcode).operands[0]) || !auto_allocated(k.tensors[size_t(out->tensor)]))
      continue;
    const int t = out->tensor;
    const size_t j = next_touch(i, t);
    if (j == n) continue;
    const Op& c = k.ops[j];
    // A dead fill: the next op writes the whole tile again and reads none of it.
    if (w.opcode == isa::Opcode::memset && k.is_whole(*out) && !reads(c, t) && c.dynamic.empty()) {
      const View* again = only_written(c);
      if (again && again->tensor == t && k.is_whole(*again)) {
        drop[i] = 1;
        changed = true;
        continue;
      }
    }
    // A copy out of the tile: the tile's one writer and one reader.
    // A matmul (or transpose) that overwrites its PSUM temporary may write a PSUM slice instead (below; one that
    // accumulates was left above), and a PE load writes no tile.
    const bool pe = isa::has_trait(w.opcode, isa::Trait::PE_MOVE);
    if (c.opcode != isa::Opcode::tensor_copy || !c.dynamic.empty() || writers[size_t(t)] != 1 ||
        readers[size_t(t)] != 1 || isa::has_trait(w.opcode, isa::Trait::PE_LOAD))
      continue;
    const View& src = *c.operands[1];
    const View& dst = *c.operands[0];
    // A converting copy out of a float32 temporary goes too when the producer is element-wise (the table's REUSE
    // trait: tensor_copy, activation, tensor_tensor, tensor_scalar, which compute in fp32 and round once to their
    // output dtype, as the copy did) and the destination a float dtype: the Neuron compiler folds the cast into the
    // instruction's output (a PSUM eviction to bf16 is one copy).
    const bool converts = dst.dtype != src.dtype && src.dtype == isa::DType::float32 && isa::is_float(dst.dtype) &&
                          isa::has_trait(w.opcode, isa::Trait::REUSE);
    // It reads what the producer wrote: the whole tile, or exactly the part a masked producer wrote (the rest of
    // the tile is never read).
    const bool same_part = src.offset == out->offset && src.dims == out->dims && src.dtype == out->dtype;
    if (!((k.is_whole(*out) && k.is_whole(src)) || same_part) || dst.tensor < 0 || dst.tensor == t || (dst.dtype != src.dtype && !converts) || dst.dims.empty() ||
        dst.dims[0].count != src.dims[0].count || squeezed(dst) != squeezed(src))
      continue;
    const Tensor& d = k.tensors[size_t(dst.tensor)];
    // SBUF only (an engine that cannot reach PSUM never gets a PSUM destination); a producer that reads the
    // destination's tile only as exactly those elements, element by element (`acc[...] = acc[...] + x`), computes
    // in place; any other read of it (a shuffle, a [P,1] operand) keeps the copy.
    // A Tensor Engine result goes to PSUM only, into a PSUM destination of its own dtype.
    if ((pe ? d.buffer != Buffer::psum || converts : d.buffer != Buffer::sbuf) || d.dtype != dst.dtype ||
        !in_place_ok(w, dst))
      continue;
    if (writes_besides_result(w, dst.tensor)) continue;  // the producer's reduce_res in the destination's tile
    int64_t per_partition = 1;
    for (size_t a = 1; a < d.shape.size(); ++a) per_partition *= d.shape[a];
    if (per_partition == 0 || (!dma && dst.offset / per_partition != 0) || dst.dims[0].stride != per_partition)
      continue;
    if (!(isa::info(w.opcode).operands[0].memories & (pe ? isa::M_PS : isa::M_SB))) continue;
    if (pe && !in_one_bank(k, dst, psum_bank_bytes)) continue;
    bool clear = true;  // nothing between reads or writes the copy's destination
    for (size_t m = i + 1; m < j && clear; ++m)
      clear = drop[m] || !touches(k.ops[m], dst.tensor);
    if (!clear) continue;
    w.operands[0] = dst;
    drop[j] = 1;
    changed = true;
  }
  if (!changed) return false;
  std::vector<Op> ops;
  ops.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (!drop[i]) ops.push_back(std::move(k.ops[i]));
  k.ops = std::move(ops);
  return true;
}

}  // namespace

std::optional<Kernel> forward_copies(const Kernel& k, int64_t psum_bank_bytes) {
  // Most kernels have neither pattern: no copy of the kernel for them.
  bool candidate = false;
  for (const Op& op : k.ops)
    if (op.opcode == isa::Opcode::memset || op.opcode == isa::Opcode::tensor_copy) {
      const auto& v = op.opcode == isa::Opcode::memset ? op.operands[0] : op.operands[1];
      if (v && v->tensor >= 0 && (op.group_end || auto_allocated(k.tensors[size_t(v->tensor)]))) {
        candidate = true;
        break;
      }
    }
  if (!candidate) return std::nullopt;
  Kernel out = k;
  bool any = false;
  for (int round = 0; round < 4 && sweep(out, psum_bank_bytes); ++round) any = true;  // a copy of a copy: one more step a round
  if (!any) return std::nullopt;
  return out;
}

}  // namespace nkisim::ir
