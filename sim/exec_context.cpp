// exec_context.cpp - operand resolution (checks, binding, write tracking) and the executor dispatch table.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "isa/mx.h"
#include "sim/exec.h"
#include "sim/gemm.h"
#include "sim/parallel.h"

namespace nkisim::sim {
using isa::Memory;

namespace {

// Page handling before a run (ExecContext::prepare_pages). All of it is host tuning measured on the 2-vCPU
// VM of docs/performance.md, none of it changes a simulated byte.
//
// Memory that will certainly be touched is faulted in up front, in pieces spread over the parallel_for
// threads: a first-touch fault costs about 1.8 us per 4 KiB page either way, but the pieces run side by
// side instead of one fault at a time inside the run. "Certainly touched": the HBM inputs (written whole
// when bound) and outputs (read back whole), and SBUF/PSUM up to the program's high-water mark when that
// reaches 1/kDenseFraction of a partition (the allocator cycles tiles through the memory a kernel uses;
// case (a) of bench/run.py touches 28 MiB of SBUF). Below that a small kernel would pay for pages it never
// uses. Pieces are kPieceBytes of one partition, or consecutive partitions over about kPieceBytes of host memory.
constexpr uint64_t kDenseFraction = 8;
constexpr uint64_t kPieceBytes = uint64_t(4) << 20;
// The high-water mark is estimated from at most kHighWaterSamples instructions per stream, spread evenly:
// reading every instruction of a long program (960 bytes each) cost 0.1 us per instruction, and tile
// allocation cycles through the memory a kernel uses, so the sample sees its extent.
constexpr size_t kHighWaterSamples = 512;
//
// Transparent huge pages (NKISIM_HUGEPAGES; off by default) make a first touch ~10x cheaper (2 MiB: about
// 0.1 ms against 512 x 1.8 us), but a fresh 2 MiB page can be "cold": a VM whose free memory is reported
// back to the host makes the host fault in every 4 KiB of it again, 5-7 ms (up to 20 ms) for one huge
// page. `auto` asks for them on the dense ranges above and populates those one huge page at a time,
// keeping account of what the pages cost beyond the small faults they replace; once that excess passes
// kHugePageLossBudget (two cold pages do it, a lone cold page among warm ones does not) the advice is taken
// back for everything not yet touched. `1` asks for them on every simulated memory, unconditionally. The CLI
// runs without them because with them this VM's page cache also got cold memory at times (writing a 64 MiB
// output took 0.1-0.25 s instead of 0.014 s in 3 of 12 runs) and the benchmark varied far more
// (docs/dev/performance-log.md "Huge pages"). The Python package runs with Always (Options::huge_pages): it
// reuses its memories call after call, so a cold page costs once, and every later call gains (bench case (e)
// and the one-tile call: docs/dev/performance-log.md "Session 12, huge pages in process").
constexpr double kSmallFaultSeconds = 1.8e-6;  // one 4 KiB first-touch fault on the VM above
constexpr double kSmallPagesPerHuge = 512;
constexpr double kHugePageLossBudget = 0.005;

// NKISIM_HUGEPAGES when set (0, auto or 1; anything else means off), else what the embedder asked for.
HugePages huge_page_setting(HugePages requested) {
  const char* env = std::getenv("NKISIM_HUGEPAGES");
  if (!env) return requested;
  const std::string_view v = env;
  return v == "1" ? HugePages::Always : v == "auto" ? HugePages::Auto : HugePages::Off;
}

// Bytes [lo, hi) of partitions [p0, p0 + np) of one memory space.
struct Range {
  MemorySpace* space;
  uint32_t p0, np;
  uint64_t lo, hi;
};

// The on-chip bytes [0, hi) of every partition the program's operands in `m` touch (sampled, see above; a
// dynamic operand: its base tensor's bounds), or 0 when that is less than 1/kDenseFraction of a partition.
uint64_t dense_high_water(const isa::Program& p, Memory m, uint64_t partition_bytes) {
  int64_t hi = 0;
  for (const auto& stream : p.streams)
    for (size_t i = 0, step = std::max<size_t>(1, stream.size() / kHighWaterSamples); i < stream.size(); i += step)
      for (const isa::AccessPattern& ap : stream[i].operands)
        if (ap.mem == m) hi = std::max<int64_t>(hi, ap.dyn.present() ? int64_t(ap.dyn.hi) : describe(ap).hi);
  const uint64_t h = std::min(uint64_t(std::max<int64_t>(hi, 0)), partition_bytes);
  return h * kDenseFraction >= partition_bytes ? h : 0;
}

// `auto` huge pages on `dense`: advise, populate page by page while they prove cheap, else take it back.
void huge_pages_while_cheap(const std::vector<Range>& dense) {
  for (const Range& r : dense) r.space->advise_huge(r.p0, r.np, r.lo, r.hi);
  double loss = 0;  // seconds the huge pages so far cost beyond the 4 KiB faults they replace
  auto keep_going = [&](double seconds) {
    loss += seconds - kSmallFaultSeconds * kSmallPagesPerHuge;
    return loss <= kHugePageLossBudget;
  };
  for (const Range& r : dense)
    if (!r.space->populate_huge(r.p0, r.np, r.lo, r.hi, keep_going)) {
      for (const Range& q : dense) q.space->advise_huge(q.p0, q.np, q.lo, q.hi, false);
      return;
    }
}

}  // namespace

void ExecContext::prepare_pages(bool with_hbm, HugePages huge) {
  std::vector<Range> dense;
  if (with_hbm)
    for (size_t i = 0; i < program.hbm_tensors.size(); ++i) {
      const isa::HbmTensor& t = program.hbm_tensors[i];
      if ((t.kind == isa::HbmTensor::Kind::Input || t.output_index >= 0) && t.bytes && !tensor_mapped[i])
        dense.push_back({&mem.hbm, 0, 1, t.address, t.address + t.bytes});
    }
  for (Memory m : {Memory::SBUF, Memory::PSUM}) {
    MemorySpace& space = mem.of(m);
    if (const uint64_t hi = dense_high_water(program, m, space.partition_bytes()))
      dense.push_back({&space, 0, space.partitions(), 0, hi});
  }
  switch (huge_page_setting(huge)) {
    case HugePages::Off:
      break;
    case HugePages::Always:
      if (with_hbm) mem.hbm.advise_huge(0, 1, 0, mem.hbm.partition_bytes());
      for (MemorySpace* s : {&mem.sbuf, &mem.psum}) s->advise_huge(0, s->partitions(), 0, s->partition_bytes());
      break;
    case HugePages::Auto:
      huge_pages_while_cheap(dense);
      break;
  }
  struct Piece {
    MemorySpace* space;
    uint32_t partition, count;  // partitions [partition, partition + count)
    uint64_t lo, hi;
  };
  std::vector<Piece> pieces;
  for (const Range& r : dense) {
    // Consecutive partitions in one piece, so the threads fault in host ranges far apart, not neighbouring
    // partitions that share page-table pages (case (a)'s prepare_pages: 13.7 -> 12.2 ms wall, 8 alternating
    // runs, against one partition per piece).
    const uint64_t pitch = std::max<uint64_t>(r.space->pitch(), 1);
    const uint32_t group = uint32_t(std::clamp<uint64_t>(kPieceBytes / pitch, 1, r.np));
    for (uint32_t q = r.p0; q < r.p0 + r.np; q += group)
      for (uint64_t a = r.lo; a < r.hi; a += kPieceBytes)
        pieces.push_back({r.space, q, std::min(group, r.p0 + r.np - q), a, std::min(a + kPieceBytes, r.hi)});
  }
  // SBUF and PSUM pieces also get their sentinel now (as prepare() would give each chunk on first use), on
  // these threads instead of the executors' (fill_chunks).
  parallel_for(pieces.size(), [&](size_t i) {
    const Piece& p = pieces[i];
    for (uint32_t q = p.partition; q < p.partition + p.count; ++q) {
      p.space->populate(q, p.lo, p.hi);
      if (p.space != &mem.hbm) p.space->fill_chunks(q, p.lo, p.hi);
    }
  });
  for (const Range& r : dense)
    if (r.space != &mem.hbm) r.space->mark_chunks(r.p0, r.np, r.lo, r.hi);
}

ExecContext::ExecContext(const isa::Program& p, const isa::TargetDesc& t, MemorySpace& hbm)
    : program(p), target(t), mem{hbm, {}, {}} {
  mem.sbuf.init(uint32_t(t.partitions), uint64_t(t.sbuf_partition_bytes));
  mem.psum.init(uint32_t(t.partitions), uint64_t(t.psum_partition_bytes));
  tensor_written.assign(p.hbm_tensors.size(), 0);
  tensor_mapped.assign(p.hbm_tensors.size(), 0);
  for (auto& r : regs) r.assign(size_t(std::max(0.0, t.sequencer_registers)), 0);
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i)
    if (p.hbm_tensors[i].kind == isa::HbmTensor::Kind::Input) input_tensors_.push_back(i);
}

