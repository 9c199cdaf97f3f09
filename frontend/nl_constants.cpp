// nl_constants.cpp - nki.language constant tiles: nl.shared_identity_matrix (nki-language.md; the compiler
// loads a shared constant, nki-sim builds it with instructions: docs/compatibility.md).
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
}  // namespace

void install_nl_constants(Interp& in, ModuleObj* nl) {
  nl->globals[intern("shared_identity_matrix")] = in.builtin("shared_identity_matrix", fn_shared_identity_matrix);
}

}  // namespace nkisim::frontend
