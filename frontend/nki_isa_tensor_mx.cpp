// nki_isa_tensor_mx.cpp - nki.isa bindings of the tensor_mx family: quantize_mx, nc_matmul_mx (load_stationary_mx +
// multiply_moving_mx) (verifiers: isa/verify_tensor_mx.cpp, executors: sim/exec_tensor_mx.cpp).
#include "frontend/nki_isa_vector_util.h"
#include "isa/mx.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;
using isa::DType;

// ------------------------------------------------------------------------------------------------- MX

bool is_scale_dtype(DType t) { return t == DType::float8_e8m0fnu || t == DType::uint8; }

void require_mx_data(const char* fn, const TensorObj* t, const char* arg) {
  if (!isa::is_mx_packed(t->view.dtype))
    raise("ValueError", std::string(fn) + ": " + arg + " must be float8_e5m2_x4, float8_e4m3fn_x4 or float4_e2m1fn_x4, got " +
                            std::string(dtype_str(t->view.dtype)));
  const int64_t P = partitions(t);
  if (P <= 0 || P % 32 != 0)
    raise("ValueError", std::string(fn) + ": " + arg + " has " + std::to_string(P) +
                            " partitions; MX data needs a multiple of 32 (at most 128)");
}

void require_mx_scale(const char* fn, const TensorObj* s, const char* arg, const TensorObj* data) {
  if (!is_scale_dtype(s->view.dtype))
    raise("ValueError", std::string(fn) + ": " + arg + " must be float8_e8m0fnu or uint8, got " +
                            std::string(dtype_str(s->view.dtype)));
  const int64_t P = partitions(data), need = isa::mx_scale_partitions(uint32_t(P));
  if (partitions(s) < need || free_size(s) != free_size(data))
    raise("ValueError", std::string(fn) + ": " + arg + " has shape " + shape_str(s->view.shape()) + "; the scales of " +
                            shape_str(data->view.shape()) + " need at least " + std::to_string(need) +
                            " partitions x " + std::to_string(free_size(data)) + " elements");
}

Value isa_quantize_mx(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"dst_scale", true}, {"name"}};
  Value v[4];
  bind("quantize_mx", ps, a, v);
  const char* fn = "quantize_mx";
  OpBuilder b(in, fn, Opcode::quantize_mx);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  auto* sc = b.operand(2, v[2], "dst_scale");
  if (src->view.dtype != DType::bfloat16 && src->view.dtype != DType::float16)
    raise("ValueError", std::string(fn) + ": src must be bfloat16 or float16, got " +
                            std::string(dtype_str(src->view.dtype)));
  if (dst->view.dtype != DType::float8_e4m3fn_x4 && dst->view.dtype != DType::float8_e5m2_x4)
    raise("ValueError", std::string(fn) + ": dst must be float8_e4m3fn_x4 or float8_e5m2_x4, got " +
                            std::string(dtype_str(dst->view.dtype)));
  const int64_t P = partitions(src), F = free_size(src);
  if (P % 32 != 0)
    raise("ValueError", std::string(fn) + ": src has " + std::to_string(P) +
                            " partitions; MX data needs a multiple of 32 (at most 128)");
  if (F % 4 != 0)
    raise("ValueError", std::string(fn) + ": src has " + std::to_string(F) +
                            " elements per partition; need a multiple of 4");
  if (partitions(dst) != P || free_size(dst) != F / 4)
    raise("ValueError", std::string(fn) + ": dst has shape " + shape_str(dst->view.shape()) + " but src " +
                            shape_str(src->view.shape()) + " quantizes to (" + std::to_string(P) + ", " +
                            std::to_string(F / 4) + ") x4 elements");
  require_mx_scale(fn, sc, "dst_scale", dst);
  b.name(v[3]);
  return b.emit();
}

