// nki_isa_vector_reduce.cpp - nki.isa bindings of the vector_reduce family: tensor_reduce, tensor_partition_reduce,
// bn_stats, bn_aggr; `axis` folds into the operand shapes (verifiers: isa/verify_vector_reduce.cpp, executors:
// sim/exec_vector_reduce.cpp).
#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

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
  if (free_size(dst) != kept)
    raise("ValueError", "tensor_reduce: dst has shape " + shape_str(dst->view.shape()) + " but reducing " +
                            shape_str(data->view.shape()) + " over axis " + in.repr(v[3]) + " gives " + shape_str(want));
  b.params().op0 = op;
  b.params().negate = flag(in, v[4]);
  b.name(v[6]);
  return b.emit();
}

Value isa_tensor_partition_reduce(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"op", true}, {"data", true}, {"name"}};
  Value v[4];
  bind("tensor_partition_reduce", ps, a, v);
  OpBuilder b(in, "tensor_partition_reduce", Opcode::tensor_partition_reduce);
  b.operand(0, v[0], "dst");
  b.params().op0 = b.alu(v[1], "op");
  b.operand(1, v[2], "data");
  b.name(v[3]);
  return b.emit();
}

Value isa_bn_stats(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"name"}};
  Value v[3];
  bind("bn_stats", ps, a, v);
  OpBuilder b(in, "bn_stats", Opcode::bn_stats);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  b.name(v[2]);
  return b.emit();
}

Value isa_bn_aggr(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"name"}};
  Value v[3];
  bind("bn_aggr", ps, a, v);
  OpBuilder b(in, "bn_aggr", Opcode::bn_aggr);
  b.operand(0, v[0], "dst");
  b.operand(1, v[1], "data");
  b.name(v[2]);
  return b.emit();
}

}  // namespace

void install_nki_isa_vector_reduce(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("tensor_reduce", isa_tensor_reduce);
  def("tensor_partition_reduce", isa_tensor_partition_reduce);
  def("bn_stats", isa_bn_stats);
  def("bn_aggr", isa_bn_aggr);
}

}  // namespace nkisim::frontend
