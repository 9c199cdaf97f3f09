// nki_isa_tensor_mx.cpp - nki.isa bindings of the tensor_mx family: quantize_mx, nc_matmul_mx (load_stationary_mx +
// multiply_moving_mx) (verifiers: isa/verify_tensor_mx.cpp, executors: sim/exec_tensor_mx.cpp).
#include "frontend/isa_bindings.h"
#include "isa/mx.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;
using isa::DType;

// ------------------------------------------------------------------------------------------------- MX

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
  ls.operand(1, v[3], "stationary_scale");
  mm.operand(2, v[4], "moving_scale");
  ls.emit();  // the stationary's rules (isa::verify) before the rules across the two instructions
  const int64_t K = partitions(st), M = free_size(st), N = free_size(mv);
  matmul_shapes(fn, dst, K, partitions(mv), M, N);
  // Row tiling only (2x64 or 4x32); the column size must be 128 at column 0 (nki-isa.md §3.1).
  int64_t pos[2], size[2];
  const bool has_pos = int_pair(in, fn, v[5], "tile_position", pos);
  const bool has_size = int_pair(in, fn, v[6], "tile_size", size);
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
  const bool acc = present(v[7]) ? in.truthy(v[7]) : infer_matmul_accumulate(in, self.self, dst, fn);
  mm.name(v[8]);
  mm.params().accumulate = acc;
  return mm.emit();
}

const Binding kQuantizeMx{"quantize_mx", Opcode::quantize_mx,
                          {tensor("dst", 0), tensor("src", 1), tensor("dst_scale", 2), kName}};

}  // namespace

void install_nki_isa_tensor_mx(Interp& in, ModuleObj* isa) {
  install_binding(in, isa, kQuantizeMx);
  isa->globals[intern("nc_matmul_mx")] = in.builtin("nc_matmul_mx", isa_nc_matmul_mx, make_psum_tracker());
}

}  // namespace nkisim::frontend
