// exec_vector_accum.cpp - instructions that drive the accumulator registers or carry a running value:
// activation's reduce (ScalarE), act_read_accumulator, tensor_scalar_reduce, tensor_scalar_cumulative,
// tensor_tensor_scan, exponential, range_select, select_reduce.
//
// Lanes: an instruction's partition i uses the accumulator of absolute partition dst.start_partition + i;
// act_read_accumulator reads the lanes of its own dst partitions. Values folded into an accumulator are the
// fp32 results before the cast to dst's dtype. Static rules: isa/verify_vector_accum.cpp.
#include <cmath>
#include <sstream>

#include "sim/activation.h"
#include "sim/alu.h"
#include "sim/exec_vector_util.h"

namespace nkisim::sim {
using isa::AluOp;
using isa::ReduceCmd;

namespace {

// The VectorE accumulators of dst's lanes after folding rows of `vals` (P x n) per params.reduce_cmd with
// params.reduce_op (load value imm1), then reduce_res (slot) <- those accumulators (negated if params.negate).
void vector_reduce(ExecContext& ctx, const isa::Instruction& ins, const View& dst, const float* vals, size_t n,
                   int reduce_res_slot) {
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  float* acc = vec::accumulators(ctx, isa::Engine::Vector) + dst.start_partition;
  for (uint32_t i = 0; i < P; ++i) vec::accumulate(acc[i], pr.reduce_cmd, pr.reduce_op, pr.imm1, vals + i * n, n);
  vec::write_column(ctx, ins, reduce_res_slot, P, acc, pr.negate);
}
}  // namespace

void activation_accumulate(ExecContext& ctx, const isa::Instruction& ins, uint32_t lane, const float* out, size_t n) {
  const ReduceCmd cmd = ins.params.reduce_cmd;
  if (cmd == ReduceCmd::idle) return;
  float* acc = vec::accumulators(ctx, isa::Engine::Scalar);
  vec::accumulate(acc[lane], cmd, AluOp::add, 0.0f, out, n);
}

// dst[p, 0] = ScalarE accumulator of lane dst.start_partition + p (negated when params.negate).
void exec_act_read_accumulator(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0);
  const float* acc = vec::accumulators(ctx, isa::Engine::Scalar) + dst.start_partition;
  vec::write_column(ctx, ins, 0, dst.partitions, acc, ins.params.negate);
}

// dst = data op0 s (s = operand0 tile or imm0; reverse0 swaps); the fp32 results fold into the VectorE lanes.
void exec_tensor_scalar_reduce(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems;
  const float* c0 = ctx.column_f32(ins, 2, P, 6);
  const float* in = vec::gather_all_f32(ctx, data, 0);
  float* out = ctx.f32(1, n * P);
  for (uint32_t i = 0; i < P; ++i)
    alu_ts_f32(pr.op0, in + i * n, c0 ? c0[i] : pr.imm0, pr.reverse0, out + i * n, n);
  vec::scatter_all_f32(dst, out);
  vector_reduce(ctx, ins, dst, out, n, 3);
}

// reg (VectorE accumulator) = init per reduce_cmd; for each i: reg = op1(op0(src[i], s0), reg); dst[i] = reg.
void exec_tensor_scalar_cumulative(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems;
  const float* c0 = ctx.column_f32(ins, 2, P, 6);
  const float* c1 = ctx.column_f32(ins, 3, P, 7);
  const float* in = vec::gather_all_f32(ctx, src, 0);
  float* out = ctx.f32(1, n * P);
  float* acc = vec::accumulators(ctx, isa::Engine::Vector) + dst.start_partition;
  for (uint32_t i = 0; i < P; ++i) {
    float reg = acc[i];
    switch (pr.reduce_cmd) {
      case ReduceCmd::reset:
      case ReduceCmd::reset_reduce: reg = vec::reduce_identity(pr.op1); break;
      case ReduceCmd::load_reduce: reg = c1 ? c1[i] : pr.imm1; break;
      case ReduceCmd::idle:
      case ReduceCmd::reduce: break;
    }
    const float s0 = c0 ? c0[i] : pr.imm0;
    const float* x = in + i * n;
    float* y = out + i * n;
    for (size_t j = 0; j < n; ++j) {
      const float v = pr.reverse0 ? alu_f32(pr.op0, s0, x[j]) : alu_f32(pr.op0, x[j], s0);
      reg = alu_f32(pr.op1, v, reg);
      y[j] = reg;
    }
    if (pr.reduce_cmd != ReduceCmd::idle) acc[i] = reg;
  }
  vec::scatter_all_f32(dst, out);
}

