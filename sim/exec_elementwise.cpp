// exec_elementwise.cpp - element-wise compute instructions: tensor_tensor, tensor_scalar, activation, memset.
#include <algorithm>
#include <sstream>

#include "sim/activation.h"
#include "sim/alu.h"
#include "sim/exec.h"
#include "sim/exec_vector_util.h"
#include "sim/parallel.h"

namespace nkisim::sim {
using isa::AluOp;

namespace {
// Bitvec ops work on raw integer bits: every operand must have an integer dtype.
bool rows_direct(const View& dst, std::initializer_list<const View*> inputs) {
  auto ok = [](const View& v) { return direct_f32(v, 0) != nullptr && v.pstep % 4 == 0; };
  if (dst.empty() || !ok(dst)) return false;
  for (const View* v : inputs) {
    if (!ok(*v) || v->partitions != dst.partitions || v->free_elems != dst.free_elems) return false;
    if (may_overlap(dst, *v) && !(v->row(0) == dst.row(0) && v->pstep == dst.pstep)) return false;
  }
  return true;
}
inline float* row0(const View& v) { return reinterpret_cast<float*>(v.row(0)); }
// Activations of at least this many elements run their rows on parallel_threads() threads (below it the
// fork-join costs more than it saves; a host-performance knob, not a hardware number).
constexpr uint64_t kParallelActivationElems = 1u << 16;
inline ptrdiff_t fstride(const View& v) { return ptrdiff_t(v.pstep / 4); }

// Row order of the fast paths (a host-cache heuristic, no effect on results: rows are independent). A
// [128, 64] fp32 instruction touches 64-96 KiB, more than L1; walking the rows in the opposite direction
// from the previous instruction starts on the rows that instruction touched last, which are still in L1.
thread_local bool t_backward = false;
bool next_backward() { return t_backward = !t_backward; }
}  // namespace

// dst = data1 op0 data2 element-wise; fp32 math, or raw integer bits for bitvec ops.
void exec_tensor_tensor(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), a = ctx.read(ins, 1), b = ctx.read(ins, 2);
  const AluOp op = ins.params.op0;
  if (alu_is_bitvec(op)) {
    const unsigned bits = a.esize * 8;
    elementwise_int<2>(ctx, dst, {&a, &b}, [&](uint32_t, const auto& in, uint32_t* out, size_t n) {
      alu_tt_int(op, in[0], in[1], bits, out, n);
    });
    return;
  }
  if (rows_direct(dst, {&a, &b})) {
    const ptrdiff_t last = ptrdiff_t(dst.partitions) - 1;
    if (next_backward())
      alu_tt_f32_rows(op, row0(a) + last * fstride(a), -fstride(a), row0(b) + last * fstride(b), -fstride(b),
                      row0(dst) + last * fstride(dst), -fstride(dst), dst.free_elems, dst.partitions);
    else
      alu_tt_f32_rows(op, row0(a), fstride(a), row0(b), fstride(b), row0(dst), fstride(dst), dst.free_elems,
                      dst.partitions);
    return;
  }
  elementwise_f32<2>(ctx, dst, {&a, &b},
                     [&](uint32_t, const auto& in, float* out, size_t n) { alu_tt_f32(op, in[0], in[1], out, n); });
}

