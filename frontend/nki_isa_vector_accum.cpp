// nki_isa_vector_accum.cpp - nki.isa bindings of the vector_accum family: tensor_scalar_reduce,
// tensor_scalar_cumulative, tensor_tensor_scan, exponential, range_select, select_reduce (verifiers:
// isa/verify_vector_accum.cpp, executors: sim/exec_vector_accum.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

Value isa_tensor_scalar_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},   {"data", true},        {"op0", true},  {"operand0", true},
                                 {"reduce_op", true}, {"reduce_res"},    {"reverse0"},   {"reduce_cmd"},
                                 {"reduce_init"}, {"reduce_res_negate"}, {"name"}};
  Value v[11];
  bind("tensor_scalar_reduce", ps, a, v);
  OpBuilder b(in, "tensor_scalar_reduce", Opcode::tensor_scalar_reduce);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  auto& p = b.params();
  p.op0 = b.alu(v[2], "op0");
  column_or_number(b, 2, v[3], "operand0", p.imm0);
  p.reduce_op = b.alu(v[4], "reduce_op");
  if (present(v[5])) b.operand(3, v[5], "reduce_res");
  p.reverse0 = flag(in, v[6]);
  p.reduce_cmd = reduce_cmd(b, v[7], ReduceCmd::reset_reduce);
  if (p.reduce_cmd == ReduceCmd::load_reduce) {
    if (!present(v[8])) raise("ValueError", "tensor_scalar_reduce: reduce_cmd=load_reduce needs reduce_init");
    p.imm1 = b.number(v[8], "reduce_init");
  } else if (present(v[8])) {
    raise("ValueError", "tensor_scalar_reduce: reduce_init is only used with reduce_cmd=load_reduce");
  }
  p.negate = flag(in, v[9]);
  b.name(v[10]);
  return b.emit();
}

Value isa_tensor_scalar_cumulative(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},  {"src", true}, {"op0", true},  {"op1", true},
                                 {"imm0", true}, {"imm1"},      {"reduce_cmd"}, {"name"}};
  Value v[8];
  bind("tensor_scalar_cumulative", ps, a, v);
  OpBuilder b(in, "tensor_scalar_cumulative", Opcode::tensor_scalar_cumulative);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src");
  auto& p = b.params();
  p.op0 = b.alu(v[2], "op0");
  p.op1 = b.alu(v[3], "op1");
  column_or_number(b, 2, v[4], "imm0", p.imm0);
  p.reduce_cmd = reduce_cmd(b, v[6], ReduceCmd::reset_reduce);
  if (present(v[5])) column_or_number(b, 3, v[5], "imm1", p.imm1);
  if (p.reduce_cmd == ReduceCmd::load_reduce && !present(v[5]))
    raise("ValueError", "tensor_scalar_cumulative: reduce_cmd=load_reduce needs imm1 (the initial value)");
  b.name(v[7]);
  return b.emit();
}

Value isa_tensor_tensor_scan(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data0", true}, {"data1", true},  {"initial", true},
                                 {"op0", true}, {"op1", true},   {"reverse0"}, {"reverse1"}, {"name"}};
  Value v[9];
  bind("tensor_tensor_scan", ps, a, v);
  OpBuilder b(in, "tensor_tensor_scan", Opcode::tensor_tensor_scan);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data0");
  b.operand(2, v[2], "data1");
  auto& p = b.params();
  column_or_number(b, 3, v[3], "initial", p.imm0);
  p.op0 = b.alu(v[4], "op0");
  p.op1 = b.alu(v[5], "op1");
  p.reverse0 = flag(in, v[6]);
  p.reverse1 = flag(in, v[7]);
  b.name(v[8]);
  return b.emit();
}

Value isa_exponential(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},   {"src", true},    {"max_value"}, {"reduce_res"},
                                 {"reduce_cmd"}, {"reduce_init"}, {"name"}};
  Value v[7];
  bind("exponential", ps, a, v);
  OpBuilder b(in, "exponential", Opcode::exponential);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "src");
  auto& p = b.params();
  if (present(v[2])) column_or_number(b, 2, v[2], "max_value", p.imm0);
  if (present(v[3])) b.operand(3, v[3], "reduce_res");
  p.reduce_cmd = reduce_cmd(b, v[4], ReduceCmd::idle);
  if (p.reduce_cmd != ReduceCmd::idle) p.reduce_op = AluOp::add;
  if (present(v[5])) p.imm1 = b.number(v[5], "reduce_init");
  b.name(v[6]);
  return b.emit();
}

Value isa_range_select(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},    {"on_true_tile", true}, {"comp_op0", true}, {"comp_op1", true},
                                 {"bound0", true}, {"bound1", true},       {"reduce_cmd"},     {"reduce_res"},
                                 {"reduce_op"},    {"range_start"},        {"on_false_value"}, {"name"}};
  Value v[12];
  bind("range_select", ps, a, v);
  OpBuilder b(in, "range_select", Opcode::range_select);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "on_true_tile");
  auto& p = b.params();
  p.op0 = b.alu(v[2], "comp_op0");
  p.op1 = b.alu(v[3], "comp_op1");
  b.operand(2, v[4], "bound0");
  b.operand(3, v[5], "bound1");
  p.reduce_cmd = reduce_cmd(b, v[6], ReduceCmd::reset_reduce);
  if (present(v[7])) b.operand(4, v[7], "reduce_res");
  p.reduce_op = present(v[8]) ? b.alu(v[8], "reduce_op") : AluOp::maximum;
  require_ops("range_select", p.reduce_op, "reduce_op", {AluOp::maximum}, "nl.maximum");
  if (present(v[9])) p.imm0 = b.number(v[9], "range_start");
  p.imm1 = -std::numeric_limits<float>::max();
  if (present(v[10]) && b.number(v[10], "on_false_value") != p.imm1)
    raise("ValueError", "range_select: on_false_value must be the fp32 minimum -3.4028235e+38, got " + in.repr(v[10]));
  b.name(v[11]);
  return b.emit();
}

Value isa_select_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},   {"predicate", true}, {"on_true", true}, {"on_false", true},
                                 {"reduce_res"}, {"reduce_cmd"},      {"reduce_op"},     {"reverse_pred"},
                                 {"name"}};
  Value v[9];
  bind("select_reduce", ps, a, v);
  OpBuilder b(in, "select_reduce", Opcode::select_reduce);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "predicate");
  b.operand(2, v[2], "on_true");
  auto& p = b.params();
  column_or_number(b, 3, v[3], "on_false", p.imm0);
  if (present(v[4])) b.operand(4, v[4], "reduce_res");
  p.reduce_cmd = reduce_cmd(b, v[5], ReduceCmd::idle);
  p.reduce_op = present(v[6]) ? b.alu(v[6], "reduce_op") : AluOp::maximum;
  require_ops("select_reduce", p.reduce_op, "reduce_op", {AluOp::maximum}, "nl.maximum");
  p.reverse0 = flag(in, v[7]);
  b.name(v[8]);
  return b.emit();
}

}  // namespace

void install_nki_isa_vector_accum(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("tensor_scalar_reduce", isa_tensor_scalar_reduce);
  def("tensor_scalar_cumulative", isa_tensor_scalar_cumulative);
  def("tensor_tensor_scan", isa_tensor_tensor_scan);
  def("exponential", isa_exponential);
  def("range_select", isa_range_select);
  def("select_reduce", isa_select_reduce);
}

}  // namespace nkisim::frontend
