// exec_context.cpp - operand resolution (checks, binding, write tracking) and the executor dispatch table.
#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <vector>

#include "isa/mx.h"
#include "sim/exec.h"

namespace nkisim::sim {
using isa::Memory;

namespace {

// A huge page is asked for where at least 1/kHugePageMinUse of it will be touched (host tuning, measured:
// see advise_huge_pages).
constexpr uint64_t kHugePageMinUse = 8;


// Transparent huge pages where the program will touch memory densely. On the 2-vCPU VM we measure on, a
// 4 KiB first-touch fault costs about 1.8 us and a 2 MiB one about 0.1 ms (28 MiB: 13 ms against 1.5 ms),
// so a huge page pays off once an eighth of it is used. HBM: every tensor of 2 MiB or more (inputs and
// outputs are touched whole). SBUF/PSUM: the whole space when the program's operands reach past an eighth
// of a partition (a 2 MiB page spans about ten SBUF partitions).
//
// But a huge page can also be "cold": a VM whose free memory is reported back to the host (virtio free
// page reporting hands back free blocks of 2 MiB and more) makes the host fault in every 4 KiB of it again,
// and one 2 MiB fault then takes 5-7 ms (up to 20 ms) instead of 0.1 ms, while 4 KiB pages stay at about
// 1.8 us. Measured here with huge pages always on: the matmul of bench case (a) took 0.30 s instead of
// 0.21 s when run 8 s after the previous run, the 4096^2 softmax 0.35 s instead of 0.17 s; back to back
// (warm pages) 0.11-0.14 s and 0.07-0.09 s. Which pages are cold shows only page by page, so the advised
// ranges are populated now, one huge page at a time, keeping account of what they cost beyond the 4 KiB
// faults they replace; once that excess passes kHugePageLossBudget the advice is taken back for everything
// not yet populated (two cold pages do it, a lone cold page among warm ones does not). So a run costs at
// most about that budget more than with 4 KiB pages.
//
// Even so they stay opt-in: on the VM above, runs with huge pages also made the page cache slow at times
// (writing (b)'s 64 MiB output took 0.1-0.25 s instead of 0.014 s in 3 of 12 runs, never without them), and
// the benchmark's results varied far more with them than without (docs/performance.md "Huge pages").
// NKISIM_HUGEPAGES=auto is the policy above, =1 asks for huge pages everywhere and populates nothing up
// front; unset or anything else, no huge pages.
constexpr double kSmallFaultSeconds = 1.8e-6;  // one 4 KiB first-touch fault on the VM above
constexpr double kSmallPagesPerHuge = 512;
constexpr double kHugePageLossBudget = 0.005;

void advise_huge_pages(Memories& mem, const isa::Program& p, bool with_hbm) {
  const char* env = std::getenv("NKISIM_HUGEPAGES");
  const std::string_view setting = env ? env : "";
  const int mode = setting == "1" ? 1 : setting == "auto" ? 2 : 0;
  if (mode == 0) return;
  struct Range {
    MemorySpace* space;
    uint32_t p0, np;
    uint64_t lo, hi;
  };
  std::vector<Range> ranges;
  const uint64_t huge = uint64_t(2) << 20;
  if (with_hbm && mode == 1) ranges.push_back({&mem.hbm, 0, 1, 0, mem.hbm.partition_bytes()});
  if (with_hbm && mode == 2)
    for (const isa::HbmTensor& t : p.hbm_tensors)
      if (t.bytes >= huge) ranges.push_back({&mem.hbm, 0, 1, t.address, t.address + t.bytes});
  for (Memory m : {Memory::SBUF, Memory::PSUM}) {
    MemorySpace& space = mem.of(m);
    const uint64_t hi = mode == 1 ? space.partition_bytes() : partition_high_water(p, m);
    if (hi * kHugePageMinUse >= space.partition_bytes()) ranges.push_back({&space, 0, space.partitions(), 0, hi});
  }
  for (const Range& r : ranges) r.space->advise_huge(r.p0, r.np, r.lo, r.hi);
  if (mode == 1) return;
  double loss = 0;  // seconds the huge pages so far cost beyond the 4 KiB faults they replace
  auto keep_going = [&](double seconds) {
    loss += seconds - kSmallFaultSeconds * kSmallPagesPerHuge;
    return loss <= kHugePageLossBudget;
  };
  for (const Range& r : ranges)
    if (!r.space->populate_huge(r.p0, r.np, r.lo, r.hi, keep_going)) {
      for (const Range& q : ranges) q.space->advise_huge(q.p0, q.np, q.lo, q.hi, false);
      return;
    }
}

}  // namespace

// Bytes [0, hi) of every partition that the program's operands in `m` touch (dynamic operands: their base
// tensor's bounds), estimated from at most kHighWaterSamples instructions per stream spread evenly over it:
// it only chooses page sizes, and reading every instruction of a long program (960 bytes each) cost 0.1 us
// per instruction. Tile allocation cycles through the memory a kernel uses, so the sample sees its extent.
constexpr size_t kHighWaterSamples = 512;
uint64_t partition_high_water(const isa::Program& p, Memory m) {
  int64_t hi = 0;
  for (const auto& stream : p.streams)
    for (size_t i = 0, step = std::max<size_t>(1, stream.size() / kHighWaterSamples); i < stream.size(); i += step)
      for (const isa::AccessPattern& ap : stream[i].operands) {
        if (ap.mem != m) continue;
        if (ap.dyn.present()) {
          hi = std::max<int64_t>(hi, ap.dyn.hi);
          continue;
        }
        int64_t span = 0;
        for (int d = 0; d < ap.num_dims; ++d) span += std::max<int64_t>(0, ap.dims[d].stride * (int64_t(ap.dims[d].count) - 1));
        hi = std::max<int64_t>(hi, ap.offset + (span + 1) * int64_t(isa::dtype_size(ap.dtype)));
      }
  return uint64_t(hi);
}

ExecContext::ExecContext(const isa::Program& p, const isa::TargetDesc& t, uint64_t hbm_bytes)
    : program(p), target(t) {
  mem.hbm.init(1, hbm_bytes);
  mem.sbuf.init(uint32_t(t.partitions), uint64_t(t.sbuf_partition_bytes));
  mem.psum.init(uint32_t(t.partitions), uint64_t(t.psum_partition_bytes));
  tensor_written.assign(p.hbm_tensors.size(), 0);
  for (auto& r : regs) r.assign(size_t(std::max(0.0, t.sequencer_registers)), 0);
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i)
    if (p.hbm_tensors[i].kind == isa::HbmTensor::Kind::Input) input_tensors_.push_back(i);
}