// dst = (data op0 s0) op1 s1, s0/s1 = per-partition [P,1] tiles (slots 2/3) or the immediates imm0/imm1;
// reverseK swaps the operands of opK; op1 == bypass means no second op.
void exec_tensor_scalar(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const isa::InstrParams& pr = ins.params;
  const bool two = pr.op1 != AluOp::bypass;
  const bool bv0 = alu_is_bitvec(pr.op0), bv1 = two && alu_is_bitvec(pr.op1);
  const uint32_t P = dst.partitions;
  if (bv0 || bv1) {
    const uint32_t* c0 = ctx.column_int(ins, 2, P, 6);
    const uint32_t* c1 = ctx.column_int(ins, 3, P, 7);
    const uint32_t i0 = isa::from_f32(isa::DType::int32, pr.imm0), i1 = isa::from_f32(isa::DType::int32, pr.imm1);
    const unsigned bits = data.esize * 8;
    elementwise_int<1>(ctx, dst, {&data}, [&](uint32_t i, const auto& in, uint32_t* out, size_t n) {
      alu_ts_int(pr.op0, in[0], c0 ? c0[i] : i0, pr.reverse0, bits, out, n);
      if (two) alu_ts_int(pr.op1, out, c1 ? c1[i] : i1, pr.reverse1, bits, out, n);
    });
    return;
  }
  const float* c0 = ctx.column_f32(ins, 2, P, 6);
  const float* c1 = ctx.column_f32(ins, 3, P, 7);
  if (rows_direct(dst, {&data})) {
    // Both ops in one pass where alu_ts2_f32_rows fuses them, else op1 in place on each row of op0's results.
    TsOp o0{pr.op0, c0, pr.imm0, pr.reverse0}, o1{two ? pr.op1 : AluOp::bypass, c1, pr.imm1, pr.reverse1};
    const float* in = row0(data);
    float* out = row0(dst);
    ptrdiff_t is = fstride(data), os = fstride(dst), ss = 1;
    if (next_backward()) {  // start at the last row
      const ptrdiff_t last = ptrdiff_t(P) - 1;
      in += last * is;
      out += last * os;
      if (c0) o0.s = c0 + last;
      if (c1) o1.s = c1 + last;
      is = -is;
      os = -os;
      ss = -1;
    }
    alu_ts2_f32_rows(o0, o1, ss, in, is, out, os, dst.free_elems, P);
    return;
  }
  elementwise_f32<1>(ctx, dst, {&data}, [&](uint32_t i, const auto& in, float* out, size_t n) {
    alu_ts_f32(pr.op0, in[0], c0 ? c0[i] : pr.imm0, pr.reverse0, out, n);
    if (two) alu_ts_f32(pr.op1, out, c1 ? c1[i] : pr.imm1, pr.reverse1, out, n);
  });
}

// dst = func(data * scale + bias) in fp32; scale = [P,1] tile (slot 3) or params.scale; bias = [P,1]
// tile (slot 2), else params.bias_imm when nonzero, else none (no addition at all, so -0.0 stays -0.0).
// The fp32 results also feed the ScalarE accumulators per params.reduce_cmd (activation_accumulate).
void exec_activation(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const uint32_t P = dst.partitions;
  const float* bias = ctx.column_f32(ins, 2, P, 6);
  const float* scale = ctx.column_f32(ins, 3, P, 7);
  const float imm_scale = ins.params.scale, imm_bias = ins.params.bias_imm;
  const isa::ActFunc func = ins.params.func;
  auto row = [&](uint32_t i, const float* x, float* out, size_t n) {
    const float s = scale ? scale[i] : imm_scale;
    if (bias || imm_bias != 0.0f) {
      const float b = bias ? bias[i] : imm_bias;
      for (size_t j = 0; j < n; ++j) out[j] = x[j] * s + b;
      act_apply(func, out, out, n);
    } else if (s != 1.0f) {
      for (size_t j = 0; j < n; ++j) out[j] = x[j] * s;
      act_apply(func, out, out, n);
    } else {
      act_apply(func, x, out, n);
    }
  };
  // fp32 rows in place: rows are independent (each partition has its own accumulator), so large instructions
  // are computed on both cores (the result does not depend on the thread count), small ones row after row
  // without the generic driver's per-row calls (a [128, 64] tile's rows are 64 elements).
  if (rows_direct(dst, {&data}) && P > 1) {
    const isa::ReduceCmd cmd = ins.params.reduce_cmd;
    float* acc = cmd == isa::ReduceCmd::idle ? nullptr : vec::accumulators(ctx, isa::Engine::Scalar);
    const size_t n = dst.free_elems;
    auto one = [&](size_t i) {
      float* out = row0(dst) + ptrdiff_t(i) * fstride(dst);
      row(uint32_t(i), row0(data) + ptrdiff_t(i) * fstride(data), out, n);
      if (acc) vec::accumulate(acc[dst.start_partition + i], cmd, AluOp::add, 0.0f, out, n);
    };
    if (uint64_t(P) * n >= kParallelActivationElems) parallel_for(P, one);
    else for (size_t i = 0; i < P; ++i) one(i);
    return;
  }
  elementwise_f32<1>(ctx, dst, {&data}, [&](uint32_t i, const auto& in, float* out, size_t n) {
    row(i, in[0], out, n);
    activation_accumulate(ctx, ins, dst.start_partition + i, out, n);
  });
}

// Fill dst with params.imm0 converted to dst's dtype (isa::from_f32).
void exec_memset(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0);
  if (dst.empty()) return;
  const uint32_t bits = isa::from_f32(dst.dtype, ins.params.imm0);
  const size_t n = dst.free_elems;
  uint8_t* row = ctx.bytes(0, n * dst.esize);
  for (size_t j = 0; j < n; ++j) isa::store_bits(row + j * dst.esize, dst.esize, bits);
  for (uint32_t i = 0; i < dst.partitions; ++i) scatter_raw(dst, i, row);
}

}  // namespace nkisim::sim