std::optional<SourceLoc> ExecContext::location(const isa::Instruction& ins) const {
  if (ins.loc == 0 || ins.loc >= program.locations.size()) return std::nullopt;
  return program.locations[ins.loc];
}

void ExecContext::fail(const isa::Instruction& ins, const std::string& msg) const {
  std::optional<SourceLoc> loc = location(ins);
  if (loc) throw Error(msg, loc);
  // No .loc (a hand-written or stripped program): a note without a location names the instruction by its
  // engine stream, index and opcode (nki-sim --program puts it before the message, after the program file).
  Error err(msg);
  add_instruction_note(ins, err);
  throw err;
}

void ExecContext::add_instruction_note(const isa::Instruction& ins, Error& err) const {
  for (int e = 0; e < isa::kNumEngines; ++e) {
    const auto& s = program.streams[size_t(e)];
    if (!s.empty() && &ins >= s.data() && &ins < s.data() + s.size())
      err.notes.push_back({SourceLoc{}, std::string(isa::engine_name(isa::Engine(e))) + " instruction " +
                                            std::to_string(&ins - s.data()) + " (" +
                                            std::string(isa::info(ins.op).mnemonic) + ")"});
  }
}

void ExecContext::charge_work(const isa::Instruction& ins) {
  // Slots past the row's operands are not part of the instruction (validation ignores them too): reading
  // them would also touch cache lines of the instruction that nothing else needs.
  // An operand only tracked (an indirect DMA's base) is not moved: a one-element gather from a large tensor is one
  // element.
  uint64_t n = 1;
  const isa::InstrInfo* inf = size_t(ins.op) < size_t(isa::kNumOpcodes) ? &isa::info(ins.op) : nullptr;
  const int nops = inf ? inf->num_operands : isa::kMaxOperands;
  for (int s = 0; s < nops; ++s)
    if (ins.operands[s].present() && !(inf && inf->operands[s].tracking))
      n = std::max(n, ins.operands[s].total_elements());
  run_elements += n;
  if (run_elements > run_elements_budget)
    fail(ins, "run-time budget: the program executed more than " + std::to_string(run_elements_budget) +
                  " element operations (raise the limit with --max-run-elements)");
}

