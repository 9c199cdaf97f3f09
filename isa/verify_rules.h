// verify_rules.h - the checks the per-family verifiers (isa/verify_*.cpp) are written with; internal to isa/.
// Each check throws Rejected with "<mnemonic>: <message>"; verify() turns it into a Violation.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>

#include "isa/instruction.h"
#include "isa/target.h"
#include "isa/verify.h"

namespace nkisim::isa::rules {

struct Rejected {
  Violation v;
};

// One instruction on one target, with the checks its verifier calls.
struct Check {
  const Instruction& ins;
  const TargetDesc& t;
  const InstrInfo& inf;
  const InstrParams& pr;
  const char* const* names;    // per slot, null = the table's operand name
  const char* const* tensors;  // per slot, null = unknown: the tensor the operand views (the front end's)

  Check(const Instruction& i, const TargetDesc& target, const char* const* operand_names,
        const char* const* tensor_names)
      : ins(i), t(target), inf(info(i.op)), pr(i.params), names(operand_names), tensors(tensor_names) {}

  const AccessPattern& op(int slot) const { return ins.operands[size_t(slot)]; }
  bool has(int slot) const { return op(slot).present(); }
  uint32_t parts(int slot) const { return op(slot).num_partitions; }
  uint64_t free(int slot) const { return op(slot).free_elements(); }
  bool empty(int slot) const { return parts(slot) == 0 || free(slot) == 0; }
  DType dtype(int slot) const { return op(slot).dtype; }
  Memory mem(int slot) const { return op(slot).mem; }
  const char* name(int slot) const {
    if (slot >= inf.num_operands) return "?";
    return names && names[slot] ? names[slot] : inf.operands[size_t(slot)].name;
  }
  int nc() const { return t.nc_version; }

  // Throws "<mnemonic>: msg" (about operand `slot`, -1 = none).
  [[noreturn]] void fail(const std::string& msg, int slot = -1) const;

  // Operands `a` and `b` have the same partitions and elements per partition (both named in the message).
  void same_shape(int a, int b) const;
  // Operands `a` and `b` cover the same number of partitions.
  void same_partitions(int a, int b) const;
  // Operand `slot` has exactly `n` elements per partition.
  void free_is(int slot, uint64_t n) const;
  // Operand `slot` (when present) has an integer dtype (`why` completes "... needs an integer dtype <why>").
  void integer(int slot, const char* why) const;
  // `op` (the field `param`: "op0", "reduce_op", ...) is arithmetic, not a bitvec op.
  void arith(AluOp op, const char* param) const;
  // The optional operands `slots`, when present, are [P, 1] tiles with dst's (operand 0's) P partitions: exactly one
  // element per partition (the SDK's "(data.shape[0], 1)" for per-partition scalars, biases, bounds and reductions).
  void columns(std::initializer_list<int> slots) const;
  // The target's generation has this instruction (the table's AVAIL column).
  void available() const;
};

std::string dt(DType t);                   // dtype_name as a string
std::string alu(AluOp op);                 // alu_name as a string
bool accumulator_op(AluOp op);             // add, subtract, multiply, maximum, minimum
bool folds(ReduceCmd c);                   // reduce, reset_reduce, load_reduce
bool is_bitvec(AluOp op);                  // AluClass::Bitvec

// One verifier per instruction-table row, defined in the isa/verify_<family>.cpp of its executor's family.
#define INST(id, ...) void verify_##id(const Check& c);
#include "isa/instructions.def"
#undef INST

}  // namespace nkisim::isa::rules
