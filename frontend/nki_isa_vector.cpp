// nki_isa_vector.cpp - nki.isa bindings: Vector/Scalar/GpSimd instructions beyond the first six. This file:
// reductions and statistics, `activation` with its accumulator (reduce_op/reduce_res/reduce_cmd) and scalar bias,
// which replaces the basic binding of nki_isa.cpp, activation_reduce, and the VectorE accumulator and scan
// instructions; nki_isa_vector_select.cpp and nki_isa_vector_random.cpp hold the rest. Signatures are NKI
// 0.6's (nki-isa.md §3.2-3.4); each call is checked here and located at the call.
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// ------------------------------------------------------------------------------------------- reductions

// The front end folds `axis` into the operand shapes: the ISA instruction reduces groups of K consecutive
// data elements (K = product of the reduced trailing dims) into one dst element each.
Value isa_tensor_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"op", true},      {"data", true}, {"axis", true},
                                 {"negate"},    {"keepdims"},      {"name"}};
  Value v[7];
  bind("tensor_reduce", ps, a, v);
  OpBuilder b(in, "tensor_reduce", Opcode::tensor_reduce);
  auto* dst = b.operand(0, v[0], "dst");
  const AluOp op = b.alu(v[1], "op");
  auto* data = b.operand(1, v[2], "data");
  if (!isa::alu_reduce_ok(op))
    raise("ValueError", "tensor_reduce: op nl." + std::string(isa::alu_name(op)) + " cannot be used as a reduction");
  const int64_t rank = int64_t(data->view.dims.size());
  std::vector<int64_t> axes;
  if (v[3].is(VK::Tuple) || v[3].is(VK::List)) {
    for (auto& x : items_of(v[3])) axes.push_back(int32_arg("tensor_reduce", x, "axis"));
  } else {
    axes.push_back(int32_arg("tensor_reduce", v[3], "axis"));
  }
  if (axes.empty()) raise("ValueError", "tensor_reduce: axis must name at least one axis");
  for (auto& x : axes) {
    if (x < 0) x += rank;
    if (x < 0 || x >= rank)
      raise("ValueError", "tensor_reduce: axis " + std::to_string(x) + " is out of range for a " +
                              std::to_string(rank) + "-dimensional tensor");
    if (x == 0) raise("ValueError", "tensor_reduce: cannot reduce along the partition axis 0");
  }
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - int64_t(axes.size()) + int64_t(i))
      raise("ValueError", "tensor_reduce: axis must be the trailing free axes (e.g. " + std::to_string(rank - 1) +
                              " or a run ending at " + std::to_string(rank - 1) + "), got " + in.repr(v[3]));
  int64_t kept = 1;
  for (int64_t d = 1; d < axes[0]; ++d) kept *= data->view.dims[size_t(d)].count;
  const bool keepdims = flag(in, v[5]);
  std::vector<int64_t> want = data->view.shape();
  if (keepdims) {
    for (auto x : axes) want[size_t(x)] = 1;
  } else {
    want.resize(size_t(axes[0]));
  }
  require_same_partitions("tensor_reduce", dst, "dst", data, "data");
  if (free_size(dst) != kept)
    raise("ValueError", "tensor_reduce: dst has shape " + shape_str(dst->view.shape()) + " but reducing " +
                            shape_str(data->view.shape()) + " over axis " + in.repr(v[3]) + " gives " + shape_str(want));
  b.params().op0 = op;
  b.params().negate = flag(in, v[4]);
  if (b.params().negate && isa::alu_class(op) == isa::AluClass::Bitvec)
    raise("ValueError", "tensor_reduce: negate is only allowed with arithmetic ops, not nl." +
                            std::string(isa::alu_name(op)));
  b.name(v[6]);
  return b.emit();
}

Value isa_tensor_partition_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"op", true}, {"data", true}, {"name"}};
  Value v[4];
  bind("tensor_partition_reduce", ps, a, v);
  OpBuilder b(in, "tensor_partition_reduce", Opcode::tensor_partition_reduce);
  auto* dst = b.operand(0, v[0], "dst");
  const AluOp op = b.alu(v[1], "op");
  auto* data = b.operand(1, v[2], "data");
  require_ops("tensor_partition_reduce", op, "op",
              {AluOp::add, AluOp::maximum, AluOp::minimum, AluOp::bitwise_or, AluOp::bitwise_and},
              "nl.add, nl.maximum, nl.minimum, nl.bitwise_or or nl.bitwise_and");
  if (partitions(dst) != 1 || free_size(dst) != free_size(data))
    raise("ValueError", "tensor_partition_reduce: dst must have shape (1, " + std::to_string(free_size(data)) +
                            ") for data of shape " + shape_str(data->view.shape()) + ", got " +
                            shape_str(dst->view.shape()));
  b.params().op0 = op;
  b.name(v[3]);
  return b.emit();
}

