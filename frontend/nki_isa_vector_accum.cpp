// nki_isa_vector_accum.cpp - nki.isa bindings of the vector_accum family: tensor_scalar_reduce,
// tensor_scalar_cumulative, tensor_tensor_scan, exponential, range_select, select_reduce (verifiers:
// isa/verify_vector_accum.cpp, executors: sim/exec_vector_accum.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// reduce_cmd's default in the rows below: reset_reduce (idle is the field's own default).
const int kReset = int(ReduceCmd::reset_reduce);

void reduce_init(Interp&, OpBuilder& b, const Value* v) {
  if (b.params().reduce_cmd == ReduceCmd::load_reduce) {
    if (!present(v[8])) raise("ValueError", "tensor_scalar_reduce: reduce_cmd=load_reduce needs reduce_init");
    b.params().imm1 = b.number(v[8], "reduce_init");
  } else if (present(v[8])) {
    raise("ValueError", "tensor_scalar_reduce: reduce_init is only used with reduce_cmd=load_reduce");
  }
}

void cumulative_init(Interp&, OpBuilder& b, const Value* v) {
  if (b.params().reduce_cmd == ReduceCmd::load_reduce && !present(v[5]))
    raise("ValueError", "tensor_scalar_cumulative: reduce_cmd=load_reduce needs imm1 (the initial value)");
}

void exponential_sum(Interp&, OpBuilder& b, const Value*) {
  if (b.params().reduce_cmd != ReduceCmd::idle) b.params().reduce_op = AluOp::add;
}

void range_select_rules(Interp& in, OpBuilder& b, const Value* v) {
  auto& p = b.params();
  require_ops("range_select", p.reduce_op, "reduce_op", {AluOp::maximum}, "nl.maximum");
  p.imm1 = -std::numeric_limits<float>::max();
  if (present(v[10]) && b.number(v[10], "on_false_value") != p.imm1)
    raise("ValueError", "range_select: on_false_value must be the fp32 minimum -3.4028235e+38, got " + in.repr(v[10]));
}

void select_reduce_op(Interp&, OpBuilder& b, const Value*) {
  require_ops("select_reduce", b.params().reduce_op, "reduce_op", {AluOp::maximum}, "nl.maximum");
}

const Binding kBindings[] = {
    {"tensor_scalar_reduce", Opcode::tensor_scalar_reduce,
     {tensor("dst", 0), tensor("data", 1), value("op0", &P::op0), tensor_or_number("operand0", 2, &P::imm0),
      value("reduce_op", &P::reduce_op), tensor("reduce_res", 3, false), value("reverse0", &P::reverse0, false),
      value("reduce_cmd", &P::reduce_cmd, false, kReset), custom("reduce_init"),
      value("reduce_res_negate", &P::negate, false), kName},
     reduce_init},
    {"tensor_scalar_cumulative", Opcode::tensor_scalar_cumulative,
     {tensor("dst", 0), tensor("src", 1), value("op0", &P::op0), value("op1", &P::op1),
      tensor_or_number("imm0", 2, &P::imm0), tensor_or_number("imm1", 3, &P::imm1, false),
      value("reduce_cmd", &P::reduce_cmd, false, kReset), kName},
     cumulative_init},
    {"tensor_tensor_scan", Opcode::tensor_tensor_scan,
     {tensor("dst", 0), tensor("data0", 1), tensor("data1", 2), tensor_or_number("initial", 3, &P::imm0),
      value("op0", &P::op0), value("op1", &P::op1), value("reverse0", &P::reverse0, false),
      value("reverse1", &P::reverse1, false), kName}},
    {"exponential", Opcode::exponential,
     {tensor("dst", 0), tensor("src", 1), tensor_or_number("max_value", 2, &P::imm0, false),
      tensor("reduce_res", 3, false), value("reduce_cmd", &P::reduce_cmd, false), value("reduce_init", &P::imm1, false),
      kName},
     exponential_sum},
    {"range_select", Opcode::range_select,
     {tensor("dst", 0), tensor("on_true_tile", 1), value("comp_op0", &P::op0), value("comp_op1", &P::op1),
      tensor("bound0", 2), tensor("bound1", 3), value("reduce_cmd", &P::reduce_cmd, false, kReset),
      tensor("reduce_res", 4, false), value("reduce_op", &P::reduce_op, false, int(AluOp::maximum)),
      value("range_start", &P::imm0, false), custom("on_false_value"), kName},
     range_select_rules},
    {"select_reduce", Opcode::select_reduce,
     {tensor("dst", 0), tensor("predicate", 1), tensor("on_true", 2), tensor_or_number("on_false", 3, &P::imm0),
      tensor("reduce_res", 4, false), value("reduce_cmd", &P::reduce_cmd, false),
      value("reduce_op", &P::reduce_op, false, int(AluOp::maximum)), value("reverse_pred", &P::reverse0, false), kName},
     select_reduce_op},
};

}  // namespace

void install_nki_isa_vector_accum(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