void ExecContext::use_huge_pages(bool with_hbm) { advise_huge_pages(mem, program, with_hbm); }

std::optional<SourceLoc> ExecContext::location(const isa::Instruction& ins) const {
  if (ins.loc == 0 || ins.loc >= program.locations.size()) return std::nullopt;
  return program.locations[ins.loc];
}

void ExecContext::fail(const isa::Instruction& ins, const std::string& msg) const {
  throw Error(msg, location(ins));
}

View ExecContext::check(const isa::Instruction& ins, int slot, bool writes) const {
  const isa::InstrInfo& inf = isa::info(ins.op);
  const isa::AccessPattern& ap = ins.operands[slot];
  auto head = [&] {  // message prefix, built only on failure
    const char* name = slot < inf.num_operands ? inf.operands[slot].name : "?";
    return std::string(inf.mnemonic) + ": operand '" + name + "' ";
  };
  if (!ap.present()) {
    if (slot < inf.num_operands && inf.operands[slot].required) fail(ins, head() + "is missing");
    return View{};
  }
  if (slot >= inf.num_operands)
    fail(ins, std::string(inf.mnemonic) + ": unexpected operand in slot " + std::to_string(slot));
  if (!(isa::memory_bit(ap.mem) & inf.operands[slot].memories))
    fail(ins, head() + "cannot be in " + std::string(isa::memory_name(ap.mem)));
  if (isa::is_mx_packed(ap.dtype)) {  // no casts or arithmetic on MX dtypes (isa/mx.h)
    const std::string why = isa::mx_operand_error(ins, slot);
    if (!why.empty()) fail(ins, std::string(inf.mnemonic) + ": " + why);
  }
  View v = describe(ap);
  const MemorySpace& space = mem.of(ap.mem);
  std::string why = check_bounds(v, space.partitions(), space.partition_bytes());
  if (!why.empty()) fail(ins, head() + (writes ? "writes " : "reads ") + why);
  if (ap.dyn.present()) check_dynamic(ins, slot);
  return v;
}

