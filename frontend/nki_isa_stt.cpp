// nki_isa_stt.cpp - nki.isa bindings of the stt family: scalar_tensor_tensor, activate2, nc_n_gather (verifiers:
// isa/verify_stt.cpp, executors: sim/exec_stt.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;
using isa::DType;

bool is_arith(AluOp op) { return isa::alu_class(op) == isa::AluClass::Arith; }
std::string nl_name(AluOp op) { return "nl." + std::string(isa::alu_name(op)); }

// ---------------------------------------------------------------------------------- scalar_tensor_tensor

Value isa_scalar_tensor_tensor(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},      {"data", true}, {"op0", true}, {"operand0", true},
                                 {"op1", true},      {"operand1", true}, {"reverse0"}, {"reverse1"},
                                 {"name"}};
  Value v[9];
  bind("scalar_tensor_tensor", ps, a, v);
  const char* fn = "scalar_tensor_tensor";
  OpBuilder b(in, fn, Opcode::scalar_tensor_tensor);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  b.same_shape(dst, "dst", data, "data", true);
  auto& p = b.params();
  p.op0 = b.alu(v[2], "op0");
  p.op1 = b.alu(v[4], "op1");
  for (auto [op, arg] : {std::pair{p.op0, "op0"}, std::pair{p.op1, "op1"}})
    if (!is_arith(op))
      raise("ValueError", std::string(fn) + ": " + arg + " must be an arithmetic op, got " + nl_name(op));
  column_or_number(b, 2, v[3], "operand0", data, p.imm0);
  auto* op1 = b.operand(3, v[5], "operand1");
  b.same_shape(data, "data", op1, "operand1", true);
  not_both_psum(fn, data, "data", op1, "operand1");
  p.reverse0 = flag(in, v[6]);
  p.reverse1 = flag(in, v[7]);
  b.name(v[8]);
  return b.emit();
}

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
  auto* dst = b.operand(0, v[0], "dst");
  auto& p = b.params();
  p.func = b.act(v[1], "op");
  auto* data = b.operand(1, v[2], "data");
  b.same_shape(dst, "dst", data, "data", true);
  p.op0 = op_or_bypass(b, v[5], "op0");
  p.op1 = op_or_bypass(b, v[6], "op1");
  const bool pair_ok = (p.op0 == AluOp::multiply &&
                        (p.op1 == AluOp::add || p.op1 == AluOp::subtract || p.op1 == AluOp::bypass)) ||
                       ((p.op0 == AluOp::add || p.op0 == AluOp::subtract || p.op0 == AluOp::bypass) &&
                        p.op1 == AluOp::bypass);
  if (!pair_ok)
    raise("ValueError", std::string(fn) + ": (op0, op1) = (" + nl_name(p.op0) + ", " + nl_name(p.op1) +
                            ") is not supported; allowed: (nl.multiply, nl.add), (nl.multiply, nl.subtract), "
                            "(nl.multiply, nl.bypass), (nl.add, nl.bypass), (nl.subtract, nl.bypass), "
                            "(nl.bypass, nl.bypass)");
  // imm0 / imm1: a number or a [P, 1] tile; unused (may be None) when their op is bypass.
  const TensorObj* tiles[2] = {nullptr, nullptr};
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
    column_or_number(b, 2 + k, iv, arg, data, k ? p.imm1 : p.imm0);
    if (iv.is(VK::Tensor)) tiles[k] = iv.as<TensorObj>();
  }
  if (tiles[0] && tiles[1] && tiles[0]->view.dtype != tiles[1]->view.dtype)
    raise("ValueError", std::string(fn) + ": imm0 and imm1 tiles must have the same dtype, got " +
                            std::string(dtype_str(tiles[0]->view.dtype)) + " and " +
                            std::string(dtype_str(tiles[1]->view.dtype)));
  if (present(v[7])) p.relu_param = b.number(v[7], "relu_param");
  p.reverse0 = flag(in, v[8]);
  p.reverse1 = flag(in, v[9]);
  const ReduceCmd cmd = reduce_cmd(b, v[12], ReduceCmd::idle);
  if (cmd == ReduceCmd::load_reduce)
    raise("ValueError", std::string(fn) + ": reduce_cmd=load_reduce needs an initial value, which activate2 cannot take");
  p.reduce_cmd = cmd;
  if (present(v[10])) {
    p.reduce_op = b.alu(v[10], "reduce_op");
    require_ops(fn, p.reduce_op, "reduce_op",
                {AluOp::add, AluOp::maximum, AluOp::minimum, AluOp::abs_max, AluOp::abs_min},
                "nl.add, nl.maximum, nl.minimum, nl.abs_max or nl.abs_min");
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

// ----------------------------------------------------------------------------------------- nc_n_gather

Value isa_nc_n_gather(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"indices", true}, {"name"}};
  Value v[4];
  bind("nc_n_gather", ps, a, v);
  const char* fn = "nc_n_gather";
  OpBuilder b(in, fn, Opcode::nc_n_gather);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  auto* idx = b.operand(2, v[2], "indices");
  if (idx->view.dtype != DType::uint32)
    raise("ValueError", std::string(fn) + ": indices must be uint32, got " + std::string(dtype_str(idx->view.dtype)));
  require_same_partitions(fn, dst, "dst", data, "data");
  if (partitions(dst) != partitions(idx) || free_size(dst) != free_size(idx))
    raise("ValueError", std::string(fn) + ": dst has shape " + shape_str(dst->view.shape()) +
                            " but indices has shape " + shape_str(idx->view.shape()) +
                            " (one output element per index)");
  if (dst->view.dtype != data->view.dtype)
    raise("ValueError", std::string(fn) + ": dst dtype " + std::string(dtype_str(dst->view.dtype)) +
                            " differs from data dtype " + std::string(dtype_str(data->view.dtype)));
  b.name(v[3]);
  return b.emit();
}

}  // namespace

void install_nki_isa_stt(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("scalar_tensor_tensor", isa_scalar_tensor_tensor);
  def("activate2", isa_activate2);
  def("nc_n_gather", isa_nc_n_gather);
}

}  // namespace nkisim::frontend
