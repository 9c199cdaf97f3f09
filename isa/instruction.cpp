// instruction.cpp - the C++ view of the instruction table and of the op/function/engine enums.
#include "isa/instruction.h"

#include <array>
#include <initializer_list>

namespace nkisim::isa {
namespace {

// Operand flags of instructions.def: required?, written?, may the write leave elements unchanged?, only tracked?
struct OperandFlags {
  bool required, written, keeps = false, tracking = false;
};
constexpr OperandFlags IN{true, false}, OUT{true, true}, OPT_IN{false, false}, OPT_OUT{false, true},
    OUT_KEEP{true, true, true}, OPT_TRACK{false, true, false, true};
#define OPND(n, mem, flags) OperandSpec{#n, uint8_t(mem), flags.required, flags.written, flags.keeps, flags.tracking},

template <size_t N>
constexpr uint8_t count_operands(const std::array<OperandSpec, N>& a) {
  uint8_t n = 0;
  for (auto& o : a) n += o.name != nullptr;
  return n;
}

constexpr Engine first_engine(uint8_t bit) {
  return bit == E_T ? Engine::Tensor
         : bit == E_V ? Engine::Vector
         : bit == E_S ? Engine::Scalar
         : bit == E_G ? Engine::GpSimd
                      : Engine::Sync;
}

#define AVAIL(mask)  // the generation mask, traits and params are read by the expansions below
#define TRAITS(...)
#define PARAMS(...)
#define INST(id, engines, def_engine, cost, formula, doc, ...)                                        \
  InstrInfo{Opcode::id,                                                                              \
            #id,                                                                                     \
            uint8_t(engines),                                                                        \
            first_engine(def_engine),                                                                \
            CostClass::cost,                                                                         \
            formula,                                                                                 \
            doc,                                                                                     \
            count_operands(std::array<OperandSpec, kMaxOperands>{__VA_ARGS__}),                      \
            std::array<OperandSpec, kMaxOperands>{__VA_ARGS__}},
const InstrInfo kTable[] = {
#include "isa/instructions.def"
};
#undef INST
#undef OPND
#undef AVAIL

// Second expansion of the table: only the AVAIL(mask) items of each row survive (0 = no AVAIL item).
#define OPND(n, mem, flags)
#define AVAIL(mask) | uint8_t(mask)
#define INST(id, engines, def_engine, cost, formula, doc, ...) uint8_t(0 __VA_ARGS__),
const uint8_t kNcVersions[] = {
#include "isa/instructions.def"
};
#undef INST
#undef AVAIL
#define AVAIL(mask)

// Third expansion: the TRAITS(...) items (the trait names without `Trait::`).
constexpr uint16_t trait_bits(std::initializer_list<Trait> ts) {
  uint16_t m = 0;
  for (Trait t : ts) m |= uint16_t(t);
  return m;
}
namespace trait_names {
using enum Trait;
#undef TRAITS
#define TRAITS(...) | trait_bits({__VA_ARGS__})
#define INST(id, engines, def_engine, cost, formula, doc, ...) uint16_t(0 __VA_ARGS__),
const uint16_t kTraits[] = {
#include "isa/instructions.def"
};
#undef INST
#undef TRAITS
#define TRAITS(...)
}  // namespace trait_names

// Fourth expansion: the PARAMS(...) items (params.def field names without `ParamId::`).
constexpr uint64_t param_bits(std::initializer_list<ParamId> ps) {
  uint64_t m = 0;
  for (ParamId p : ps) m |= uint64_t(1) << unsigned(p);
  return m;
}
namespace param_names {
using enum ParamId;
#undef PARAMS
#define PARAMS(...) | param_bits({__VA_ARGS__})
#define INST(id, engines, def_engine, cost, formula, doc, ...) uint64_t(0 __VA_ARGS__),
const uint64_t kParamMasks[] = {
#include "isa/instructions.def"
};
#undef INST
}  // namespace param_names
#undef PARAMS
#undef TRAITS
#undef AVAIL
#undef OPND

const char* const kParamKeys[] = {
#define PARAM(field, key, kind, def) key,
#include "isa/params.def"
#undef PARAM
};

bool param_equal(float a, float b) { return float_to_bits(a) == float_to_bits(b); }  // -0 and NaNs differ
template <class T>
bool param_equal(T a, T b) { return a == b; }

struct AluRow {
  const char* name;
  AluClass cls;
  bool reduce_ok;
};
const AluRow kAlu[] = {
#define ALU(id, name, cls, red) {name, AluClass::cls, red},
#include "isa/alu_ops.def"
#undef ALU
};
const char* const kAct[] = {
#define ACT(id, name) name,
#include "isa/act_funcs.def"
#undef ACT
};
const char* const kEngines[] = {"tensor", "vector", "scalar", "gpsimd", "sync"};

}  // namespace

static_assert(sizeof(kTable) / sizeof(kTable[0]) == size_t(kNumOpcodes));

const InstrInfo* const instr_detail::kInfo = kTable;
const uint16_t* const instr_detail::kTraits = trait_names::kTraits;

uint64_t param_mask(Opcode op) { return param_names::kParamMasks[size_t(op)]; }
std::string_view param_key(ParamId p) { return kParamKeys[size_t(p)]; }
std::string param_list_text(Opcode op) {
  std::string s;
  for (int i = 0; i < kNumParams; ++i)
    if (takes_param(op, ParamId(i))) s += (s.empty() ? "" : ", ") + std::string(kParamKeys[i]);
  return s.empty() ? "none" : s;
}

std::optional<ParamId> untaken_param(const Instruction& ins) {
  const uint64_t takes = param_mask(ins.op);
  const InstrParams d{};
#define PARAM(field, key, kind, def)                                                              \
  if (!(takes >> unsigned(ParamId::field) & 1u) && !param_equal(ins.params.field, d.field)) \
    return ParamId::field;
#include "isa/params.def"
#undef PARAM
  return std::nullopt;
}

uint8_t nc_versions(Opcode op) {
  const uint8_t m = kNcVersions[size_t(op)];
  return m ? m : kAllNc;
}
bool available_on(Opcode op, int nc_version) {
  return nc_version >= 0 && nc_version < 8 && (nc_versions(op) & (1u << nc_version)) != 0;
}
std::string availability_text(uint8_t mask) {
  const char* const names[] = {"trn1", "trn2", "trn3"};  // nc_version 2, 3, 4
  std::string list;
  int n = 0, first = 0;
  for (int v = 2; v <= 4; ++v)
    if (mask & (1u << v)) {
      list += (n++ ? ", " : "") + std::string(names[v - 2]);
      if (n == 1) first = v;
    }
  if (n == 0) return "no generation";
  if (n == 1) return list + " only";
  if (n == 5 - first) return std::string(names[first - 2]) + " and later";  // first .. 4, no gaps
  return list;
}

std::optional<Opcode> parse_opcode(std::string_view m) {
  for (auto& r : kTable)
    if (m == r.mnemonic) return r.op;
  return std::nullopt;
}

std::string_view alu_name(AluOp op) { return kAlu[size_t(op)].name; }
AluClass alu_class(AluOp op) { return kAlu[size_t(op)].cls; }
bool alu_reduce_ok(AluOp op) { return kAlu[size_t(op)].reduce_ok; }
std::optional<AluOp> parse_alu(std::string_view name) {
  for (size_t i = 0; i < std::size(kAlu); ++i)
    if (name == kAlu[i].name) return AluOp(i);
  return std::nullopt;
}

std::string_view act_name(ActFunc f) { return kAct[size_t(f)]; }
std::optional<ActFunc> parse_act(std::string_view name) {
  for (size_t i = 0; i < std::size(kAct); ++i)
    if (name == kAct[i]) return ActFunc(i);
  return std::nullopt;
}

namespace {
const char* const kReduceCmds[] = {"idle", "reset", "reduce", "reset_reduce", "load_reduce"};
}
std::string_view reduce_cmd_name(ReduceCmd c) { return kReduceCmds[size_t(c)]; }
std::optional<ReduceCmd> parse_reduce_cmd(std::string_view name) {
  for (size_t i = 0; i < std::size(kReduceCmds); ++i)
    if (name == kReduceCmds[i]) return ReduceCmd(i);
  return std::nullopt;
}

std::string_view engine_name(Engine e) { return kEngines[size_t(e)]; }
std::optional<Engine> parse_engine(std::string_view name) {
  for (size_t i = 0; i < std::size(kEngines); ++i)
    if (name == kEngines[i]) return Engine(i);
  return std::nullopt;
}

std::string_view memory_name(Memory m) {
  switch (m) {
    case Memory::None: return "none";
    case Memory::HBM: return "hbm";
    case Memory::SBUF: return "sbuf";
    case Memory::PSUM: return "psum";
  }
  return "?";
}

}  // namespace nkisim::isa