View ExecContext::check(const isa::Instruction& ins, int slot, bool writes) const {
  const isa::InstrInfo& inf = isa::info(ins.op);
  const isa::AccessPattern& ap = ins.operands[slot];
  auto head = [&] {  // message prefix, built only on failure
    const char* name = slot < inf.num_operands ? inf.operands[slot].name : "?";
    return std::string(inf.mnemonic) + ": operand '" + name + "' ";
  };
  // One named result, initialised in place: returned by NRVO, not copied (a copy of the freshly written View
  // stalls on store forwarding). describe() only computes; the checks below decide what is an error.
  View v = ap.present() ? describe(ap) : View{};
  if (!ap.present()) {
    if (slot < inf.num_operands && inf.operands[slot].required) fail(ins, head() + "is missing");
    return v;
  }
  if (slot >= inf.num_operands)
    fail(ins, std::string(inf.mnemonic) + ": unexpected operand in slot " + std::to_string(slot));
  if (isa::is_mx_packed(ap.dtype)) {  // no casts or arithmetic on MX dtypes (isa/mx.h)
    const std::string why = isa::mx_operand_error(ins, slot);
    if (!why.empty()) fail(ins, std::string(inf.mnemonic) + ": " + why);
  }
  const MemorySpace& space = mem.of(ap.mem);
  if (!in_bounds(v, space.partitions(), space.partition_bytes()))
    fail(ins, head() + (writes ? "writes " : "reads ") + check_bounds(v, space.partitions(), space.partition_bytes()));
  if (ap.dyn.present()) check_dynamic(ins, slot);
  return v;
}

