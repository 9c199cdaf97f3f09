// exec_stt.cpp - scalar_tensor_tensor (VectorE), activate2 (ScalarE, trn3) and nc_n_gather (GpSimd).
//
// Conventions (nki-isa.md §1.4-1.8, §3.2-3.4):
// * All arithmetic is fp32 on the up-cast inputs; results are cast to dst's dtype on the way out.
// * activate2's accumulator is the ScalarE register of lane dst.start_partition + i (shared with activation);
//   reset values: add 0, maximum -inf, minimum +inf, abs_max 0 (the smallest magnitude), abs_min +inf.
// * nc_n_gather reads the indices as unsigned 32-bit integers. Out-of-range behaviour is undefined in the docs;
//   we make it a located error naming the partition, the position and the value (a kernel relying on it is
//   wrong on hardware too).
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "sim/activation.h"
#include "sim/alu.h"
#include "sim/exec_vector_util.h"

namespace nkisim::sim {
using isa::AluOp;
using isa::ReduceCmd;

namespace {
bool is_arith(AluOp op) { return isa::alu_class(op) == isa::AluClass::Arith; }
std::string op_name(AluOp op) { return std::string(isa::alu_name(op)); }
}  // namespace

// dst = (data op0 s) op1 operand1; s = operand0 tile (slot 2) or imm0.
void exec_scalar_tensor_tensor(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1), b = ctx.read(ins, 3);
  ctx.require_same_shape(ins, 0, dst, 1, data);
  ctx.require_same_shape(ins, 0, dst, 3, b);
  const isa::InstrParams& pr = ins.params;
  if (!is_arith(pr.op0)) vec::fail(ctx, ins, "op0 must be an arithmetic op, got '" + op_name(pr.op0) + "'");
  if (!is_arith(pr.op1)) vec::fail(ctx, ins, "op1 must be an arithmetic op, got '" + op_name(pr.op1) + "'");
  if (data.mem == isa::Memory::PSUM && b.mem == isa::Memory::PSUM)
    vec::fail(ctx, ins, "data and operand1 cannot both be in PSUM");
  const float* c0 = ctx.column_f32(ins, 2, dst.partitions, 6);
  elementwise_f32<2>(ctx, dst, {&data, &b}, [&](uint32_t i, const auto& in, float* out, size_t n) {
    const float s = c0 ? c0[i] : pr.imm0;
    const float *x = in[0], *y = in[1];
    for (size_t j = 0; j < n; ++j) {
      const float t = pr.reverse0 ? alu_f32(pr.op0, s, x[j]) : alu_f32(pr.op0, x[j], s);
      out[j] = pr.reverse1 ? alu_f32(pr.op1, y[j], t) : alu_f32(pr.op1, t, y[j]);
    }
  });
}

