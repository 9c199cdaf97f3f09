// exec_vector_util.cpp - helpers of the Vector/Scalar/GpSimd extra executors (see exec_vector_util.h).
#include "sim/exec_vector_util.h"

#include <cmath>
#include <limits>

#include "sim/alu.h"

namespace nkisim::sim::vec {
using isa::AluOp;

void fail(ExecContext& ctx, const isa::Instruction& ins, const std::string& msg) {
  ctx.fail(ins, std::string(isa::info(ins.op).mnemonic) + ": " + msg);
}

const char* slot_name(const isa::Instruction& ins, int slot) {
  const isa::InstrInfo& inf = isa::info(ins.op);
  return slot < inf.num_operands ? inf.operands[slot].name : "?";
}

float* gather_all_f32(ExecContext& ctx, const View& v, int k) {
  const size_t n = v.free_elems;
  float* buf = ctx.f32(k, n * v.partitions);
  for (uint32_t i = 0; i < v.partitions; ++i) gather_f32(v, i, buf + i * n);
  return buf;
}

uint32_t* gather_all_int(ExecContext& ctx, const View& v, int k) {
  const size_t n = v.free_elems;
  uint32_t* buf = ctx.u32(k, n * v.partitions);
  for (uint32_t i = 0; i < v.partitions; ++i) gather_int(v, i, buf + i * n);
  return buf;
}

uint8_t* gather_all_raw(ExecContext& ctx, const View& v, int k) {
  const size_t row = v.free_elems * v.esize;
  uint8_t* buf = ctx.bytes(k, row * v.partitions);
  for (uint32_t i = 0; i < v.partitions; ++i) gather_raw(v, i, buf + i * row);
  return buf;
}

void scatter_all_f32(const View& v, const float* buf) {
  for (uint32_t i = 0; i < v.partitions; ++i) scatter_f32(v, i, buf + i * v.free_elems);
}
void scatter_all_int(const View& v, const uint32_t* buf) {
  for (uint32_t i = 0; i < v.partitions; ++i) scatter_int(v, i, buf + i * v.free_elems);
}
void scatter_all_raw(const View& v, const uint8_t* buf) {
  for (uint32_t i = 0; i < v.partitions; ++i) scatter_raw(v, i, buf + i * v.free_elems * v.esize);
}

void write_column(ExecContext& ctx, const isa::Instruction& ins, int slot, uint32_t P, const float* vals,
                  bool negate) {
  if (!ins.operands[slot].present()) return;
  View v = ctx.write(ins, slot);  // a [P, 1] tile (isa/verify.h)
  for (uint32_t i = 0; i < P; ++i) {
    const float x = negate ? -vals[i] : vals[i];
    store_f32(v.dtype, v.row(i), v.esize, 1, &x);
  }
}

float reduce_identity(AluOp op) {
  switch (op) {
    case AluOp::multiply: return 1.0f;
    case AluOp::maximum: return -std::numeric_limits<float>::infinity();
    case AluOp::minimum: return std::numeric_limits<float>::infinity();
    default: return 0.0f;
  }
}

float* accumulators(ExecContext& ctx, isa::Engine e) {
  std::vector<float>& acc = e == isa::Engine::Scalar ? ctx.scalar_acc : ctx.vector_acc;
  const size_t lanes = size_t(ctx.target.partitions);
  if (acc.size() < lanes) acc.resize(lanes, 0.0f);
  return acc.data();
}

void accumulate(float& acc, isa::ReduceCmd cmd, AluOp op, float init, const float* v, size_t n) {
  using isa::ReduceCmd;
  switch (cmd) {
    case ReduceCmd::idle: return;
    case ReduceCmd::reset: acc = reduce_identity(op); return;
    case ReduceCmd::reset_reduce: acc = reduce_identity(op); break;
    case ReduceCmd::load_reduce: acc = init; break;
    case ReduceCmd::reduce: break;
  }
  acc = alu_fold_f32(op, acc, v, n);  // left to right, the op inlined
}

uint32_t i32_to_bits(isa::DType t, int32_t v) {
  if (isa::is_float(t)) return isa::from_f32(t, float(v));
  if (t == isa::DType::bool_) return v != 0;
  const unsigned bits = isa::dtype_size(t) * 8;
  if (bits >= 32) return uint32_t(v);
  int64_t lo, hi;
  if (isa::dtype_kind(t) == isa::DTypeKind::SInt) {
    lo = -(int64_t(1) << (bits - 1));
    hi = (int64_t(1) << (bits - 1)) - 1;
  } else {
    lo = 0;
    hi = (int64_t(1) << bits) - 1;
  }
  const int64_t c = v < lo ? lo : v > hi ? hi : v;
  return uint32_t(c) & ((1u << bits) - 1u);
}

}  // namespace nkisim::sim::vec
