// verify.cpp - verify(): the checks every instruction shares (operand presence and memories, generation
// availability), then its own verifier (isa/verify_<family>.cpp) through a table generated from instructions.def.
#include "isa/verify.h"

#include <cctype>
#include <sstream>
#include <string_view>
#include <vector>

#include "isa/program.h"
#include "isa/verify_rules.h"

namespace nkisim::isa {
namespace rules {

void Check::fail(const std::string& msg, int slot) const {
  throw Rejected{Violation{std::string(inf.mnemonic) + ": " + msg, slot}};
}

void Check::same_shape(int a, int b) const {
  if (parts(a) == parts(b) && free(a) == free(b)) return;
  std::ostringstream os;
  os << "operand '" << name(b) << "' has " << parts(b) << " partitions x " << free(b) << " elements but '" << name(a)
     << "' has " << parts(a) << " partitions x " << free(a) << " elements";
  fail(os.str(), b);
}

void Check::same_partitions(int a, int b) const {
  if (parts(a) == parts(b)) return;
  fail("operand '" + std::string(name(b)) + "' covers " + std::to_string(parts(b)) + " partitions but '" + name(a) +
           "' covers " + std::to_string(parts(a)),
       b);
}

void Check::free_is(int slot, uint64_t n) const {
  if (free(slot) == n) return;
  fail("operand '" + std::string(name(slot)) + "' must have " + std::to_string(n) + " element" + (n == 1 ? "" : "s") +
           " per partition, got " + std::to_string(free(slot)),
       slot);
}

void Check::integer(int slot, const char* why) const {
  if (!has(slot) || is_integer(dtype(slot))) return;
  fail("operand '" + std::string(name(slot)) + "' needs an integer dtype " + why + ", got " + dt(dtype(slot)), slot);
}

void Check::arith(AluOp op, const char* param) const {
  if (!is_bitvec(op)) return;
  fail(std::string(param) + " must be an arithmetic op, got bitvec op '" + alu(op) + "'");
}

void Check::columns(std::initializer_list<int> slots) const {
  for (int slot : slots) {
    if (!has(slot) || (parts(slot) == parts(0) && free(slot) == 1)) continue;
    std::ostringstream os;
    os << "operand '" << name(slot) << "' must be a [" << parts(0) << ", 1] tile (one value per partition), got "
       << parts(slot) << " partitions x " << free(slot) << (free(slot) == 1 ? " element" : " elements");
    fail(os.str(), slot);
  }
}

void Check::available() const {
  if (available_on(ins.op, t.nc_version)) return;
  fail("not available on " + t.name + " (" + availability_text(nc_versions(ins.op)) + ")");
}

std::string dt(DType t) { return std::string(dtype_name(t)); }
std::string alu(AluOp op) { return std::string(alu_name(op)); }
bool accumulator_op(AluOp op) {
  return op == AluOp::add || op == AluOp::subtract || op == AluOp::multiply || op == AluOp::maximum ||
         op == AluOp::minimum;
}
bool folds(ReduceCmd c) { return c == ReduceCmd::reduce || c == ReduceCmd::reset_reduce || c == ReduceCmd::load_reduce; }
bool is_bitvec(AluOp op) { return alu_class(op) == AluClass::Bitvec; }

namespace {

std::string memories_text(uint8_t mask) {
  std::vector<std::string> names;
  if (mask & M_HBM) names.push_back("HBM");
  if (mask & M_SB) names.push_back("SBUF");
  if (mask & M_PS) names.push_back("PSUM");
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  return s;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& ch : u) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return u;
}

// Present where required, absent or in an allowed memory otherwise; an on-chip operand covers at most the target's
// partitions (the size of the partition dimension, worded as neuronx-cc does).
void operands(const Check& c) {
  for (int s = 0; s < c.inf.num_operands; ++s) {
    const OperandSpec& spec = c.inf.operands[size_t(s)];
    // The messages are built only on failure: this runs for every instruction of every run.
    const auto nm = [&] { return "operand '" + std::string(c.name(s)) + "'"; };
    if (!c.has(s)) {
      if (spec.required) c.fail(nm() + " is missing", s);
      continue;
    }
    if (!(memory_bit(c.mem(s)) & spec.memories))
      c.fail(nm() + " must be in " + memories_text(spec.memories) + ", but " +
                 (c.tensors && c.tensors[s] ? "'" + std::string(c.tensors[s]) + "' is in " : "is in ") +
                 upper(memory_name(c.mem(s))),
             s);
    if (c.mem(s) != Memory::HBM && c.parts(s) > uint32_t(c.t.partitions))
      c.fail(nm() + ": size of partition dimension " + std::to_string(c.parts(s)) +
                 " exceeds architecture limitation of " + std::to_string(uint32_t(c.t.partitions)),
             s);
  }
}

using VerifyFn = void (*)(const Check&);
constexpr VerifyFn kVerify[] = {
#define INST(id, ...) &verify_##id,
#include "isa/instructions.def"
#undef INST
};

}  // namespace
}  // namespace rules

std::optional<Violation> verify(const Instruction& ins, const TargetDesc& t, const char* const* operand_names,
                                const char* const* tensor_names) {
  if (size_t(ins.op) >= size_t(kNumOpcodes)) return Violation{"invalid opcode " + std::to_string(int(ins.op))};
  try {
    const rules::Check c(ins, t, operand_names, tensor_names);
    rules::operands(c);
    c.available();
    rules::kVerify[size_t(ins.op)](c);
  } catch (const rules::Rejected& r) {
    return r.v;
  }
  return std::nullopt;
}

void verify_program(const Program& p, const TargetDesc& t, const std::string& file) {
  for (int e = 0; e < kNumEngines; ++e) {
    const auto& stream = p.streams[size_t(e)];
    for (size_t i = 0; i < stream.size(); ++i) {
      const Instruction& ins = stream[i];
      std::optional<Violation> v = verify(ins, t);
      if (!v) continue;
      if (ins.loc != 0 && ins.loc < p.locations.size()) throw Error(v->message, p.locations[ins.loc]);
      const char* mn = size_t(ins.op) < size_t(kNumOpcodes) ? info(ins.op).mnemonic : "?";
      throw Error(std::string(engine_name(Engine(e))) + " instruction " + std::to_string(i) + " (" + mn + "): " +
                      v->message,
                  file.empty() ? std::nullopt : std::optional<SourceLoc>(SourceLoc{file, 0, 0}));
    }
  }
}

}  // namespace nkisim::isa
