// dynamic_offset.cpp - run-time offsets of on-chip compute operands (isa::DynOffset, made by
// `.ap(scalar_offset=...)` and `.select(dim, tensor)`; docs/dynamic-offsets.md): the value is read when the
// instruction executes (from SBUF or the engine's sequencer register), the operand moves by value x stride
// elements and must stay inside its base tensor, and the instruction costs at least MIN_II_DYNAMIC (isa/cost.cpp).
#include <sstream>

#include "sim/exec.h"

namespace nkisim::sim {

void ExecContext::check_dynamic(const isa::Instruction& ins, int slot) const {
  const isa::AccessPattern& ap = ins.operands[size_t(slot)];
  const isa::DynOffset& d = ap.dyn;
  const isa::InstrInfo& inf = isa::info(ins.op);
  const std::string head = std::string(inf.mnemonic) + ": operand '" + inf.operands[size_t(slot)].name + "' ";
  if (d.kind > isa::DynOffset::Reg) fail(ins, head + "has an invalid dynamic offset kind " + std::to_string(int(d.kind)));
  if (ap.mem == isa::Memory::HBM)
    fail(ins, head + "is in HBM: dynamic offsets (dyn) apply to on-chip operands; DMA uses ind/idx");
  const MemorySpace& space = mem.of(ap.mem);
  if (d.lo < 0 || d.hi < d.lo || uint64_t(d.hi) > space.partition_bytes())
    fail(ins, head + "has dynamic offset bounds [" + std::to_string(d.lo) + ", " + std::to_string(d.hi) +
                  ") outside the partition's " + std::to_string(space.partition_bytes()) + " bytes");
  if (d.kind == isa::DynOffset::Sbuf) {
    if (!isa::is_integer(d.dtype))
      fail(ins, head + "has a dynamic offset of non-integer dtype " + std::string(isa::dtype_name(d.dtype)));
    const uint64_t es = isa::dtype_size(d.dtype);
    if (d.src >= mem.sbuf.partitions() || d.addr < 0 || uint64_t(d.addr) + es > mem.sbuf.partition_bytes())
      fail(ins, head + "reads its dynamic offset outside SBUF (partition " + std::to_string(d.src) + ", byte " +
                    std::to_string(d.addr) + ")");
  } else if (d.src >= regs[size_t(ins.engine)].size()) {
    fail(ins, head + "reads its dynamic offset from register r" + std::to_string(d.src) + " out of range [0, " +
                  std::to_string(regs[size_t(ins.engine)].size()) + ")");
  }
}

int64_t ExecContext::dynamic_shift(const isa::Instruction& ins, int slot, const View& v) {
  check_dynamic(ins, slot);
  const isa::AccessPattern& ap = ins.operands[size_t(slot)];
  const isa::DynOffset& d = ap.dyn;
  int64_t value;
  if (d.kind == isa::DynOffset::Sbuf) {
    const unsigned es = unsigned(isa::dtype_size(d.dtype));
    mem.sbuf.prepare(d.src, 1, uint64_t(d.addr), uint64_t(d.addr) + es);
    uint32_t u = 0;
    load_int(d.dtype, mem.sbuf.ptr(d.src, 0) + d.addr, es, 1, &u);
    const bool is_signed = d.dtype == isa::DType::int32 || d.dtype == isa::DType::int16 || d.dtype == isa::DType::int8;
    value = is_signed ? int64_t(int32_t(u)) : int64_t(u);
  } else {
    value = regs[size_t(ins.engine)][d.src];
  }
  const int64_t delta = value * int64_t(d.stride) * int64_t(isa::dtype_size(ap.dtype));
  if (!v.empty() && (v.lo + delta < d.lo || v.hi + delta > d.hi)) {
    const isa::InstrInfo& inf = isa::info(ins.op);
    std::ostringstream os;
    os << inf.mnemonic << ": out-of-bounds dynamic offset on operand '" << inf.operands[size_t(slot)].name
       << "': offset " << value << " (" << (d.kind == isa::DynOffset::Sbuf ? "read from SBUF" : "register r")
       << (d.kind == isa::DynOffset::Sbuf ? "" : std::to_string(d.src)) << ") x " << d.stride
       << " elements moves the access to bytes [" << v.lo + delta << ", " << v.hi + delta
       << ") of each partition, outside its tensor's bytes [" << d.lo << ", " << d.hi << ")";
    fail(ins, os.str());
  }
  return delta;
}

}  // namespace nkisim::sim
