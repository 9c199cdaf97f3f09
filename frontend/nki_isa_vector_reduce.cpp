// nki_isa_vector_reduce.cpp - nki.isa bindings of the vector_reduce family: tensor_reduce, tensor_partition_reduce,
// bn_stats, bn_aggr; `axis` folds into the operand shapes (verifiers: isa/verify_vector_reduce.cpp, executors:
// sim/exec_vector_reduce.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

// The front end folds `axis` into the operand shapes: the ISA instruction reduces groups of K consecutive
// data elements (K = product of the reduced trailing dims) into one dst element each.
void reduce_axes(Interp& in, OpBuilder&, const Value* v) {
  const TensorObj *dst = v[0].as<TensorObj>(), *data = v[2].as<TensorObj>();
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
}

const Binding kBindings[] = {
    {"tensor_reduce", Opcode::tensor_reduce,
     {tensor("dst", 0), value("op", &P::op0), tensor("data", 1), custom("axis", true),
      value("negate", &P::negate, false), custom("keepdims"), kName},
     reduce_axes},
    {"tensor_partition_reduce", Opcode::tensor_partition_reduce,
     {tensor("dst", 0), value("op", &P::op0), tensor("data", 1), kName}},
    {"bn_stats", Opcode::bn_stats, {tensor("dst", 0), tensor("data", 1), kName}},
    {"bn_aggr", Opcode::bn_aggr, {tensor("dst", 0), tensor("data", 1), kName}},
};

}  // namespace

void install_nki_isa_vector_reduce(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
