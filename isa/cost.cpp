// cost.cpp - the cost classes of isa/costs.def evaluated with the target's parameters, and the helpers
// every streaming cost shares. docs/cost-model.md states each rule with its source.
//
// Formulas (nki-isa.md §2/§3, machine.md §6-§9, §11); cycles are cycles of the executing engine's clock:
//   stream:        max(MIN_II, N / speedup * stride); tensor_copy / tensor_scalar take the Vector 2x/4x modes
//                  (NC-v3+); memset of zero into BF16/FP16 on Vector is max(MIN_II, N/2) (ISA-OLD).
//   tensor_tensor: max(MIN_II, N) when exactly one input is in PSUM, or (NC-v2) both inputs in SBUF, all three
//                  operands bfloat16, op0 add/subtract/multiply and unit inner strides, or (NC-v3+ perf mode)
//                  both inputs in SBUF and all operands BF16/FP16; otherwise max(MIN_II, 2N).
//   GpSimd:        GPSIMD_START + the streaming term (no MIN_II floor).
//   Scalar:        / scalar_fast_factor for BF16/FP16/FP8 (NC-v4).
//   control:       control_cycles.
//   dma:           isa/cost_dma.cpp (the trigger, the DGE mode, the transfer split; sendrecv too).
#include "isa/cost.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <cstdio>