// r = initial; for each i: r = op1(op0(data0[i], r), data1[i]) (reverse flags swap operands); dst[i] = r.
void exec_tensor_tensor_scan(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), d0 = ctx.read(ins, 1), d1 = ctx.read(ins, 2);
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems;
  const float* init = ctx.column_f32(ins, 3, P, 6);
  const float* a = vec::gather_all_f32(ctx, d0, 0);
  const float* b = vec::gather_all_f32(ctx, d1, 1);
  float* out = ctx.f32(2, n * P);
  for (uint32_t i = 0; i < P; ++i) {
    float r = init ? init[i] : pr.imm0;
    const float *x = a + i * n, *z = b + i * n;
    float* y = out + i * n;
    for (size_t j = 0; j < n; ++j) {
      const float t = pr.reverse0 ? alu_f32(pr.op0, r, x[j]) : alu_f32(pr.op0, x[j], r);
      r = pr.reverse1 ? alu_f32(pr.op1, z[j], t) : alu_f32(pr.op1, t, z[j]);
      y[j] = r;
    }
  }
  vec::scatter_all_f32(dst, out);
}

// dst = exp(src - m), m = max_value tile or imm0; the fp32 results sum into the VectorE lanes (reduce_op add).
void exec_exponential(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), src = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems;
  const float* m = ctx.column_f32(ins, 2, P, 6);
  const float* in = vec::gather_all_f32(ctx, src, 0);
  float* out = ctx.f32(1, n * P);
  for (uint32_t i = 0; i < P; ++i) {
    const float mi = m ? m[i] : pr.imm0;
    for (size_t j = 0; j < n; ++j) out[i * n + j] = in[i * n + j] - mi;
    act_apply(isa::ActFunc::exp, out + i * n, out + i * n, n);
  }
  vec::scatter_all_f32(dst, out);
  isa::Instruction sum = ins;  // the accumulator always adds
  sum.params.reduce_op = AluOp::add;
  vector_reduce(ctx, sum, dst, out, n, 3);
}

// idx = imm0 + j (fp32); dst[j] = on_true[j] if op0(idx, bound0) and op1(idx, bound1) else imm1; fold.
void exec_range_select(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), on_true = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems;
  const float* b0 = ctx.column_f32(ins, 2, P, 6);
  const float* b1 = ctx.column_f32(ins, 3, P, 7);
  const float* in = vec::gather_all_f32(ctx, on_true, 0);
  float* out = ctx.f32(1, n * P);
  for (uint32_t i = 0; i < P; ++i)
    for (size_t j = 0; j < n; ++j) {
      const float idx = pr.imm0 + float(j);
      const bool keep = alu_f32(pr.op0, idx, b0[i]) != 0.0f && alu_f32(pr.op1, idx, b1[i]) != 0.0f;
      out[i * n + j] = keep ? in[i * n + j] : pr.imm1;
    }
  vec::scatter_all_f32(dst, out);
  vector_reduce(ctx, ins, dst, out, n, 4);  // (imm1 is the fill value here; load_reduce was rejected above)
}

// dst = on_true where (predicate != 0) xor reverse0 else on_false (tile or imm0); fold with reduce_op.
void exec_select_reduce(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), pred = ctx.read(ins, 1), on_true = ctx.read(ins, 2);
  const isa::InstrParams& pr = ins.params;
  const uint32_t P = dst.partitions;
  const size_t n = dst.free_elems;
  const float* off = ctx.column_f32(ins, 3, P, 6);
  const uint32_t* p = vec::gather_all_int(ctx, pred, 0);
  const float* t = vec::gather_all_f32(ctx, on_true, 0);
  float* out = ctx.f32(1, n * P);
  for (uint32_t i = 0; i < P; ++i) {
    const float f = off ? off[i] : pr.imm0;
    for (size_t j = 0; j < n; ++j) out[i * n + j] = ((p[i * n + j] != 0) != pr.reverse0) ? t[i * n + j] : f;
  }
  vec::scatter_all_f32(dst, out);
  vector_reduce(ctx, ins, dst, out, n, 4);
}

}  // namespace nkisim::sim