// v = (data op0 a) op1 b; dst = func(v) (prelu with relu_param); fold v's func results into the ScalarE lanes.
void exec_activate2(ExecContext& ctx, const isa::Instruction& ins) {
  vec::require_available(ctx, ins);
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  ctx.require_same_shape(ins, 0, dst, 1, data);
  const isa::InstrParams& pr = ins.params;
  const bool pair_ok = (pr.op0 == AluOp::multiply &&
                        (pr.op1 == AluOp::add || pr.op1 == AluOp::subtract || pr.op1 == AluOp::bypass)) ||
                       ((pr.op0 == AluOp::add || pr.op0 == AluOp::subtract || pr.op0 == AluOp::bypass) &&
                        pr.op1 == AluOp::bypass);
  if (!pair_ok)
    vec::fail(ctx, ins, "(op0, op1) = (" + op_name(pr.op0) + ", " + op_name(pr.op1) +
                            ") is not supported; allowed: (multiply, add), (multiply, subtract), (multiply, bypass), "
                            "(add, bypass), (subtract, bypass), (bypass, bypass)");
  const ReduceCmd cmd = pr.reduce_cmd;
  const bool folds = cmd == ReduceCmd::reduce || cmd == ReduceCmd::reset_reduce;
  if (cmd == ReduceCmd::load_reduce)
    vec::fail(ctx, ins, "reduce_cmd load_reduce is not supported by activate2 (no initial value)");
  const AluOp rop = pr.reduce_op;
  const bool rop_ok = rop == AluOp::add || rop == AluOp::maximum || rop == AluOp::minimum ||
                      rop == AluOp::abs_max || rop == AluOp::abs_min;
  if ((folds || cmd == ReduceCmd::reset) && !rop_ok)
    vec::fail(ctx, ins, "reduce_op must be add, maximum, minimum, abs_max or abs_min, got '" + op_name(rop) + "'");
  const uint32_t P = dst.partitions;
  const float* a = ctx.column_f32(ins, 2, P, 6);
  const float* b = ctx.column_f32(ins, 3, P, 7);
  float* acc = vec::accumulators(ctx, isa::Engine::Scalar);
  const float kInf = std::numeric_limits<float>::infinity();
  const float reset_value = rop == AluOp::maximum ? -kInf : (rop == AluOp::minimum || rop == AluOp::abs_min) ? kInf : 0.0f;
  elementwise_f32<1>(ctx, dst, {&data}, [&](uint32_t i, const auto& in, float* out, size_t n) {
    const float s0 = a ? a[i] : pr.imm0, s1 = b ? b[i] : pr.imm1;
    const float* x = in[0];
    for (size_t j = 0; j < n; ++j) {
      float v = x[j];
      if (pr.op0 != AluOp::bypass) v = pr.reverse0 ? alu_f32(pr.op0, s0, v) : alu_f32(pr.op0, v, s0);
      if (pr.op1 != AluOp::bypass) v = pr.reverse1 ? alu_f32(pr.op1, s1, v) : alu_f32(pr.op1, v, s1);
      if (pr.func == isa::ActFunc::prelu)
        v = v != v ? v : (v > 0.0f ? v : pr.relu_param * v);
      else
        v = act_f32(pr.func, v);
      out[j] = v;
    }
    if (cmd == ReduceCmd::idle) return;
    float& r = acc[dst.start_partition + i];
    if (cmd == ReduceCmd::reset || cmd == ReduceCmd::reset_reduce) r = reset_value;
    if (folds) vec::accumulate(r, ReduceCmd::reduce, rop, 0.0f, out, n);
  });
}

// dst[p, j] = data_flat[p, indices[p, j]] (raw element copy).
void exec_nc_n_gather(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1), idx = ctx.read(ins, 2);
  ctx.require_same_shape(ins, 0, dst, 2, idx);
  vec::require_partitions(ctx, ins, 0, dst, 1, data);
  if (dst.dtype != data.dtype)
    vec::fail(ctx, ins, "dst dtype " + std::string(isa::dtype_name(dst.dtype)) + " differs from data dtype " +
                            std::string(isa::dtype_name(data.dtype)) + " (a gather copies raw elements)");
  if (idx.dtype != isa::DType::uint32)
    vec::fail(ctx, ins, "indices must be uint32, got " + std::string(isa::dtype_name(idx.dtype)));
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems, F = data.free_elems;
  const unsigned es = data.esize;
  const uint8_t* src = vec::gather_all_raw(ctx, data, 0);
  const uint32_t* ix = vec::gather_all_int(ctx, idx, 0);
  uint8_t* out = ctx.bytes(1, n * P * es);
  for (uint32_t i = 0; i < P; ++i)
    for (size_t j = 0; j < n; ++j) {
      const uint32_t k = ix[i * n + j];
      if (k >= F) {
        std::ostringstream os;
        os << "indices[" << i << ", " << j << "] = " << k << " is outside [0, " << F
           << ") (the flattened free size of data)";
        vec::fail(ctx, ins, os.str());
      }
      std::memcpy(out + (i * n + j) * es, src + (i * F + k) * es, es);
    }
  vec::scatter_all_raw(dst, out);
}

}  // namespace nkisim::sim