namespace nkisim::isa {
using isa::CostClass;
using isa::DType;
using isa::Engine;
using isa::Memory;

void CostNote::add(const std::string& key, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  inputs.emplace_back(key, buf);
}

CostClass cost_class(isa::Opcode op) { return isa::info(op).cost; }

double cycles_ns(double cycles, Engine e, const isa::TargetDesc& t) {
  double ghz = t.engine_ghz(e);
  return ghz > 0 ? cycles / ghz : 0.0;
}

double main_free_elements(const isa::Instruction& ins) {
  const isa::AccessPattern& ap = ins.operands[1].present() ? ins.operands[1] : ins.operands[0];
  return double(ap.free_elements());
}

namespace {
// Element sizes by dtype, looked up once (the cost functions run for every instruction).
unsigned esize(DType t) {
  static const auto sizes = [] {
    std::array<uint8_t, 256> a{};
    for (int k = 0; k < isa::kNumDTypes && k < 256; ++k) a[size_t(k)] = uint8_t(isa::dtype_size(DType(k)));
    return a;
  }();
  return sizes[uint8_t(t)];
}
bool half_float(DType t) { return t == DType::bfloat16 || t == DType::float16; }
}  // namespace

double inner_stride_bytes(const isa::AccessPattern& ap) {
  for (int d = ap.num_dims - 1; d >= 0; --d)
    if (ap.dims[d].count > 1) return double(std::llabs(ap.dims[d].stride)) * esize(ap.dtype);
  return 0;
}

namespace {
bool fast_dtype(DType t, bool fp8) { return half_float(t) || (fp8 && is_fp8(t)); }
bool streamed(const isa::AccessPattern& ap) { return ap.present() && ap.mem != Memory::HBM && ap.free_elements() > 1; }
const char* engine_label(Engine e) { return e == Engine::GpSimd ? "gpsimd" : e == Engine::Scalar ? "scalar" : "vector"; }
}  // namespace

double stride_factor(const isa::Instruction& ins, const isa::TargetDesc& t) {
  if (t.stride_penalty_factor == 1) return 1;
  const int n = isa::info(ins.op).num_operands;
  for (int s = 0; s < n; ++s)
    if (streamed(ins.operands[s]) && inner_stride_bytes(ins.operands[s]) > t.stride_penalty_bytes)
      return t.stride_penalty_factor;
  return 1;
}

double perf_speedup(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t, PerfKind kind) {
  const isa::AccessPattern &dst = ins.operands[0], &src = ins.operands[1];
  if (e == Engine::Scalar) {
    if (t.scalar_fast_factor <= 1 || !src.present()) return 1;
    return fast_dtype(dst.dtype, true) && fast_dtype(src.dtype, true) ? t.scalar_fast_factor : 1;
  }
  if (e != Engine::Vector || t.vector_perf_mode == 0 || kind == PerfKind::None || !src.present()) return 1;
  const bool fp8 = t.vector_perf_fp8 != 0;
  if (kind == PerfKind::TwoInput) {
    const isa::AccessPattern& b = ins.operands[2];
    const bool ok = src.mem == Memory::SBUF && b.mem == Memory::SBUF && fast_dtype(dst.dtype, fp8) &&
                    fast_dtype(src.dtype, fp8) && fast_dtype(b.dtype, fp8);
    return ok ? 2 : 1;
  }
  if (!fast_dtype(dst.dtype, fp8) || !fast_dtype(src.dtype, fp8)) {
    // FP8 with a 16-bit or FP8 partner where the fast modes leave FP8 out (NC-v3): vector_fp8_factor.
    const bool f8 = (is_fp8(dst.dtype) || is_fp8(src.dtype)) && fast_dtype(dst.dtype, true) && fast_dtype(src.dtype, true);
    return f8 && t.vector_fp8_factor > 1 ? t.vector_fp8_factor : 1;
  }
  const bool sbuf = dst.mem == Memory::SBUF && src.mem == Memory::SBUF;
  const bool contiguous = dst.inner_stride() == 1 && src.inner_stride() == 1;
  return sbuf && contiguous ? 4 : 2;
}

double streaming_cycles(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t, double n, double passes,
                        double speedup, const char* formula, double extra_cycles, bool floor) {
  const double stride = stride_factor(ins, t);
  const double stream = passes * n / std::max(1.0, speedup) * stride;
  double cycles;
  if (e == Engine::GpSimd) cycles = (floor ? t.gpsimd_start_cycles : 0) + passes * n * stride + extra_cycles;
  else cycles = (floor ? std::max(t.min_ii_cycles, stream) : stream) + extra_cycles;
  if (CostNote* note = cost_note()) {
    std::string f = e == Engine::GpSimd && floor ? std::string("GPSIMD_START + ") + formula : formula;
    if (speedup > 1) f += " / " + std::to_string(int(speedup)) + " (performance mode)";
    if (stride != 1) f += " x stride penalty";
    if (extra_cycles != 0) f += " + extra";
    note->formula = f;
    note->add("engine", engine_label(e));
    note->add("N", n);
    if (passes != 1) note->add("passes", passes);
    if (speedup > 1) note->add("mode", std::to_string(int(speedup)) + "x");
    for (int s = 0; s < isa::info(ins.op).num_operands; ++s) {
      const isa::AccessPattern& ap = ins.operands[s];
      if (!ap.present()) continue;
      std::string v = std::string(isa::memory_name(ap.mem)) + " " + std::string(isa::dtype_name(ap.dtype));
      const double sb = inner_stride_bytes(ap);
      if (sb > 0) v += ", inner stride " + std::to_string(int64_t(sb)) + " B";
      note->add(isa::info(ins.op).operands[s].name, v);
    }
    if (stride != 1) note->add("stride penalty", stride);
    if (floor && e == Engine::GpSimd) note->add("GPSIMD_START", t.gpsimd_start_cycles);
    else if (floor) note->add("MIN_II", t.min_ii_cycles);
    if (extra_cycles != 0) note->add("extra cycles", extra_cycles);
    note->cycles = cycles;
  }
  return cycles;
}

double streaming_ns(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t, double n, double passes,
                    double speedup, const char* formula, double extra_cycles, bool floor) {
  return cycles_ns(streaming_cycles(ins, e, t, n, passes, speedup, formula, extra_cycles, floor), e, t);
}

double cost_stream(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  const double n = main_free_elements(ins);
  if (ins.op == isa::Opcode::memset) {
    // Zero into BF16/FP16 on Vector: max(MIN_II, N/2) (nki-isa.md §3.3 memset, ISA-OLD).
    const bool zero_half = e == Engine::Vector && ins.params.imm0 == 0.0f && half_float(ins.operands[0].dtype);
    return zero_half ? streaming_ns(ins, e, t, n, 0.5, 1, "max(MIN_II, N/2)")
                     : streaming_ns(ins, e, t, n, 1, 1, "max(MIN_II, N)");
  }
  const bool copy_like = ins.op == isa::Opcode::tensor_copy || ins.op == isa::Opcode::tensor_scalar;
  const double speedup = perf_speedup(ins, e, t, copy_like ? PerfKind::Copy : PerfKind::None);
  return streaming_ns(ins, e, t, n, 1, speedup, "max(MIN_II, N)");
}

double cost_tensor_tensor(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern &dst = ins.operands[0], &a = ins.operands[1], &b = ins.operands[2];
  const double n = main_free_elements(ins);
  const bool one_psum = (a.mem == Memory::PSUM) != (b.mem == Memory::PSUM);
  const bool all_bf16 = dst.dtype == DType::bfloat16 && a.dtype == DType::bfloat16 && b.dtype == DType::bfloat16;
  const isa::AluOp op = ins.params.op0;
  const bool fast_op = op == isa::AluOp::add || op == isa::AluOp::subtract || op == isa::AluOp::multiply;
  const bool unit = dst.inner_stride() == 1 && a.inner_stride() == 1 && b.inner_stride() == 1;
  const bool both_sbuf = a.mem == Memory::SBUF && b.mem == Memory::SBUF;
  const bool v2_fast = both_sbuf && all_bf16 && fast_op && unit;
  const bool perf = perf_speedup(ins, e, t, PerfKind::TwoInput) > 1;
  if (e == Engine::Vector && (one_psum || v2_fast || perf)) {
    if (CostNote* note = cost_note())
      note->add("single pass", one_psum ? "one input in PSUM" : v2_fast ? "all-bf16 add/sub/mul, unit stride"
                                                                          : "NC-v3+ 2x mode: SBUF inputs, 16-bit");
    return streaming_ns(ins, e, t, n, 1, 1, "max(MIN_II, N)");
  }
  return streaming_ns(ins, e, t, n, 2, 1, "max(MIN_II, 2N)");
}

double cost_control(const isa::Instruction&, Engine e, const isa::TargetDesc& t) {
  if (CostNote* note = cost_note()) {
    note->formula = "control_cycles";
    note->cycles = t.control_cycles;
  }
  return cycles_ns(t.control_cycles, e, t);
}

// reg_load / reg_store: a sequencer instruction plus one memory access. [inferred] the SBUF access costs the
// access-initiation overhead (machine.md §9), an HBM access the fixed DMA latency (machine.md §11).
double cost_register_mem(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const bool hbm = ins.operands[0].mem == isa::Memory::HBM;
  if (CostNote* note = cost_note()) {
    note->formula = hbm ? "control_cycles + dma_fixed_ns" : "control_cycles + access_overhead_cycles";
    note->cycles = t.control_cycles + (hbm ? 0 : t.access_overhead_cycles);
  }
  const double ns = cycles_ns(t.control_cycles + (hbm ? 0 : t.access_overhead_cycles), e, t);
  return hbm ? ns + t.dma_fixed_ns : ns;
}

namespace {
double class_ns(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  switch (cost_class(ins.op)) {
#define COST(id)          \
  case CostClass::id:     \
    return cost_##id(ins, e, t);
#include "isa/costs.def"
#undef COST
  }
  return 0;
}
}  // namespace

bool has_dynamic_operand(const isa::Instruction& ins) {
  const int n = isa::info(ins.op).num_operands;
  for (int s = 0; s < n; ++s)
    if (ins.operands[size_t(s)].dyn.present()) return true;
  return false;
}

double dynamic_floor_ns(const isa::Instruction&, isa::Engine e, const isa::TargetDesc& t, double ns) {
  const double floor_ns = cycles_ns(t.min_ii_dynamic_cycles, e, t);
  if (CostNote* note = cost_note(); note && floor_ns > ns) {
    note->formula = "max(MIN_II_DYNAMIC, " + (note->formula.empty() ? std::string("cost") : note->formula) + ")";
    note->add("MIN_II_DYNAMIC", t.min_ii_dynamic_cycles);
    note->cycles = t.min_ii_dynamic_cycles;
  }
  return std::max(ns, floor_ns);
}

double engine_ns(const isa::Instruction& ins, Engine e, const isa::TargetDesc& t) {
  const double ns = class_ns(ins, e, t);
  return has_dynamic_operand(ins) ? dynamic_floor_ns(ins, e, t, ns) : ns;
}

}  // namespace nkisim::isa
