// doc.cpp - docs/isa.md, generated from isa/instructions.def, alu_ops.def, act_funcs.def and costs.def.
#include "isa/doc.h"

#include "isa/instruction.h"

namespace nkisim::isa {
namespace {

std::string engines_text(uint8_t mask) {
  std::string s;
  for (int e = 0; e < kNumEngines; ++e)
    if (mask & (1u << e)) s += (s.empty() ? "" : ", ") + std::string(engine_name(Engine(e)));
  return s;
}

std::string memories_text(uint8_t mask) {
  std::string s;
  for (auto m : {Memory::HBM, Memory::SBUF, Memory::PSUM})
    if (mask & memory_bit(m)) s += (s.empty() ? "" : "/") + std::string(memory_name(m));
  return s;
}

const char* cost_name(CostClass c) {
  switch (c) {
#define COST(id) \
  case CostClass::id: return #id;
#include "isa/costs.def"
#undef COST
  }
  return "?";
}

}  // namespace

std::string render_isa_markdown() {
  std::string s =
      "# nki-sim instruction set\n\n"
      "Generated from `isa/instructions.def` by `build/nki-isa-doc`; do not edit by hand (a test compares).\n\n"
      "Operands are access patterns (`isa/access_pattern.h`), destination first. N is the number of elements per\n"
      "partition of the main input; MIN_II and the clocks come from the target description (`isa/target.cpp`).\n\n"
      "## Instructions\n\n"
      "| instruction | engines (default first) | operands | cost class | cost |\n|---|---|---|---|---|\n";
  for (int i = 0; i < kNumOpcodes; ++i) {
    const InstrInfo& in = info(Opcode(i));
    std::string ops;
    for (int o = 0; o < in.num_operands; ++o) {
      const OperandSpec& sp = in.operands[o];
      ops += (o ? "; " : "") + std::string("`") + sp.name + "` " + memories_text(sp.memories) + (sp.required ? "" : " (optional)");
    }
    std::string eng = std::string(engine_name(in.default_engine));
    std::string rest = engines_text(uint8_t(in.engines & ~engine_bit(in.default_engine)));
    if (!rest.empty()) eng += ", " + rest;
    s += std::string("| `") + in.mnemonic + "` | " + eng + " | " + (ops.empty() ? "—" : ops) + " | " + cost_name(in.cost) +
         " | " + in.cost_formula + " |\n";
  }
  s += "\n## Semantics\n\nEach instruction lists the fields it takes (`isa/params.def`, `key=value` in the assembly); the "
       "assembler rejects any other, and the binary format stores only these.\n\n";
  for (int i = 0; i < kNumOpcodes; ++i) {
    const InstrInfo& in = info(Opcode(i));
    const uint8_t nc = nc_versions(Opcode(i));
    std::string fields;
    for (int p = 0; p < kNumParams; ++p)
      if (takes_param(Opcode(i), ParamId(p))) fields += (fields.empty() ? "`" : ", `") + std::string(param_key(ParamId(p))) + "`";
    s += std::string("- `") + in.mnemonic + "`: " + in.doc + (nc == kAllNc ? "" : " **" + availability_text(nc) + ".**") +
         " Fields: " + (fields.empty() ? "none" : fields) + ".\n";
  }
  s += "\n## ALU operators (`op0=` / `op1=`)\n\n| name | class | usable as a reduction |\n|---|---|---|\n";
  for (int i = 0; i < kNumAluOps; ++i) {
    auto op = AluOp(i);
    std::string_view n = alu_name(op);
    const char* cls[] = {"bitvec", "arith", "unary", "special"};
    s += "| `" + std::string(n) + "` | " + cls[int(alu_class(op))] + " | " + (alu_reduce_ok(op) ? "yes" : "no") + " |\n";
  }
  s += "\n## Activation functions (`func=`)\n\n";
  std::string acts;
  for (int i = 0; i < kNumActFuncs; ++i)
    acts += (i ? ", " : "") + std::string("`") + std::string(act_name(ActFunc(i))) + "`";
  s += acts + "\n";
  return s;
}

}  // namespace nkisim::isa
