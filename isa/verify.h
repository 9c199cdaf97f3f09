// verify.h - the static hardware rules of one instruction: every rule that needs only the instruction and the
// target (operand presence and memories, generation availability, shapes and partition counts, dtypes, size
// limits, parameter values). One verifier per instruction (isa/verify_<family>.cpp, named like the executors
// sim/exec_<family>.cpp), dispatched over the instruction table. Run in one place per entry: lowering
// (ir/lower.cpp, at the kernel line), nki-as, and the validation pass of every run mode (sim/scheduler_prepare.cpp,
// which also covers --program and binary programs). Executors assume verified input and keep only what is known
// at run time (dynamic offsets, indirect rows, data values, the PE array's loaded stationary).
#pragma once
#include <optional>
#include <string>

#include "isa/instruction.h"

namespace nkisim::isa {

struct TargetDesc;
struct Program;

// A broken rule. `message` names the instruction and the operand or field ("bn_stats: data has 1024 elements
// per partition; at most 512 (bn_stats_fmax)"); `slot` is the operand it is about, -1 for a field or the whole
// instruction.
struct Violation {
  std::string message;
  int slot = -1;
};

// The first rule `ins` breaks on target `t` (its generation, PE array, PSUM banks), or nullopt. Operand bounds
// within a memory are the simulator's (sim/scheduler_prepare.cpp); `ins.engine` is the stream it sits in.
// `operand_names` (kMaxOperands entries, null = the table's) names the operands in the message: the front end
// passes the NKI argument names, and in `tensor_names` (null = unknown) the tensors they view, which a memory
// violation names ("operand 'dst' must be in SBUF or PSUM, but 'x' is in HBM").
std::optional<Violation> verify(const Instruction& ins, const TargetDesc& t,
                                const char* const* operand_names = nullptr,
                                const char* const* tensor_names = nullptr);

// Input dtypes of the PE array (nki-isa.md §3.1): float8_e4m3, float8_e5m2, bfloat16, float16, tfloat32, float32,
// and float8_e4m3fn from NC-v4 (trn3) on. The front end's nc_matmul and multiply_moving's verifier ask it.
bool pe_input_dtype(DType t, int nc_version);

// verify() over every instruction of `p`: throws the first violation as an Error at the instruction's .loc
// when it has one, else at `file` (may be empty) naming it first, as nki-sim --program does:
// "vector instruction 3 (bn_stats): bn_stats: ...".
void verify_program(const Program& p, const TargetDesc& t, const std::string& file);

}  // namespace nkisim::isa
