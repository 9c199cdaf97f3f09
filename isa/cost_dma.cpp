// cost_dma.cpp - DMA costs (machine.md §11, nki-isa.md §1.10 / §3.5; docs/cost-model.md "DMA"):
//   * the DGE mode of an instruction (its `dge` parameter; unknown = software DGE for indirect transfers,
//     else the target's dma_dge_mode, or dma_dge_mode_nki for the unknown of an nki.jit kernel, dge 4),
//   * the trigger on the issuing engine (cost class `dma`): dma_trigger_cycles, or for software DGE
//     GPSIMD_START + dma_swdge_cycles_per_buffer x buffers of GpSimd time (the back end puts swdge DMAs on
//     the GpSimd stream, so this is GpSimd busy time),
//   * the split of the data movement over the DMA engines and its throughput factor: dma_transpose runs at
//     dma_transpose_hbm_factor (HBM source) / dma_transpose_sbuf_factor (SBUF source) of the copy rate,
//     dma_compute at dma_compute_factor (dma_compute_sbuf_rmw_factor for an SBUF read-add-write on NC-v4).
// The queueing, the fixed cost and hardware DGE blocks are the scheduler's (sim/scheduler_dma.cpp).
#include <algorithm>
#include <cmath>

#include "isa/cost.h"