Value isa_nc_matmul_mx(Interp& in, const BuiltinObj& self, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true},          {"stationary", true}, {"moving", true},
                                 {"stationary_scale", true}, {"moving_scale", true}, {"tile_position"},
                                 {"tile_size"},          {"accumulate"},       {"name"}};
  Value v[9];
  bind("nc_matmul_mx", ps, a, v);
  const char* fn = "nc_matmul_mx";
  OpBuilder ls(in, fn, Opcode::load_stationary_mx);
  OpBuilder mm(in, fn, Opcode::multiply_moving_mx);
  auto* dst = mm.operand(0, v[0], "dst");
  auto* st = ls.operand(0, v[1], "stationary");
  auto* mv = mm.operand(1, v[2], "moving");
  auto* ss = ls.operand(1, v[3], "stationary_scale");
  auto* ms = mm.operand(2, v[4], "moving_scale");
  require_mx_data(fn, st, "stationary");
  require_mx_data(fn, mv, "moving");
  require_mx_scale(fn, ss, "stationary_scale", st);
  require_mx_scale(fn, ms, "moving_scale", mv);
  const int64_t K = partitions(st), M = free_size(st), N = free_size(mv);
  if (partitions(mv) != K)
    raise("ValueError", std::string(fn) + ": stationary and moving must have the same partition (contraction) size K, "
                            "got " + std::to_string(K) + " and " + std::to_string(partitions(mv)));
  if (M > 128 || M % 2 != 0)
    raise("ValueError", std::string(fn) + ": stationary free size " + std::to_string(M) +
                            " must be even and at most 128 (the PE array's columns)");
  const DType dd = dst->view.dtype;
  if (dd != DType::float32 && dd != DType::bfloat16)
    raise("ValueError", std::string(fn) + ": dst must be float32 or bfloat16, got " + std::string(dtype_str(dd)));
  const int64_t nmax = dd == DType::bfloat16 ? 8192 : 4096;
  if (N > nmax)
    raise("ValueError", std::string(fn) + ": moving free size " + std::to_string(N) + " exceeds " +
                            std::to_string(nmax) + " for a " + std::string(dtype_str(dd)) + " dst");
  if (partitions(dst) != M || free_size(dst) != N)
    raise("ValueError", std::string(fn) + ": dst has shape " + shape_str(dst->view.shape()) +
                            " but stationary.T @ moving has shape (" + std::to_string(M) + ", " + std::to_string(N) +
                            ")");
  // Row tiling only (2x64 or 4x32); the column size must be 128 at column 0 (nki-isa.md §3.1).
  auto pair = [&](const Value& pv, const char* arg, int64_t out[2]) {
    if (!present(pv)) return false;
    if (!pv.is(VK::Tuple) && !pv.is(VK::List))
      raise("TypeError", std::string(fn) + ": " + arg + " must be a tuple of two ints, got '" + type_name(pv) + "'");
    auto& items = items_of(pv);
    if (items.empty()) return false;
    if (items.size() != 2 || !items[0].is_int_like() || !items[1].is_int_like())
      raise("ValueError", std::string(fn) + ": " + arg + " must be a tuple of two ints, got " + in.repr(pv));
    out[0] = items[0].i();
    out[1] = items[1].i();
    return true;
  };
  int64_t pos[2], size[2];
  const bool has_pos = pair(v[5], "tile_position", pos), has_size = pair(v[6], "tile_size", size);
  if (has_pos != has_size) raise("ValueError", std::string(fn) + ": tile_position and tile_size must be given together");
  if (has_size) {
    if (size[1] != 128 || pos[1] != 0)
      raise("ValueError", std::string(fn) + ": only row tiling is supported: the column tile size must be 128 at "
                              "column 0, got size " + std::to_string(size[1]) + " at " + std::to_string(pos[1]));
    if (!(size[0] == 32 || size[0] == 64 || size[0] == 128) || pos[0] < 0 || pos[0] % size[0] || pos[0] + size[0] > 128)
      raise("ValueError", std::string(fn) + ": tile_size row size must be 32, 64 or 128 with tile_position a multiple "
                              "of it inside the PE array, got size " + std::to_string(size[0]) + " at " +
                              std::to_string(pos[0]));
    if (K > size[0])
      raise("ValueError", std::string(fn) + ": stationary (K=" + std::to_string(K) + ") does not fit the row tile size " +
                              std::to_string(size[0]));
  }
  const bool acc = present(v[7]) ? in.truthy(v[7]) : infer_matmul_accumulate(in, self.self, dst);
  mm.name(v[8]);
  mm.params().accumulate = acc;
  ls.emit();
  return mm.emit();
}

}  // namespace

void install_nki_isa_tensor_mx(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("quantize_mx", isa_quantize_mx);
  isa->globals[intern("nc_matmul_mx")] = in.builtin("nc_matmul_mx", isa_nc_matmul_mx, make_psum_tracker());
}

}  // namespace nkisim::frontend
