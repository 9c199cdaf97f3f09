// nki_isa_vector_util.h - helpers shared by the binding files (nki_isa_<family>.cpp):
// argument checks and [P,1]-or-number operands.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>

#include "frontend/isa_builder.h"

namespace nkisim::frontend::vector_binding {
using namespace isa_binding;
using isa::AluOp;
using isa::Opcode;
using isa::ReduceCmd;

inline int64_t partitions(const TensorObj* t) { return t->view.partitions(); }
inline int64_t free_size(const TensorObj* t) {
  const int64_t p = partitions(t);
  return p ? t->view.num_elements() / p : 0;
}

inline bool flag(Interp& in, const Value& v) { return present(v) && in.truthy(v); }

inline int32_t int32_arg(const char* fname, const Value& v, const char* arg) {
  if (!v.is_int_like())
    raise("TypeError", std::string(fname) + ": " + arg + " must be an int, got '" + type_name(v) + "'");
  if (v.i() < INT32_MIN || v.i() > INT32_MAX)
    raise("ValueError", std::string(fname) + ": " + arg + " = " + std::to_string(v.i()) + " does not fit in int32");
  return int32_t(v.i());
}

// tile_position / tile_size of the matmuls: () or None = no tiling, else a pair of ints.
inline bool int_pair(Interp& in, const char* fname, const Value& v, const char* arg, int64_t out[2]) {
  if (!present(v)) return false;
  if (!v.is(VK::Tuple) && !v.is(VK::List))
    raise("TypeError", std::string(fname) + ": " + arg + " must be a tuple of two ints, got '" + type_name(v) + "'");
  auto& items = items_of(v);
  if (items.empty()) return false;
  if (items.size() != 2 || !items[0].is_int_like() || !items[1].is_int_like())
    raise("ValueError", std::string(fname) + ": " + arg + " must be a tuple of two ints, got " + in.repr(v));
  out[0] = items[0].i();
  out[1] = items[1].i();
  return true;
}

// The shapes across a matmul's two instructions: stationary [K, M] and moving [Km, N] share K; dst is [M, N].
inline void matmul_shapes(const char* fname, const TensorObj* dst, int64_t K, int64_t Km, int64_t M, int64_t N) {
  if (K != Km)
    raise("ValueError", std::string(fname) + ": stationary and moving must have the same partition (contraction) "
                            "size K, got " + std::to_string(K) + " and " + std::to_string(Km));
  if (partitions(dst) != M || free_size(dst) != N)
    raise("ValueError", std::string(fname) + ": dst has shape " + shape_str(dst->view.shape()) +
                            " but stationary.T @ moving has shape (" + std::to_string(M) + ", " + std::to_string(N) +
                            ")");
}

// A tile in `slot` (verify: a [P, 1] column) or a number stored in `imm`.
inline void column_or_number(OpBuilder& b, int slot, const Value& v, const char* arg, float& imm) {
  if (v.is(VK::Tensor))
    b.operand(slot, v, arg);
  else
    imm = b.number(v, arg);
}

inline void require_ops(const char* fname, AluOp op, const char* arg, std::initializer_list<AluOp> ok, const char* list) {
  for (AluOp o : ok)
    if (o == op) return;
  raise("ValueError", std::string(fname) + ": " + arg + " must be " + list + ", got nl." + std::string(isa::alu_name(op)));
}

}  // namespace nkisim::frontend::vector_binding
