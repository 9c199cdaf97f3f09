// instruction.h - opcodes, engines, the instruction table's C++ view, and one instruction instance.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isa/access_pattern.h"

namespace nkisim::isa {

// The five in-order instruction streams of a NeuronCore (machine.md §2).
enum class Engine : uint8_t { Tensor, Vector, Scalar, GpSimd, Sync };
inline constexpr int kNumEngines = 5;
std::string_view engine_name(Engine e);  // "tensor", "vector", "scalar", "gpsimd", "sync"
std::optional<Engine> parse_engine(std::string_view name);

enum EngineBit : uint8_t { E_T = 1, E_V = 2, E_S = 4, E_G = 8, E_Y = 16 };
inline uint8_t engine_bit(Engine e) { return uint8_t(1u << unsigned(e)); }
enum MemoryBit : uint8_t { M_HBM = 1, M_SB = 2, M_PS = 4 };
inline uint8_t memory_bit(Memory m) {
  return m == Memory::HBM ? M_HBM : m == Memory::SBUF ? M_SB : m == Memory::PSUM ? M_PS : 0;
}

enum class Opcode : uint16_t {
#define INST(id, ...) id,
#include "isa/instructions.def"
#undef INST
};
inline constexpr int kNumOpcodes = 0
#define INST(id, ...) +1
#include "isa/instructions.def"
#undef INST
    ;

enum class AluOp : uint8_t {
#define ALU(id, name, cls, red) id,
#include "isa/alu_ops.def"
#undef ALU
};
inline constexpr int kNumAluOps = 0
#define ALU(id, name, cls, red) +1
#include "isa/alu_ops.def"
#undef ALU
    ;
enum class AluClass : uint8_t { Bitvec, Arith, Unary, Special };
std::string_view alu_name(AluOp op);
AluClass alu_class(AluOp op);
bool alu_reduce_ok(AluOp op);
std::optional<AluOp> parse_alu(std::string_view name);

enum class ActFunc : uint8_t {
#define ACT(id, name) id,
#include "isa/act_funcs.def"
#undef ACT
};
inline constexpr int kNumActFuncs = 0
#define ACT(id, name) +1
#include "isa/act_funcs.def"
#undef ACT
    ;
std::string_view act_name(ActFunc f);
std::optional<ActFunc> parse_act(std::string_view name);

enum class CostClass : uint8_t {
#define COST(id) id,
#include "isa/costs.def"
#undef COST
};

inline constexpr int kMaxOperands = 6;
struct OperandSpec {
  const char* name = nullptr;
  uint8_t memories = 0;  // MemoryBit mask
  bool required = false;
  bool written = false;  // the instruction writes this operand (all others are only read)
  bool keeps = false;    // written, but some elements may keep their value (a spill reloads it first)
  bool tracking = false; // only for dependency tracking (an indirect DMA's base): never accessed as a whole
};

// What kind of instruction a row is: its TRAITS(...) item in instructions.def (a row without one has none).
// Every "what kind of instruction is this" question in ir/ and sim/ asks these, never a name or a hand list.
enum class Trait : uint16_t {
  DMA = 1u << 0,         // a transfer on a DMA queue (params.dma_queue); its stream's engine only triggers it
  SEQUENCER = 1u << 1,   // runs in the issuing sequencer once every earlier instruction of its stream retired
  CONTROL = 1u << 2,     // no data-path work: semaphore waits / updates or debug output, one issue slot
  REGISTER = 1u << 3,    // a register-file instruction (reg_set, reg_alu, reg_load, reg_store)
  REG_WRITE = 1u << 4,   // writes sequencer register rd (each engine holding registers runs its own copy)
  CROSS_CORE = 1u << 5,  // signals the other core of an LNC=2 launch (core_barrier numbering, semaphore `sem`)
  PE_LOAD = 1u << 6,     // loads the PE array's stationary (the load path)
  PE_MOVE = 1u << 7,     // streams a moving tensor through the loaded stationary into PSUM (the multiply path)
  PE_ARRAY = 1u << 8,    // occupies the whole PE array (both paths)
  REORDER = 1u << 9,     // the reorder pass (ir/schedule.cpp) may move it when it runs no accumulator command
  REUSE = 1u << 10,      // recomputation removal (ir/reuse.cpp) may drop a repeat of it (element-wise, no state)
  ACCUMULATOR = 1u << 11,  // reads the engine's accumulator registers whatever its reduce_cmd (act_read_accumulator)
  ANY_ENGINE = 1u << 12,   // engine=unknown: the back end picks one of its engines by workload (ir/list_schedule.cpp;
                           // SDK nki.isa tensor_copy / memset: "compiler selects best engine based on engine workload")
};

// One row of the instruction table.
struct InstrInfo {
  Opcode op;
  const char* mnemonic;
  uint8_t engines;         // EngineBit mask of engines that can execute it
  Engine default_engine;   // used for engine=unknown
  CostClass cost;
  const char* cost_formula;  // human-readable formula (docs, --explain)
  const char* doc;
  uint8_t num_operands;
  std::array<OperandSpec, kMaxOperands> operands;
};
namespace instr_detail {  // the tables behind info() and traits() (isa/instruction.cpp), inline: asked per instruction
extern const InstrInfo* const kInfo;
extern const uint16_t* const kTraits;
}  // namespace instr_detail
inline const InstrInfo& info(Opcode op) { return instr_detail::kInfo[size_t(op)]; }
inline uint16_t traits(Opcode op) { return instr_detail::kTraits[size_t(op)]; }  // Trait mask
inline bool has_trait(Opcode op, Trait t) { return (traits(op) & uint16_t(t)) != 0; }
std::optional<Opcode> parse_opcode(std::string_view mnemonic);

// Generations an instruction exists on. A row of instructions.def may end its operand list with
// AVAIL(mask); rows without one exist on every generation. Bit v stands for NeuronCore version v
// (TargetDesc::nc_version: 2 = trn1, 3 = trn2, 4 = trn3).
enum NcBit : uint8_t { NC2 = 1u << 2, NC3 = 1u << 3, NC4 = 1u << 4 };
inline constexpr uint8_t kAllNc = NC2 | NC3 | NC4;
uint8_t nc_versions(Opcode op);                   // NcBit mask
bool available_on(Opcode op, int nc_version);
std::string availability_text(uint8_t nc_mask);   // e.g. "trn3 only", "trn2 and later"

// Semaphores: a program has `num_semaphores` counters, all starting at 0.
struct SemWait {  // the instruction may not start until sem >= value
  uint16_t sem = 0;
  uint32_t value = 0;
  bool operator==(const SemWait&) const = default;
};
struct SemUpdate {  // when the instruction completes (for DMA: when the transfer completes): sem += add
  uint16_t sem = 0;
  uint32_t add = 1;
  bool operator==(const SemUpdate&) const = default;
};

// Accumulator register commands (nki-isa.md §1.7 reduce_cmd).
enum class ReduceCmd : uint8_t { idle, reset, reduce, reset_reduce, load_reduce };
inline constexpr int kNumReduceCmds = 5;
std::string_view reduce_cmd_name(ReduceCmd c);
std::optional<ReduceCmd> parse_reduce_cmd(std::string_view name);

// Non-operand fields, from isa/params.def, named by ParamId. An opcode takes the fields of its PARAMS(...)
// item in instructions.def (param_mask); every other field keeps its params.def default (untaken_param).
enum class ParamId : uint8_t {
#define PARAM(field, key, kind, def) field,
#include "isa/params.def"
#undef PARAM
};
inline constexpr int kNumParams = 0
#define PARAM(field, key, kind, def) +1
#include "isa/params.def"
#undef PARAM
    ;
static_assert(kNumParams <= 64, "param masks are 64-bit: widen param_mask before adding more fields");
std::string_view param_key(ParamId p);  // the asm key, e.g. "queue" for dma_queue
uint64_t param_mask(Opcode op);         // bit ParamId of each field the opcode takes
inline bool takes_param(Opcode op, ParamId p) { return (param_mask(op) >> unsigned(p) & 1u) != 0; }
std::string param_list_text(Opcode op);  // its fields' asm keys, e.g. "op0, imm0", or "none"

struct InstrParams {
#define PARAM_TYPE_Alu AluOp
#define PARAM_TYPE_Act ActFunc
#define PARAM_TYPE_ReduceCmd ReduceCmd
#define PARAM_TYPE_F32 float
#define PARAM_TYPE_Bool bool
#define PARAM_TYPE_U16 uint16_t
#define PARAM_TYPE_I32 int32_t
#define PARAM(field, key, kind, def) PARAM_TYPE_##kind field = def;
#include "isa/params.def"
#undef PARAM
  bool operator==(const InstrParams&) const = default;
};

struct Instruction {
  Opcode op = Opcode::sem_wait;
  Engine engine = Engine::Sync;  // the stream it sits in (for DMA: the triggering sequencer)
  uint32_t loc = 0;              // index into Program::locations (0 = unknown)
  std::array<AccessPattern, kMaxOperands> operands{};  // slots as in the table; absent = mem None
  InstrParams params{};
  std::vector<SemWait> waits;
  std::vector<SemUpdate> updates;
  bool operator==(const Instruction&) const = default;

  const AccessPattern& operand(int slot) const { return operands[slot]; }
};

// The first field (params.def order) of ins.params that differs from its default although ins.op does not
// take it; nullopt for a well-formed instruction. The lowering, the binary encoder and the tests check it.
std::optional<ParamId> untaken_param(const Instruction& ins);

}  // namespace nkisim::isa
