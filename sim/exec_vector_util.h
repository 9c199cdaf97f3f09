// exec_vector_util.h - helpers shared by the Vector/Scalar/GpSimd extra executors (sim/exec_vector*.cpp):
// whole-operand gathers, [P,1] result columns, accumulator registers and located error messages.
#pragma once
#include <string>

#include "sim/exec.h"

namespace nkisim::sim::vec {

// "<mnemonic>: " + msg, thrown at the instruction's kernel line.
[[noreturn]] void fail(ExecContext& ctx, const isa::Instruction& ins, const std::string& msg);
// The table name of operand `slot` of `ins` ("dst", "data", ...).
const char* slot_name(const isa::Instruction& ins, int slot);

// Rejects the instruction when the target's generation lacks it (table AVAIL column).
void require_available(ExecContext& ctx, const isa::Instruction& ins);
// Operands `a` and `b` must cover the same number of partitions.
void require_partitions(ExecContext& ctx, const isa::Instruction& ins, int slot_a, const View& a, int slot_b,
                        const View& b);
// Operand `slot` must have exactly `n` elements per partition.
void require_free(ExecContext& ctx, const isa::Instruction& ins, int slot, const View& v, uint64_t n);
// Operand `slot` must have an integer dtype (`why` completes "... needs an integer dtype <why>").
void require_integer(ExecContext& ctx, const isa::Instruction& ins, int slot, const View& v, const char* why);
// Arithmetic (not bitvec) op for `param` ("op0", "reduce_op", ...).
void require_arith(ExecContext& ctx, const isa::Instruction& ins, isa::AluOp op, const char* param);

// Every partition of `v` in element order, partition-major (v.free_elems per partition), in scratch k.
float* gather_all_f32(ExecContext& ctx, const View& v, int k);
uint32_t* gather_all_int(ExecContext& ctx, const View& v, int k);
uint8_t* gather_all_raw(ExecContext& ctx, const View& v, int k);  // k in 0..3
void scatter_all_f32(const View& v, const float* buf);
void scatter_all_int(const View& v, const uint32_t* buf);
void scatter_all_raw(const View& v, const uint8_t* buf);

// Writes vals[i] (negated when `negate`) to element 0 of partition i of the optional [P,1] operand `slot`;
// does nothing when it is absent. Its partition count must be P.
void write_column(ExecContext& ctx, const isa::Instruction& ins, int slot, uint32_t P, const float* vals,
                  bool negate);

// Accumulator registers (nki-isa.md §1.8).
// The reset value of a reduce op: add/subtract 0, multiply 1, maximum -inf, minimum +inf.
float reduce_identity(isa::AluOp op);
// Ops an accumulator can fold with: add, subtract, multiply, maximum, minimum.
bool accumulator_op_ok(isa::AluOp op);
// The engine's register file (ScalarE or VectorE), one fp32 per partition lane, sized on first use.
float* accumulators(ExecContext& ctx, isa::Engine e);
// One lane: applies `cmd` (reset: identity; reset_reduce: identity then fold; load_reduce: `init` then fold;
// reduce: fold onto the current value; idle: nothing). Folding is acc = op(acc, v[j]) left to right in fp32.
void accumulate(float& acc, isa::ReduceCmd cmd, isa::AluOp op, float init, const float* v, size_t n);

// Integer <-> dtype helpers for GpSimd int32 results: value converted to dst's dtype (floats: nearest fp32
// then dst rounding; integers: saturated to the dtype's range; 32-bit integers: the bits as is).
uint32_t i32_to_bits(isa::DType t, int32_t v);

}  // namespace nkisim::sim::vec
