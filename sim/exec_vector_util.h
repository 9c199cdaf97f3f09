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


// Every partition of `v` in element order, partition-major (v.free_elems per partition), in scratch k.
float* gather_all_f32(ExecContext& ctx, const View& v, int k);
uint32_t* gather_all_int(ExecContext& ctx, const View& v, int k);
uint8_t* gather_all_raw(ExecContext& ctx, const View& v, int k);  // k in 0..3
void scatter_all_f32(const View& v, const float* buf);
void scatter_all_int(const View& v, const uint32_t* buf);
void scatter_all_raw(const View& v, const uint8_t* buf);

// Writes vals[i] (negated when `negate`) to element 0 of partition i of the optional [P,1] operand `slot`;
// does nothing when it is absent. It is a [P, 1] tile (checked by isa::verify).
void write_column(ExecContext& ctx, const isa::Instruction& ins, int slot, uint32_t P, const float* vals,
                  bool negate);

// Accumulator registers (nki-isa.md §1.8).
// The reset value of a reduce op: add/subtract 0, multiply 1, maximum -inf, minimum +inf.
float reduce_identity(isa::AluOp op);
// The engine's register file (ScalarE or VectorE), one fp32 per partition lane, sized on first use.
float* accumulators(ExecContext& ctx, isa::Engine e);
// One lane: applies `cmd` (reset: identity; reset_reduce: identity then fold; load_reduce: `init` then fold;
// reduce: fold onto the current value; idle: nothing). Folding is acc = op(acc, v[j]) left to right in fp32.
void accumulate(float& acc, isa::ReduceCmd cmd, isa::AluOp op, float init, const float* v, size_t n);

// Integer <-> dtype helpers for GpSimd int32 results: value converted to dst's dtype (floats: nearest fp32
// then dst rounding; integers: saturated to the dtype's range; 32-bit integers: the bits as is).
uint32_t i32_to_bits(isa::DType t, int32_t v);

}  // namespace nkisim::sim::vec
