// cost_tensor.cpp - cost classes of the Tensor Engine instructions (isa/costs.def), in TensorE cycles.
//
// Sources: nki-isa.md §3.1 and machine.md §4 (ISA-OLD formulas, ARCH2/ARCH3, PERF); parameters in
// isa/target.cpp. The formulas are the documented average initiation intervals of back-to-back
// instructions; docs/tensor-engine.md explains the choices.
//   load_stationary: ceil(max(MM_INIT, M) / LS_SPEEDUP), M = stationary free size (per half in double-row
//                    mode): "up to 4x faster than an MM of the same free size", whose cost is max(64, M);
//                    x PE_FP32 for a float32 stationary.
//   multiply_moving: max(min(MM_INIT, M), N), M = dst partitions (= the stationary's free size),
//                    N = dst free size (double-row mode: per half, so FP8 K=256 costs a K=128 pass);
//                    x PE_FP32 for a float32 moving; in transpose mode x PE_FP32_T for a 4-byte dst.
//   transpose_pe:    max(P, min(MM_INIT, F)) for data [P, F] (the ISA-OLD PE transpose formula, which is the
//                    matmul formula with data as stationary and the [P, P] identity as moving);
//                    x PE_FP32_T for 4-byte dtypes.
#include <algorithm>
#include <cmath>
#include <string>

#include "isa/cost.h"

namespace nkisim::isa {
namespace {
// Records what was applied for --explain (no-op unless cost_note() is set). The formula is a C string: the
// costs run for every instruction of a run and must not build strings when nobody asks for them.
void note(const char* formula, double cycles, std::initializer_list<std::pair<const char*, double>> inputs,
          isa::DType t) {
  CostNote* n = cost_note();
  if (!n) return;
  n->formula = formula;
  for (auto& [k, v] : inputs) n->add(k, v);
  n->add("dtype", std::string(isa::dtype_name(t)));
  n->cycles = cycles;
}
}  // namespace

double cost_load_stationary(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern& s = ins.operands[0];
  double m = double(s.free_elements());
  if (ins.params.double_row) m = std::ceil(m / 2);
  double c = std::ceil(std::max(t.mm_init_cycles, m) / std::max(1.0, t.ls_speedup));
  const bool f32 = s.dtype == isa::DType::float32;
  if (f32) c *= t.pe_fp32_factor;
  note(f32 ? "ceil(max(MM_INIT, M) / LS_SPEEDUP) x PE_FP32" : "ceil(max(MM_INIT, M) / LS_SPEEDUP)", c,
       {{"M", m}, {"MM_INIT", t.mm_init_cycles}, {"LS_SPEEDUP", t.ls_speedup}}, s.dtype);
  return cycles_ns(c, e, t);
}

double cost_multiply_moving(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern &dst = ins.operands[0], &mv = ins.operands[1];
  const double m = double(dst.num_partitions), n = double(dst.free_elements());
  double c = std::max(std::min(t.mm_init_cycles, m), n);
  const char* f = "max(min(MM_INIT, M), N)";
  if (ins.params.transpose) {
    if (isa::dtype_size(dst.dtype) == 4) {
      c *= t.pe_fp32_transpose_factor;
      f = "max(min(MM_INIT, M), N) x PE_FP32_T";
    }
  } else if (mv.dtype == isa::DType::float32) {
    c *= t.pe_fp32_factor;
    f = "max(min(MM_INIT, M), N) x PE_FP32";
  }
  note(f, c, {{"M", m}, {"N", n}, {"MM_INIT", t.mm_init_cycles}}, mv.dtype);
  return cycles_ns(c, e, t);
}

double cost_transpose_pe(const isa::Instruction& ins, isa::Engine e, const isa::TargetDesc& t) {
  const isa::AccessPattern& data = ins.operands[1];
  const double p = double(data.num_partitions), f = double(data.free_elements());
  double c = std::max(p, std::min(t.mm_init_cycles, f));
  const char* fm = "max(P, min(MM_INIT, F))";
  if (isa::dtype_size(data.dtype) == 4) {
    c *= t.pe_fp32_transpose_factor;
    fm = "max(P, min(MM_INIT, F)) x PE_FP32_T";
  }
  note(fm, c, {{"P", p}, {"F", f}, {"MM_INIT", t.mm_init_cycles}}, data.dtype);
  return cycles_ns(c, e, t);
}

}  // namespace nkisim::isa
