// nki_isa_stt.cpp - nki.isa bindings of the stt family: scalar_tensor_tensor, activate2, nc_n_gather (verifiers:
// isa/verify_stt.cpp, executors: sim/exec_stt.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

std::string nl_name(AluOp op) { return "nl." + std::string(isa::alu_name(op)); }

// ------------------------------------------------------------------------------------------- activate2

// op0 / op1: an ALU op or None (= nl.bypass); imm0 / imm1: a number or a [P, 1] tile, unused (may be None) when
// their op is bypass; reduce_op is needed by a reduce_cmd other than idle.
void activate2_args(Interp&, OpBuilder& b, const Value* v) {
  auto& p = b.params();
  p.op0 = present(v[5]) ? b.alu(v[5], "op0") : AluOp::bypass;
  p.op1 = present(v[6]) ? b.alu(v[6], "op1") : AluOp::bypass;
  for (int k = 0; k < 2; ++k) {
    const Value& iv = v[3 + k];
    const char* arg = k ? "imm1" : "imm0";
    const AluOp op = k ? p.op1 : p.op0;
    if (!present(iv)) {
      if (op != AluOp::bypass)
        raise("ValueError", std::string("activate2: ") + arg + " is required with op" + std::to_string(k) + "=" +
                                nl_name(op));
      continue;
    }
    column_or_number(b, 2 + k, iv, arg, k ? p.imm1 : p.imm0);
  }
  if (!present(v[10]) && p.reduce_cmd != ReduceCmd::idle)
    raise("ValueError", std::string("activate2: reduce_cmd=") + enum_member_name(EnumReduceCmd, int(p.reduce_cmd)) +
                            " needs reduce_op");
  if (present(v[11])) b.tensor(v[11], "reduce_res");
}
void activate2_res(Interp& in, OpBuilder&, const Value* v) { read_accumulator(in, "activate2", v[11], v[2]); }

const Binding kBindings[] = {
    {"scalar_tensor_tensor", Opcode::scalar_tensor_tensor,
     {tensor("dst", 0), tensor("data", 1), value("op0", &P::op0), tensor_or_number("operand0", 2, &P::imm0),
      value("op1", &P::op1), tensor("operand1", 3), value("reverse0", &P::reverse0, false),
      value("reverse1", &P::reverse1, false), kName}},
    {"activate2", Opcode::activate2,
     {tensor("dst", 0), value("op", &P::func), tensor("data", 1), custom("imm0", true), custom("imm1", true),
      custom("op0", true), custom("op1", true), value("relu_param", &P::relu_param, false),
      value("reverse0", &P::reverse0, false), value("reverse1", &P::reverse1, false),
      value("reduce_op", &P::reduce_op, false), custom("reduce_res"), value("reduce_cmd", &P::reduce_cmd, false),
      kName},
     activate2_args, activate2_res},
    {"nc_n_gather", Opcode::nc_n_gather, {tensor("dst", 0), tensor("data", 1), tensor("indices", 2), kName}},
};

}  // namespace

void install_nki_isa_stt(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