Value isa_bn_stats(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"name"}};
  Value v[3];
  bind("bn_stats", ps, a, v);
  OpBuilder b(in, "bn_stats", Opcode::bn_stats);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  require_same_partitions("bn_stats", dst, "dst", data, "data");
  require_free("bn_stats", dst, "dst", 6, "6 elements per partition");  // N <= bn_stats_fmax: isa/verify
  b.name(v[2]);
  return b.emit();
}

Value isa_bn_aggr(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"name"}};
  Value v[3];
  bind("bn_aggr", ps, a, v);
  OpBuilder b(in, "bn_aggr", Opcode::bn_aggr);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  require_same_partitions("bn_aggr", dst, "dst", data, "data");
  require_free("bn_aggr", dst, "dst", 2, "2 elements per partition (mean, variance)");
  if (free_size(data) % 3 != 0)
    raise("ValueError", "bn_aggr: data must hold (count, mean, variance*count) triples, got shape " +
                            shape_str(data->view.shape()));
  b.name(v[2]);
  return b.emit();
}

// ------------------------------------------------------------------------------------ ScalarE activation

// activation / activation_reduce share this: `reduce_res` (when present) becomes a second instruction,
// act_read_accumulator, right after the activation.
Value emit_activation(Interp& in, const char* fname, const Value& dst_v, const Value& op_v, const Value& data_v,
                      const Value& bias_v, const Value& scale_v, const Value& reduce_op_v, const Value& reduce_res_v,
                      ReduceCmd cmd, const Value& name_v) {
  OpBuilder b(in, fname, Opcode::activation);
  auto* dst = b.operand(0, dst_v, "dst");
  b.params().func = b.act(op_v, "op");
  auto* data = b.operand(1, data_v, "data");
  b.same_shape(dst, "dst", data, "data", true);
  const int nc = in.nki->nc_version;
  if (present(bias_v)) {
    if (b.params().func == isa::ActFunc::reciprocal && nc == 2)
      raise("ValueError", std::string(fname) + ": op=nl.reciprocal cannot take a bias on trn1");
    if (bias_v.is(VK::Tensor)) {
      b.column(b.operand(2, bias_v, "bias"), "bias", data);
    } else {
      if (!bias_v.is_number())
        raise("TypeError", std::string(fname) + ": bias must be a (P, 1) tensor or a number, got '" +
                               type_name(bias_v) + "'");
      if (nc == 2) raise("ValueError", std::string(fname) + ": a scalar bias needs trn2 or later; on trn1 pass a (" +
                                           std::to_string(partitions(data)) + ", 1) tensor");
      b.params().bias_imm = float(bias_v.num());
    }
  }
  if (present(scale_v)) {
    if (scale_v.is(VK::Tensor))
      b.column(b.operand(3, scale_v, "scale"), "scale", data);
    else
      b.params().scale = b.number(scale_v, "scale");
  }
  if (present(reduce_op_v)) {
    const AluOp rop = b.alu(reduce_op_v, "reduce_op");
    require_ops(fname, rop, "reduce_op", {AluOp::add}, "nl.add");
  }
  if (cmd == ReduceCmd::load_reduce)
    raise("ValueError", std::string(fname) + ": reduce_cmd=load_reduce needs an initial value, which " + fname +
                            " cannot take");
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

// ------------------------------------------------------------------------- VectorE accumulators and scans

Value isa_tensor_scalar_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},   {"data", true},        {"op0", true},  {"operand0", true},
                                 {"reduce_op", true}, {"reduce_res"},    {"reverse0"},   {"reduce_cmd"},
                                 {"reduce_init"}, {"reduce_res_negate"}, {"name"}};
  Value v[11];
  bind("tensor_scalar_reduce", ps, a, v);
  OpBuilder b(in, "tensor_scalar_reduce", Opcode::tensor_scalar_reduce);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  b.same_shape(dst, "dst", data, "data", true);
  auto& p = b.params();
  p.op0 = b.alu(v[2], "op0");
  if (isa::alu_class(p.op0) == isa::AluClass::Bitvec)
    raise("ValueError", "tensor_scalar_reduce: op0 must be an arithmetic op, got nl." + std::string(isa::alu_name(p.op0)));
  column_or_number(b, 2, v[3], "operand0", data, p.imm0);
  p.reduce_op = b.alu(v[4], "reduce_op");
  require_ops("tensor_scalar_reduce", p.reduce_op, "reduce_op",
              {AluOp::add, AluOp::subtract, AluOp::multiply, AluOp::maximum, AluOp::minimum},
              "nl.add, nl.multiply, nl.maximum or nl.minimum");
  result_column(b, 3, v[5], "reduce_res", data);
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
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  b.same_shape(dst, "dst", src, "src", true);
  for (auto* t : {dst, src})
    if (t->view.dtype == isa::DType::int32 || t->view.dtype == isa::DType::uint32)
      raise("ValueError", "tensor_scalar_cumulative: " + std::string(t == dst ? "dst" : "src") + " cannot be " +
                              std::string(dtype_str(t->view.dtype)) + " (32-bit integers are not supported)");
  auto& p = b.params();
  p.op0 = b.alu(v[2], "op0");
  if (isa::alu_class(p.op0) == isa::AluClass::Bitvec)
    raise("ValueError", "tensor_scalar_cumulative: op0 must be an arithmetic op, got nl." +
                            std::string(isa::alu_name(p.op0)));
  p.op1 = b.alu(v[3], "op1");
  require_ops("tensor_scalar_cumulative", p.op1, "op1",
              {AluOp::add, AluOp::subtract, AluOp::multiply, AluOp::maximum, AluOp::minimum},
              "nl.add, nl.subtract, nl.multiply, nl.maximum or nl.minimum");
  column_or_number(b, 2, v[4], "imm0", src, p.imm0);
  p.reduce_cmd = reduce_cmd(b, v[6], ReduceCmd::reset_reduce);
  if (present(v[5])) column_or_number(b, 3, v[5], "imm1", src, p.imm1);
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
  auto* dst = b.operand(0, v[0], "dst");
  auto* d0 = b.operand(1, v[1], "data0");
  auto* d1 = b.operand(2, v[2], "data1");
  b.same_shape(dst, "dst", d0, "data0", true);
  b.same_shape(dst, "dst", d1, "data1", true);
  not_both_psum("tensor_tensor_scan", d0, "data0", d1, "data1");
  auto& p = b.params();
  column_or_number(b, 3, v[3], "initial", d0, p.imm0);
  p.op0 = b.alu(v[4], "op0");
  p.op1 = b.alu(v[5], "op1");
  for (AluOp o : {p.op0, p.op1})
    if (isa::alu_class(o) == isa::AluClass::Bitvec)
      raise("ValueError", "tensor_tensor_scan: op0 and op1 must be arithmetic ops, got nl." +
                              std::string(isa::alu_name(o)));
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
  require_available(in, "exponential", Opcode::exponential);
  OpBuilder b(in, "exponential", Opcode::exponential);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  b.same_shape(dst, "dst", src, "src", true);
  auto& p = b.params();
  if (present(v[2])) column_or_number(b, 2, v[2], "max_value", src, p.imm0);
  result_column(b, 3, v[3], "reduce_res", src);
  p.reduce_cmd = reduce_cmd(b, v[4], ReduceCmd::idle);
  if (p.reduce_cmd != ReduceCmd::idle) p.reduce_op = AluOp::add;
  if (present(v[5])) p.imm1 = b.number(v[5], "reduce_init");
  b.name(v[6]);
  return b.emit();
}


}  // namespace

void install_nki_isa_vector(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("activation", isa_activation);
  def("activation_reduce", isa_activation_reduce);
  def("tensor_reduce", isa_tensor_reduce);
  def("tensor_partition_reduce", isa_tensor_partition_reduce);
  def("bn_stats", isa_bn_stats);
  def("bn_aggr", isa_bn_aggr);
  def("tensor_scalar_reduce", isa_tensor_scalar_reduce);
  def("tensor_scalar_cumulative", isa_tensor_scalar_cumulative);
  def("tensor_tensor_scan", isa_tensor_tensor_scan);
  def("exponential", isa_exponential);
  vector_binding::install_nki_isa_vector_select(in, isa);
  vector_binding::install_nki_isa_vector_random(in, isa);
}

}  // namespace nkisim::frontend
