// nki_isa_elementwise.cpp - nki.isa bindings of the elementwise family: tensor_tensor, tensor_scalar, activation,
// activation_reduce, memset (verifiers: isa/verify_elementwise.cpp, executors: sim/exec_elementwise.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// tensor_scalar: op1 and operand1 come together; reverse1 only with them.
void second_op(Interp& in, OpBuilder& b, const Value* v) {
  if (present(v[5]) && !present(v[6])) raise("TypeError", "tensor_scalar: operand1 is required when op1 is given");
  if (!present(v[5]) && present(v[6])) raise("TypeError", "tensor_scalar: operand1 is given but op1 is not");
  if (present(v[5]) && present(v[7])) b.params().reverse1 = in.truthy(v[7]);
}

// ------------------------------------------------------------------------------------ ScalarE activation

// activation / activation_reduce: bias is a (P, 1) tile or a number (bias_imm); reduce_op can only be nl.add (the
// accumulator sums); reduce_res is read_accumulator's, after the activation.
void activation_args(OpBuilder& b, const Value& bias, const Value& reduce_op, const Value& reduce_res) {
  if (present(bias)) {
    if (bias.is(VK::Tensor)) {
      b.operand(2, bias, "bias");
    } else {
      if (!bias.is_number())
        raise("TypeError", std::string(b.fname()) + ": bias must be a (P, 1) tensor or a number, got '" +
                               type_name(bias) + "'");
      b.params().bias_imm = float(bias.num());
    }
  }
  if (present(reduce_op)) require_ops(b.fname(), b.alu(reduce_op, "reduce_op"), "reduce_op", {AluOp::add}, "nl.add");
  const ReduceCmd cmd = b.params().reduce_cmd;
  if (cmd == ReduceCmd::reduce || cmd == ReduceCmd::reset_reduce) b.params().reduce_op = AluOp::add;
  if (present(reduce_res)) b.tensor(reduce_res, "reduce_res");
}
void activation_hook(Interp&, OpBuilder& b, const Value* v) { activation_args(b, v[3], v[5], v[6]); }
void activation_reduce_hook(Interp&, OpBuilder& b, const Value* v) {
  b.params().reduce_cmd = ReduceCmd::reset_reduce;
  activation_args(b, v[5], v[3], v[4]);
}
void activation_res(Interp& in, OpBuilder&, const Value* v) { read_accumulator(in, "activation", v[6], v[2]); }
void activation_reduce_res(Interp& in, OpBuilder&, const Value* v) {
  read_accumulator(in, "activation_reduce", v[4], v[2]);
}

const Binding kBindings[] = {
    {"tensor_tensor", Opcode::tensor_tensor,
     {tensor("dst", 0), tensor("data1", 1), tensor("data2", 2), value("op", &P::op0), kEngine, kName}},
    {"tensor_scalar", Opcode::tensor_scalar,
     {tensor("dst", 0), tensor("data", 1), value("op0", &P::op0), tensor_or_number("operand0", 2, &P::imm0),
      value("reverse0", &P::reverse0, false), value("op1", &P::op1, false),
      tensor_or_number("operand1", 3, &P::imm1, false), custom("reverse1"), kEngine, kName},
     second_op},
    {"activation", Opcode::activation,
     {tensor("dst", 0), value("op", &P::func), tensor("data", 1), custom("bias"),
      tensor_or_number("scale", 3, &P::scale, false), custom("reduce_op"), custom("reduce_res"),
      value("reduce_cmd", &P::reduce_cmd, false), kName},
     activation_hook, activation_res},
    {"activation_reduce", Opcode::activation,
     {tensor("dst", 0), value("op", &P::func), tensor("data", 1), custom("reduce_op", true),
      custom("reduce_res", true), custom("bias"), tensor_or_number("scale", 3, &P::scale, false), kName},
     activation_reduce_hook, activation_reduce_res},
    // value: 0 for packed dtypes, an integer for integer ones (isa::verify)
    {"memset", Opcode::memset, {tensor("dst", 0), value("value", &P::imm0), kEngine, kName}},
};

}  // namespace

void install_nki_isa_elementwise(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
