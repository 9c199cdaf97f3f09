// nki_isa_stt.cpp - nki.isa bindings of the stt family: scalar_tensor_tensor, activate2, nc_n_gather (verifiers:
// isa/verify_stt.cpp, executors: sim/exec_stt.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

std::string nl_name(AluOp op) { return "nl." + std::string(isa::alu_name(op)); }

// ------------------------------------------------------------------------------------------- activate2

// An ALU op or None (= nl.bypass).
AluOp op_or_bypass(OpBuilder& b, const Value& v, const char* arg) { return present(v) ? b.alu(v, arg) : AluOp::bypass; }

Value isa_activate2(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},  {"op", true},   {"data", true},  {"imm0", true},      {"imm1", true},
                                 {"op0", true},  {"op1", true},  {"relu_param"},  {"reverse0"},        {"reverse1"},
                                 {"reduce_op"},  {"reduce_res"}, {"reduce_cmd"},  {"name"}};
  Value v[14];
  bind("activate2", ps, a, v);
  const char* fn = "activate2";
  OpBuilder b(in, fn, Opcode::activate2);
  b.operand(0, v[0], "dst");
  auto& p = b.params();
  p.func = b.act(v[1], "op");
  auto* data = b.operand(1, v[2], "data");
  p.op0 = op_or_bypass(b, v[5], "op0");
  p.op1 = op_or_bypass(b, v[6], "op1");
  // imm0 / imm1: a number or a [P, 1] tile; unused (may be None) when their op is bypass.
  for (int k = 0; k < 2; ++k) {
    const Value& iv = v[3 + k];
    const char* arg = k ? "imm1" : "imm0";
    const AluOp op = k ? p.op1 : p.op0;
    if (!present(iv)) {
      if (op != AluOp::bypass)
        raise("ValueError", std::string(fn) + ": " + arg + " is required with op" + std::to_string(k) + "=" +
                                nl_name(op));
      continue;
    }
    column_or_number(b, 2 + k, iv, arg, k ? p.imm1 : p.imm0);
  }
  if (present(v[7])) p.relu_param = b.number(v[7], "relu_param");
  p.reverse0 = flag(in, v[8]);
  p.reverse1 = flag(in, v[9]);
  const ReduceCmd cmd = reduce_cmd(b, v[12], ReduceCmd::idle);
  p.reduce_cmd = cmd;
  if (present(v[10])) {
    p.reduce_op = b.alu(v[10], "reduce_op");
  } else if (cmd != ReduceCmd::idle) {
    raise("ValueError", std::string(fn) + ": reduce_cmd=" + enum_member_name(EnumReduceCmd, int(cmd)) +
                            " needs reduce_op");
  }
  const bool has_res = present(v[11]);
  if (has_res) b.tensor(v[11], "reduce_res");
  b.name(v[13]);
  b.emit();
  if (has_res) {
    OpBuilder r(in, fn, Opcode::act_read_accumulator);
    r.column(r.operand(0, v[11], "reduce_res"), "reduce_res", data);
    r.emit();
  }
  return Value();
}

const Binding kBindings[] = {
    {"scalar_tensor_tensor", Opcode::scalar_tensor_tensor,
     {tensor("dst", 0), tensor("data", 1), value("op0", &P::op0), tensor_or_number("operand0", 2, &P::imm0),
      value("op1", &P::op1), tensor("operand1", 3), value("reverse0", &P::reverse0, false),
      value("reverse1", &P::reverse1, false), kName}},
    {"nc_n_gather", Opcode::nc_n_gather, {tensor("dst", 0), tensor("data", 1), tensor("indices", 2), kName}},
};

}  // namespace

void install_nki_isa_stt(Interp& in, ModuleObj* isa) {
  install_bindings(in, isa, kBindings);
  isa->globals[intern("activate2")] = in.builtin("activate2", isa_activate2);
}

}  // namespace nkisim::frontend
