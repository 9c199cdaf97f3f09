// nl_constants.cpp - nki.language constants: nl.shared_identity_matrix (nki-language.md; the compiler loads a
// shared constant, nki-sim builds it with instructions: docs/compatibility.md) and nl.shared_constant (an HBM
// tensor whose bytes the program carries: isa::HbmTensor::init).
#include "frontend/ndarray.h"
#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {
using isa::AluOp;
using isa::DType;
using isa_binding::present;
using namespace nl;

// shared_identity_matrix(n, dtype=nl.uint8, dst=None): an (n, n) SBUF identity. A GpSimd iota of p - f into an
// int32 scratch tile, then tensor_scalar(equal 0) into the result (1 on the diagonal, 0 elsewhere, in `dtype`).
Value fn_shared_identity_matrix(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"n", true}, {"dtype"}, {"dst"}};
  Value v[3];
  bind_args("shared_identity_matrix", ps, 3, a, v);
  const int64_t n = in.to_index(v[0], "shared_identity_matrix() n");
  if (n < 1 || n > 128)
    raise("ValueError", "shared_identity_matrix: n must be in [1, 128] (one row per partition), got " +
                            std::to_string(n));
  const DType dt = dtype_opt(v[1], "shared_identity_matrix").value_or(DType::uint8);
  Value out = v[2];
  if (present(out)) {
    const TensorObj* d = tile_arg(out, "shared_identity_matrix", "dst");
    if (d->view.shape() != std::vector<int64_t>{n, n} || d->base().buffer != ir::Buffer::sbuf)
      raise("ValueError", "shared_identity_matrix: dst must be an SBUF tile of shape (" + std::to_string(n) + ", " +
                              std::to_string(n) + "), got " + shape_str(d->view.shape()) + " in " +
                              buffer_str(d->base().buffer));
  } else {
    out = new_tile(in, {n, n}, dt, ir::Buffer::sbuf, "identity");
  }
  Value diff = new_tile(in, {n, n}, DType::int32, ir::Buffer::sbuf, "identity_iota");
  Value pattern = make_list({make_list({Value::integer(-1), Value::integer(n)})});
  call_isa(in, "iota", {{"dst", diff}, {"pattern", pattern}, {"offset", Value::integer(0)},
                        {"channel_multiplier", Value::integer(1)}});
  call_isa(in, "tensor_scalar",
           {{"dst", out}, {"data", diff}, {"op0", alu_value(AluOp::equal)}, {"operand0", Value::integer(0)}});
  return out;
}

// shared_constant(constant, dtype=None): an HBM tensor holding `constant` (a compile-time numpy array, or the
// name of a file np.save wrote during this compile), converted to `dtype` with the hardware's rounding.
Value fn_shared_constant(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"constant", true}, {"dtype"}};
  Value v[2];
  bind_args("shared_constant", ps, 2, a, v);
  Value fname;
  Value arr = v[0].is(VK::Str) ? virtual_file_load(in, str_of(v[0]), "shared_constant")
              : virtual_file_attr(in, v[0], intern("name"), &fname) ? virtual_file_load(in, str_of(fname), "shared_constant")
                                                                     : to_ndarray(in, v[0]);
  const NdArrayObj* nd = as_ndarray(arr);
  std::optional<DType> dt = dtype_opt(v[1], "shared_constant");
  if (!dt && nd->wide != NdArrayObj::Wide::None)
    raise("TypeError", "shared_constant: the array is " + nd->dtype_str() +
                           ", which nki-sim has no device dtype for; pass dtype= or convert it with .astype()");
  if (nd->shape.empty()) raise("ValueError", "shared_constant: the constant must have at least one dimension");
  Value conv = ndarray_astype(*nd, dt ? *dt : nd->dtype);
  ir::Tensor t;
  t.name = "shared_constant";
  t.dtype = as_ndarray(conv)->dtype;
  t.shape = nd->shape;
  t.buffer = ir::Buffer::shared_hbm;
  t.loc = in.loc_of(in.current_site());
  t.init = ndarray_bytes(*as_ndarray(conv));
  return new_tensor(in, std::move(t));
}
}  // namespace

void install_nl_constants(Interp& in, ModuleObj* nl) {
  nl->globals[intern("shared_constant")] = in.builtin("shared_constant", fn_shared_constant);
  nl->globals[intern("shared_identity_matrix")] = in.builtin("shared_identity_matrix", fn_shared_identity_matrix);
}

}  // namespace nkisim::frontend
