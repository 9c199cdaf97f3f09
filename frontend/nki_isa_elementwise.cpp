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

// activation / activation_reduce share this: `reduce_res` (when present) becomes a second instruction,
// act_read_accumulator, right after the activation.
Value emit_activation(Interp& in, const char* fname, const Value& dst_v, const Value& op_v, const Value& data_v,
                      const Value& bias_v, const Value& scale_v, const Value& reduce_op_v, const Value& reduce_res_v,
                      ReduceCmd cmd, const Value& name_v) {
  OpBuilder b(in, fname, Opcode::activation);
  b.operand(0, dst_v, "dst");
  b.params().func = b.act(op_v, "op");
  auto* data = b.operand(1, data_v, "data");
  if (present(bias_v)) {
    if (bias_v.is(VK::Tensor)) {
      b.operand(2, bias_v, "bias");
    } else {
      if (!bias_v.is_number())
        raise("TypeError", std::string(fname) + ": bias must be a (P, 1) tensor or a number, got '" +
                               type_name(bias_v) + "'");
      b.params().bias_imm = float(bias_v.num());
    }
  }
  if (present(scale_v)) {
    if (scale_v.is(VK::Tensor))
      b.operand(3, scale_v, "scale");
    else
      b.params().scale = b.number(scale_v, "scale");
  }
  if (present(reduce_op_v)) {
    const AluOp rop = b.alu(reduce_op_v, "reduce_op");
    require_ops(fname, rop, "reduce_op", {AluOp::add}, "nl.add");
  }
  b.params().reduce_cmd = cmd;
  if (cmd == ReduceCmd::reduce || cmd == ReduceCmd::reset_reduce) b.params().reduce_op = AluOp::add;
  const TensorObj* res = present(reduce_res_v) ? b.tensor(reduce_res_v, "reduce_res") : nullptr;
  b.name(name_v);
  b.emit();
  if (res) {
    OpBuilder r(in, fname, Opcode::act_read_accumulator);
    r.column(r.operand(0, reduce_res_v, "reduce_res"), "reduce_res", data);
    r.emit();
  }
  return Value();
}

Value isa_activation(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"op", true},   {"data", true}, {"bias"}, {"scale"},
                                 {"reduce_op"}, {"reduce_res"}, {"reduce_cmd"}, {"name"}};
  Value v[9];
  bind("activation", ps, a, v);
  OpBuilder probe(in, "activation", Opcode::activation);
  const ReduceCmd cmd = reduce_cmd(probe, v[7], ReduceCmd::idle);
  return emit_activation(in, "activation", v[0], v[1], v[2], v[3], v[4], v[5], v[6], cmd, v[8]);
}

Value isa_activation_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"op", true}, {"data", true}, {"reduce_op", true},
                                 {"reduce_res", true}, {"bias"}, {"scale"}, {"name"}};
  Value v[8];
  bind("activation_reduce", ps, a, v);
  return emit_activation(in, "activation_reduce", v[0], v[1], v[2], v[5], v[6], v[3], v[4], ReduceCmd::reset_reduce,
                         v[7]);
}

const Binding kBindings[] = {
    {"tensor_tensor", Opcode::tensor_tensor,
     {tensor("dst", 0), tensor("data1", 1), tensor("data2", 2), value("op", &P::op0), kEngine, kName}},
    {"tensor_scalar", Opcode::tensor_scalar,
     {tensor("dst", 0), tensor("data", 1), value("op0", &P::op0), tensor_or_number("operand0", 2, &P::imm0),
      value("reverse0", &P::reverse0, false), value("op1", &P::op1, false),
      tensor_or_number("operand1", 3, &P::imm1, false), custom("reverse1"), kEngine, kName},
     second_op},
    // value: 0 for packed dtypes, an integer for integer ones (isa::verify)
    {"memset", Opcode::memset, {tensor("dst", 0), value("value", &P::imm0), kEngine, kName}},
};

}  // namespace

void install_nki_isa_elementwise(Interp& in, ModuleObj* isa) {
  install_bindings(in, isa, kBindings);
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("activation", isa_activation);
  def("activation_reduce", isa_activation_reduce);
}

}  // namespace nkisim::frontend