namespace nkisim::isa {
using isa::Engine;
using isa::Memory;

DgeMode dge_mode(const isa::Instruction& ins, const isa::TargetDesc& t) {
  const DgeMode p = DgeMode(ins.params.dge_mode);
  if (p == DgeMode::swdge || p == DgeMode::hwdge || p == DgeMode::none) return p;
  if (ins.params.ind_kind != 0) return DgeMode::swdge;  // the only mode with indirection (DGE)
  const int m = int(p == DgeMode::unknown_nki ? t.dma_dge_mode_nki : t.dma_dge_mode);
  return m >= 0 && m <= 3 ? DgeMode(m) : DgeMode::unknown;
}

namespace {
// Contiguous run length (elements) of a pattern's free dims: the innermost dims that tile memory densely.
// `step` (optional): the stride (elements, absolute) of the first dim past them, between consecutive runs; 0 when
// every dim is contiguous.
uint64_t contiguous_run(const isa::AccessPattern& ap, int64_t* step = nullptr) {
  uint64_t run = 1;
  if (step) *step = 0;
  for (int d = ap.num_dims - 1; d >= 0; --d) {
    if (ap.dims[d].count == 1) continue;
    if (ap.dims[d].stride != int64_t(run)) {
      if (step) *step = std::llabs(int64_t(ap.dims[d].stride));
      break;
    }
    run *= ap.dims[d].count;
  }
  return run;
}
uint64_t row_buffers(const isa::AccessPattern& ap) {
  const uint64_t n = ap.free_elements(), run = contiguous_run(ap);
  return n == 0 ? 0 : (n + run - 1) / run;
}
unsigned esize(isa::DType t) { return unsigned(isa::dtype_size(t)); }
bool on_chip(const isa::AccessPattern& ap) { return ap.mem == Memory::SBUF || ap.mem == Memory::PSUM; }
}  // namespace

double cost_dma(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  if (dge_mode(ins, t) == DgeMode::swdge) {
    // Software DGE: GpSimd builds one descriptor per buffer (machine.md §11 DGE; per-descriptor cost [inferred]).
    const isa::AccessPattern &dst = ins.operands[0], &src = ins.operands[1];
    const double buffers = double(std::max(row_buffers(dst) * dst.num_partitions, row_buffers(src) * src.num_partitions));
    const double cycles = t.gpsimd_start_cycles + t.dma_swdge_cycles_per_buffer * buffers;
    if (CostNote* note = cost_note()) {
      note->formula = "GPSIMD_START + dma_swdge_cycles_per_buffer x buffers (software DGE)";
      note->add("buffers", buffers);
      note->cycles = cycles;
    }
    return cycles_ns(cycles, e, t);
  }
  if (CostNote* note = cost_note()) {
    note->formula = "dma_trigger_cycles (the transfer runs on the DMA queues)";
    note->cycles = t.dma_trigger_cycles;
  }
  return cycles_ns(t.dma_trigger_cycles, e, t);
}

double dma_rate_factor(const isa::Instruction& ins, const isa::TargetDesc& t) {
  const isa::AccessPattern &dst = ins.operands[0], &src = ins.operands[1];
  switch (ins.op) {
    case isa::Opcode::dma_transpose:
      return src.mem == Memory::HBM ? t.dma_transpose_hbm_factor : t.dma_transpose_sbuf_factor;
    case isa::Opcode::dma_compute: {
      // NC-v4 SBUF read-add-write (dst on chip and read back as a source) runs at copy speed (ARCH4).
      bool rmw = false;
      for (int s = 1; s <= 3; ++s)
        if (ins.operands[s].present() && on_chip(dst) && ins.operands[s] == dst) rmw = true;
      return rmw ? t.dma_compute_sbuf_rmw_factor : t.dma_compute_factor;
    }
    default:
      return 1.0;
  }
}

// The transfer is cut into contiguous buffers: every partition row of the SBUF side (dst if it is on chip,
// else src; HBM -> HBM transfers use the rows of dst numbered from 0) is at least one buffer, more when
// either side's free pattern is not contiguous. Absolute partition p goes to DMA engine
// (p / dma_partitions_per_engine) mod dma_engines (machine.md §11, DMAOV). A row moves free_elements x
// max(src, dst element size) bytes. Engine time = dma_buffers_ns (buffers x dma_buffer_overhead_ns + bytes /
// (bandwidth x rate factor), at least buffers x dma_buffer_min_ns and pages x dma_page_ns); the scheduler adds
// queueing, the fixed cost and the shared HBM bandwidth.
DmaLayout dma_layout(const isa::Instruction& ins, const isa::TargetDesc& t) {
  DmaLayout l;
  const isa::AccessPattern &dst = ins.operands[0], &src = ins.operands[1];
  const bool dst_chip = on_chip(dst), src_chip = on_chip(src);
  const isa::AccessPattern& side = dst_chip ? dst : src_chip ? src : dst;
  const isa::AccessPattern& other = &side == &dst ? src : dst;
  l.engines = uint32_t(std::max(1.0, t.dma_engines));
  l.ppe = uint32_t(std::max(1.0, t.dma_partitions_per_engine));
  l.rate_factor = dma_rate_factor(ins, t);
  l.row_bytes = double(side.free_elements()) * std::max(esize(dst.dtype), esize(src.dtype));
  if (l.row_bytes <= 0 || side.num_partitions == 0) return l;
  l.rows = side.num_partitions;
  l.first = dst_chip || src_chip ? side.start_partition : 0;
  // Buffers per row: the side's own runs, or the other side's when it is more fragmented.
  const uint64_t other_total = row_buffers(other) * other.num_partitions;
  l.per_row = std::max<uint64_t>(row_buffers(side), (other_total + l.rows - 1) / l.rows);
  l.hbm = dst.mem == Memory::HBM || src.mem == Memory::HBM;
  // HBM pages: a run that starts more than a page from where the previous one started opens another page; a
  // nearer one does so with the chance step / page. Runs in a row step by the stride of the first dim that is not
  // contiguous; rows by the partition stride.
  if (other.mem == Memory::HBM && t.dma_page_bytes > 0) {
    const double es = esize(other.dtype), page = t.dma_page_bytes;
    int64_t gap = 0;
    contiguous_run(other, &gap);
    const double step = double(gap) * es;  // bytes between consecutive runs
    auto opens = [&](double bytes) { return std::min(1.0, bytes / page); };
    const double runs = double(row_buffers(other)) * other.num_partitions / double(l.rows);
    // (a single row: as if the next one followed it)
    const double row_step = other.num_partitions > 1 ? double(std::llabs(other.partition_stride)) * es : l.row_bytes;
    l.pages_per_row = opens(row_step) + (runs > 1 ? (runs - 1) * opens(step) : 0.0);
    // Engines whose partition blocks (ppe rows each) lie within one page walk the same pages at the same time
    // (their runs step alike): one opening serves them all, so each pays its share of it.
    const double block = double(l.ppe) * row_step;
    if (t.dma_page_shared != 0 && other.num_partitions > 1 && block < page) {
      const double blocks = std::ceil(double(l.rows) / double(l.ppe));
      l.pages_per_row /= std::max(1.0, std::min({page / std::max(block, es), double(l.engines), blocks}));
    }
  }
  return l;
}

// Rows among [first, first + rows) whose block (p / ppe) maps to engine d: blocks repeat every
// engines x ppe partitions.
uint32_t DmaLayout::rows_on_engine(uint32_t d) const {
  const uint64_t cycle = uint64_t(engines) * ppe;
  auto below = [&](uint64_t x) {  // rows p < x with (p / ppe) % engines == d
    const uint64_t full = (x / cycle) * ppe;
    const uint64_t rem = x % cycle, start = uint64_t(d) * ppe;
    return full + (rem > start ? std::min<uint64_t>(rem - start, ppe) : 0);
  };
  return uint32_t(below(uint64_t(first) + rows) - below(first));
}

void DmaLayout::rows_per_engine(uint32_t* out) const {
  std::fill(out, out + engines, 0u);
  uint32_t p = first, left = rows;
  uint32_t e = (p / ppe) % engines, in_block = ppe - p % ppe;
  while (left) {
    const uint32_t take = std::min(left, in_block);
    out[e] += take;
    left -= take;
    in_block = ppe;
    e = e + 1 == engines ? 0 : e + 1;
  }
}

uint32_t DmaLayout::engines_used() const {
  uint32_t n = 0;
  for (uint32_t d = 0; d < engines; ++d) n += rows_on_engine(d) > 0;
  return n;
}

void dma_transfer_plan(const isa::Instruction& ins, const isa::TargetDesc& t, std::vector<DmaShare>& out) {
  out.clear();
  const DmaLayout l = dma_layout(ins, t);
  const double bw = t.dma_engine_bytes_per_ns * l.rate_factor;
  for (uint32_t d = 0; d < l.engines && l.rows; ++d) {
    const uint32_t rows = l.rows_on_engine(d);
    if (!rows) continue;
    DmaShare s;
    s.engine = d;
    s.bytes = l.row_bytes * rows;
    s.hbm_bytes = l.hbm ? s.bytes : 0;
    s.buffers = uint32_t(l.per_row * rows);
    s.pages = l.pages_per_row * rows;
    s.ns = dma_buffers_ns(t, s.buffers, s.bytes, bw, s.pages);
    out.push_back(s);
  }
}

void dma_hbm_bytes(const isa::Instruction& ins, double& read, double& write) {
  const isa::AccessPattern& dst = ins.operands[0];
  read = 0;
  const int last_src = ins.op == isa::Opcode::dma_compute ? 3 : 1;
  for (int s = 1; s <= last_src; ++s) {
    const isa::AccessPattern& src = ins.operands[s];
    if (src.mem == Memory::HBM) read += double(src.total_elements()) * esize(src.dtype);
  }
  write = dst.mem == Memory::HBM ? double(dst.total_elements()) * esize(dst.dtype) : 0.0;
}

// sendrecv (LNC=2, docs/lnc.md), cost class `sendrecv`: the DMA model of src's transfer to the peer's SBUF
// without queueing or contention: dma_fixed_ns + the busiest DMA engine's dma_buffers_ns (rows x buffers-per-row
// buffers, rows x row_bytes at dma_engine_bytes_per_ns). The transfer itself runs through the issuing core's DMA
// queues (sim/scheduler_sendrecv.cpp).
DmaLayout sendrecv_layout(const isa::Instruction& ins, const isa::TargetDesc& t) {
  isa::Instruction out = ins;
  out.operands[0] = ins.operands[1];  // src on both sides: the peer's dst holds the same elements
  return dma_layout(out, t);
}

double sendrecv_transfer_ns(const isa::Instruction& ins, const isa::TargetDesc& t) {
  isa::Instruction out = ins;
  out.operands[0] = ins.operands[1];  // as sendrecv_layout
  std::vector<DmaShare> plan;
  dma_transfer_plan(out, t, plan);
  double busiest = 0;
  for (const DmaShare& s : plan) busiest = std::max(busiest, s.ns);
  return t.dma_fixed_ns + busiest;
}

double cost_sendrecv(const isa::Instruction& ins, isa::Engine, const isa::TargetDesc& t) {
  const double ns = sendrecv_transfer_ns(ins, t);
  if (CostNote* note = cost_note()) {
    note->formula = "dma_fixed_ns + busiest DMA engine (buffers x dma_buffer_overhead_ns + bytes / "
                    "dma_engine_bytes_per_ns, at least buffers x dma_buffer_min_ns) of src's transfer on a DMA queue, after the peer's matching "
                    "sendrecv (without contention; the schedule shows the DMA queues' delays)";
    note->add("ns", ns);
  }
  return ns;
}

}  // namespace nkisim::isa
