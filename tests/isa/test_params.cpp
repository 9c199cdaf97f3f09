// test_params.cpp - the PARAMS items of the instruction table: which fields each instruction takes, and the
// asm parser, printer and binary codec handling exactly those.
#include <doctest/doctest.h>

#include <cstring>

#include "isa/binary.h"
#include "isa/asm_parse.h"
#include "isa/program.h"

using namespace nkisim;
using namespace nkisim::isa;

namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_asm(text, "t.s");
  } catch (const Error& e) {
    return (e.loc ? std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " : "") + e.what();
  }
  return "";
}

const std::string kHead = ".target trn2\n.kernel k\n.semaphores 4\n.stream vector\n";
const std::string kTT = "  tensor_tensor dst=sbuf:float32@p0:1+0x0[[1,4]] data1=sbuf:float32@p0:1+0x10[[1,4]] "
                        "data2=sbuf:float32@p0:1+0x20[[1,4]]";

// Sets field p of `ins` to a value different from its default (so the printer shows it).
void set_nondefault(InstrParams& p, ParamId id) {
  int i = 0;
#define PARAM(field, key, kind, def) \
  if (i++ == int(id)) bump(p.field);
  auto bump = [](auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, bool>) v = !v;
    else if constexpr (std::is_same_v<T, float>) v = v + 1.5f;
    else if constexpr (std::is_same_v<T, AluOp>) v = v == AluOp::add ? AluOp::subtract : AluOp::add;
    else if constexpr (std::is_same_v<T, ActFunc>) v = ActFunc(int(v) == 1 ? 2 : 1);
    else if constexpr (std::is_same_v<T, ReduceCmd>) v = v == ReduceCmd::reduce ? ReduceCmd::reset : ReduceCmd::reduce;
    else v = T(v + 2);
  };
#include "isa/params.def"
#undef PARAM
}

// One instruction of `op` with every required operand present (a small SBUF or HBM pattern).
Instruction minimal(Opcode op) {
  const InstrInfo& in = info(op);
  Instruction ins;
  ins.op = op;
  for (int e = 0; e < kNumEngines; ++e)
    if (in.engines & (1u << e)) ins.engine = Engine(e);
  for (int s = 0; s < in.num_operands; ++s) {
    if (!in.operands[s].required) continue;
    AccessPattern& ap = ins.operands[s];
    ap.mem = in.operands[s].memories & M_SB ? Memory::SBUF : in.operands[s].memories & M_PS ? Memory::PSUM : Memory::HBM;
    ap.num_partitions = 1;
    ap.offset = 64 * s;
    ap.num_dims = 1;
    ap.dims[0] = {1, 1};
  }
  return ins;
}

}  // namespace

TEST_CASE("params: nki-as rejects a field the instruction does not take, naming both") {
  CHECK(parse_error(kHead + kTT + " op0=add\n") == "");
  CHECK(parse_error(kHead + kTT + " shuffle3=5 tdim2=7 rd=3 pipe=2\n") ==
        "5:122: tensor_tensor does not take the field 'shuffle3' (its fields: op0)");
  CHECK(parse_error(kHead + kTT + " rd=3\n") == "5:122: tensor_tensor does not take the field 'rd' (its fields: op0)");
  CHECK(parse_error(".target trn2\n.kernel k\n.semaphores 4\n.stream sync\n  sem_wait queue=1\n") ==
        "5:12: sem_wait does not take the field 'queue' (its fields: none)");
  CHECK(param_list_text(Opcode::dma_copy) == "queue, dge, oob_skip, ind, ind_opnds, ind_stride, ind_before, ind_size, rs0");
}

TEST_CASE("params: every taken field round-trips through asm and binary, alone and all together") {
  for (int o = 0; o < kNumOpcodes; ++o) {
    const Opcode op = Opcode(o);
    CAPTURE(info(op).mnemonic);
    Instruction all = minimal(op);
    for (int f = 0; f < kNumParams; ++f) {
      if (!takes_param(op, ParamId(f))) continue;
      CAPTURE(param_key(ParamId(f)));
      Instruction one = minimal(op);
      set_nondefault(one.params, ParamId(f));
      set_nondefault(all.params, ParamId(f));
      CHECK_FALSE(untaken_param(one).has_value());
      for (const Instruction& ins : {one, all}) {
        Program p;
        p.num_semaphores = 8;
        p.strings = {"s"};
        p.streams[size_t(ins.engine)].push_back(ins);
        const Program back = parse_asm(print_asm(p), "t.s");
        CHECK(back == p);
        CHECK(decode_program(encode_program(p), "t.nkibin") == p);
      }
    }
  }
}

TEST_CASE("params: an untaken field is found, printed, and refused by the encoder") {
  Instruction ins = minimal(Opcode::tensor_tensor);
  CHECK_FALSE(untaken_param(ins).has_value());
  ins.params.shuffle3 = 5;
  REQUIRE(untaken_param(ins).has_value());
  CHECK(*untaken_param(ins) == ParamId::shuffle3);
  CHECK(print_instruction(ins).find("shuffle3=5") != std::string::npos);  // never hidden
  Program p;
  p.streams[size_t(ins.engine)].push_back(ins);
  try {
    encode_program(p);
    FAIL("encoded an untaken field");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "tensor_tensor sets the field 'shuffle3' it does not take (its fields: op0); it cannot be encoded");
  }
  // A float field set to -0.0 differs from its default 0.0 (bitwise).
  Instruction z = minimal(Opcode::tensor_copy);
  z.params.imm0 = -0.0f;
  CHECK(untaken_param(z) == ParamId::imm0);
}

TEST_CASE("params: the binary stores only the fields an instruction takes") {
  Program a, b;
  a.streams[size_t(Engine::Vector)].push_back(minimal(Opcode::tensor_copy));  // no fields
  b.streams[size_t(Engine::Vector)].push_back(minimal(Opcode::tensor_tensor));  // op0: one byte
  const size_t na = encode_program(a).size(), nb = encode_program(b).size();
  // op0 (u8) and the third operand record: u8 mem, u8 dtype, u32 x2, i64 x2, u8 dims, one (i64, u32) dim, u8 dyn kind.
  CHECK(nb == na + 1 + (1 + 1 + 4 + 4 + 8 + 8 + 1 + 12 + 1));
}