namespace {
// An HBM view's bytes made valid (MemorySpace::prepare): row by row when its rows lie far apart (a tile of a
// wide tensor), so that the gaps between them, which other tiles write, get no sentinel first.
void prepare_hbm(MemorySpace& hbm, const View& v) {
  const int64_t row = (v.hi - v.lo) - int64_t(v.partitions - 1) * v.pstep;  // row 0's span; row p's is p pstep on
  if (v.partitions > 1 && v.pstep > 0 && row > 0 && v.pstep - row >= 4096) {
    for (uint32_t p = 0; p < v.partitions; ++p)
      hbm.prepare(0, 1, uint64_t(v.lo + int64_t(p) * v.pstep), uint64_t(v.lo + int64_t(p) * v.pstep + row));
  } else {
    hbm.prepare(0, 1, uint64_t(v.lo), uint64_t(v.hi));
  }
}
}  // namespace

void ExecContext::settle_gemm() {
  if (!gemm_running) return;
  pe_gemm_settle();
  gemm_running = false;
  gemm_out[0] = gemm_out[1] = gemm_moving[0] = gemm_moving[1] = View{};
}

View ExecContext::resolve(const isa::Instruction& ins, int slot, bool writes, bool gemm_hazards) {
  View v = check(ins, slot, writes);
  if (!ins.operands[slot].present()) return v;
  const isa::AccessPattern& ap = ins.operands[slot];
  MemorySpace& space = mem.of(ap.mem);
  if (ap.mem == Memory::HBM) {
    v.base = space.ptr(0, 0) + ap.offset;
    if (!v.empty()) prepare_hbm(space, v);
    if (writes && !v.empty()) track_hbm_write(v);
  } else {
    // A run-time offset (dyn) moves the extents; only then are they touched: GCC adds a shift to lo and hi with
    // one 16-byte load of the two fields describe() has just stored separately, a store-forwarding stall.
    int64_t shift = 0;
    if (ap.dyn.present()) {
      shift = dynamic_shift(ins, slot, v);
      v.lo += shift;
      v.hi += shift;
    }
    v.base = space.ptr(v.start_partition, 0) + ap.offset + shift;
    v.pstep = int64_t(space.pitch());
    if (!v.empty()) space.prepare(v.start_partition, v.partitions, uint64_t(v.lo), uint64_t(v.hi));
  }
  if (gemm_running && gemm_hazards &&
      (ins.params.ind_kind || may_overlap(v, gemm_out[0]) || may_overlap(v, gemm_out[1]) ||
       (writes && (may_overlap(v, gemm_moving[0]) || may_overlap(v, gemm_moving[1])))))
    [[unlikely]] settle_gemm();
  // --check hook (sim/check.h). An indirect DMA operand reports its rows itself (sim/exec_dma.cpp).
  if (checker && !(ins.params.ind_kind && (ins.params.ind_opnds >> slot & 1))) [[unlikely]]
    checker->on_access(*this, ins, slot, v, writes);
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

const float* ExecContext::column_f32(const isa::Instruction& ins, int slot, uint32_t partitions, int scratch) {
  if (!ins.operands[slot].present()) return nullptr;
  View v = read(ins, slot);  // a [partitions, >= 1] tile (isa::verify)
  float* out = f32(scratch, partitions);
  for (uint32_t i = 0; i < partitions; ++i) load_f32(v.dtype, v.row(i), v.esize, 1, out + i);
  return out;
}

const uint32_t* ExecContext::column_int(const isa::Instruction& ins, int slot, uint32_t partitions, int scratch) {
  if (!ins.operands[slot].present()) return nullptr;
  View v = read(ins, slot);  // a [partitions, >= 1] tile (isa::verify)
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

void execute(ExecContext& ctx, const isa::Instruction& ins) {
  ctx.charge_work(ins);
  kExec[size_t(ins.op)](ctx, ins);
  if (ctx.checker) [[unlikely]] ctx.checker->on_retire(ctx, ins);  // --check hook (sim/check.h)
}

}  // namespace nkisim::sim
