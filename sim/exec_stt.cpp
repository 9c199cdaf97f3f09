// exec_stt.cpp - scalar_tensor_tensor (VectorE), activate2 (ScalarE, trn3) and nc_n_gather (GpSimd).
// Static rules: isa/verify_stt.cpp.
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

// dst = (data op0 s) op1 operand1; s = operand0 tile (slot 2) or imm0.
void exec_scalar_tensor_tensor(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1), b = ctx.read(ins, 3);
  const isa::InstrParams& pr = ins.params;
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
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const ReduceCmd cmd = pr.reduce_cmd;
  const bool folds = cmd == ReduceCmd::reduce || cmd == ReduceCmd::reset_reduce;
  const AluOp rop = pr.reduce_op;
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