View ExecContext::resolve(const isa::Instruction& ins, int slot, bool writes) {
  View v = check(ins, slot, writes);
  if (!ins.operands[slot].present()) return v;
  const isa::AccessPattern& ap = ins.operands[slot];
  MemorySpace& space = mem.of(ap.mem);
  if (ap.mem == Memory::HBM) {
    v.base = space.ptr(0, 0) + ap.offset;
    if (!v.empty()) space.prepare(0, 1, uint64_t(v.lo), uint64_t(v.hi));
    if (writes && !v.empty()) track_hbm_write(v);
  } else {
    const int64_t shift = ap.dyn.present() ? dynamic_shift(ins, slot, v) : 0;  // a run-time offset (dyn)
    v.lo += shift;
    v.hi += shift;
    v.base = space.ptr(v.start_partition, 0) + ap.offset + shift;
    v.pstep = int64_t(space.pitch());
    if (!v.empty()) space.prepare(v.start_partition, v.partitions, uint64_t(v.lo), uint64_t(v.hi));
  }
  return v;
}

void ExecContext::track_hbm_write(const View& v) {
  const uint8_t* hbm0 = mem.hbm.ptr(0, 0);
  for (size_t t : input_tensors_) {
    if (tensor_written[t]) continue;
    const isa::HbmTensor& ht = program.hbm_tensors[t];
    int64_t a0 = int64_t(ht.address), a1 = int64_t(ht.address + ht.bytes);
    if (v.hi <= a0 || a1 <= v.lo) continue;
    if (v.lo >= a0 && v.hi <= a1) {  // the whole access lies inside the tensor
      tensor_written[t] = 1;
      continue;
    }
    bool hit = false;  // exact, run by run
    for (uint32_t i = 0; i < v.partitions && !hit; ++i) {
      for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) {
        int64_t s = p - hbm0, e = s + int64_t(n - 1) * st;
        int64_t lo = std::min(s, e), hi = std::max(s, e) + int64_t(v.esize);
        if (lo < a1 && a0 < hi) hit = true;
      });
    }
    if (hit) tensor_written[t] = 1;
  }
}

void ExecContext::require_same_shape(const isa::Instruction& ins, int slot_a, const View& a, int slot_b,
                                     const View& b) const {
  if (a.partitions == b.partitions && a.free_elems == b.free_elems) return;
  const isa::InstrInfo& inf = isa::info(ins.op);
  std::ostringstream os;
  os << inf.mnemonic << ": operand '" << inf.operands[slot_b].name << "' has " << b.partitions << " partitions x "
     << b.free_elems << " elements but '" << inf.operands[slot_a].name << "' has " << a.partitions
     << " partitions x " << a.free_elems << " elements";
  fail(ins, os.str());
}

static void check_column(const ExecContext& ctx, const isa::Instruction& ins, int slot, const View& v,
                         uint32_t partitions) {
  if (v.partitions == partitions && v.free_elems >= 1) return;
  const isa::InstrInfo& inf = isa::info(ins.op);
  std::ostringstream os;
  os << inf.mnemonic << ": operand '" << inf.operands[slot].name << "' must be a [" << partitions
     << ", 1] tile (one value per partition), got " << v.partitions << " partitions x " << v.free_elems
     << " elements";
  ctx.fail(ins, os.str());
}

const float* ExecContext::column_f32(const isa::Instruction& ins, int slot, uint32_t partitions, int scratch) {
  if (!ins.operands[slot].present()) return nullptr;
  View v = read(ins, slot);
  check_column(*this, ins, slot, v, partitions);
  float* out = f32(scratch, partitions);
  for (uint32_t i = 0; i < partitions; ++i) load_f32(v.dtype, v.row(i), v.esize, 1, out + i);
  return out;
}

const uint32_t* ExecContext::column_int(const isa::Instruction& ins, int slot, uint32_t partitions, int scratch) {
  if (!ins.operands[slot].present()) return nullptr;
  View v = read(ins, slot);
  check_column(*this, ins, slot, v, partitions);
  uint32_t* out = u32(scratch, partitions);
  for (uint32_t i = 0; i < partitions; ++i) {
    if (isa::is_integer(v.dtype)) {
      load_int(v.dtype, v.row(i), v.esize, 1, out + i);
    } else {  // a float tile used as an integer operand: its value, rounded to nearest
      float f;
      load_f32(v.dtype, v.row(i), v.esize, 1, &f);
      out[i] = isa::from_f32(isa::DType::int32, f);
    }
  }
  return out;
}

namespace {
using ExecFn = void (*)(ExecContext&, const isa::Instruction&);
constexpr ExecFn kExec[] = {
#define INST(id, ...) &exec_##id,
#include "isa/instructions.def"
#undef INST
};
}  // namespace

void execute(ExecContext& ctx, const isa::Instruction& ins) { kExec[size_t(ins.op)](ctx, ins); }

}  // namespace nkisim::sim
