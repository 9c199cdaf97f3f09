// nki_isa_elementwise.cpp - nki.isa bindings of the elementwise family: tensor_tensor, tensor_scalar, activation,
// activation_reduce, memset (verifiers: isa/verify_elementwise.cpp, executors: sim/exec_elementwise.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

Value isa_tensor_tensor(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data1", true}, {"data2", true}, {"op", true}, {"engine"}, {"name"}};
  Value v[6];
  bind("tensor_tensor", ps, a, v);
  OpBuilder b(in, "tensor_tensor", isa::Opcode::tensor_tensor);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data1");
  b.operand(2, v[2], "data2");
  b.params().op0 = b.alu(v[3], "op");
  b.engine(v[4]);
  b.name(v[5]);
  return b.emit();
}

Value isa_tensor_scalar(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"op0", true}, {"operand0", true}, {"reverse0"},
                                 {"op1"},       {"operand1"},   {"reverse1"},  {"engine"},         {"name"}};
  Value v[10];
  bind("tensor_scalar", ps, a, v);
  OpBuilder b(in, "tensor_scalar", isa::Opcode::tensor_scalar);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  b.params().op0 = b.alu(v[2], "op0");
  if (v[3].is(VK::Tensor))
    b.operand(2, v[3], "operand0");
  else
    b.params().imm0 = b.number(v[3], "operand0");
  if (present(v[4])) b.params().reverse0 = in.truthy(v[4]);
  if (present(v[5])) {
    b.params().op1 = b.alu(v[5], "op1");
    if (!present(v[6])) raise("TypeError", "tensor_scalar: operand1 is required when op1 is given");
    if (v[6].is(VK::Tensor))
      b.operand(3, v[6], "operand1");
    else
      b.params().imm1 = b.number(v[6], "operand1");
    if (present(v[7])) b.params().reverse1 = in.truthy(v[7]);
  } else if (present(v[6])) {
    raise("TypeError", "tensor_scalar: operand1 is given but op1 is not");
  }
  b.engine(v[8]);
  b.name(v[9]);
  return b.emit();
}

Value isa_memset(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"value", true}, {"engine"}, {"name"}};
  Value v[4];
  bind("memset", ps, a, v);
  OpBuilder b(in, "memset", isa::Opcode::memset);
  b.operand(0, v[0], "dst");
  const float value = b.number(v[1], "value");  // 0 for packed dtypes, an integer for integer ones: isa::verify
  b.params().imm0 = value;
  b.engine(v[2]);
  b.name(v[3]);
  return b.emit();
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

}  // namespace

void install_nki_isa_elementwise(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("tensor_tensor", isa_tensor_tensor);
  def("tensor_scalar", isa_tensor_scalar);
  def("activation", isa_activation);
  def("activation_reduce", isa_activation_reduce);
  def("memset", isa_memset);
}

}  // namespace nkisim::frontend
