// exec.h - the numerics side of the simulator: executor context, per-instruction executors, dispatch.
#pragma once
#include <atomic>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isa/program.h"
#include "isa/target.h"
#include "sim/checker.h"
#include "sim/huge_pages.h"
#include "sim/memory.h"
#include "sim/pe_state.h"
#include "sim/view.h"

namespace nkisim::sim {

// Everything an executor touches: the memories, the program (for locations and HBM tensors), the target,
// and scratch buffers reused across instructions (no per-element or per-instruction allocation once warm).
class ExecContext {
 public:
  // `hbm`: the run's HBM space, shared by every core (sim/machine.h); it must outlive the context.
  ExecContext(const isa::Program& p, const isa::TargetDesc& t, MemorySpace& hbm);
  ~ExecContext() { settle_gemm(); }  // a product still running reads and writes this context's memories
  ExecContext(const ExecContext&) = delete;
  ExecContext& operator=(const ExecContext&) = delete;
  // Before a run that computes (not timing only): faults in, over the parallel_for threads, the memory the
  // program certainly touches (the HBM inputs and outputs when `with_hbm`, i.e. for one core of the run;
  // SBUF/PSUM up to a dense high-water mark), after asking for transparent huge pages where `huge` says so
  // (NKISIM_HUGEPAGES=0|auto|1 in the environment overrides it). sim/exec_context.cpp has the measurements
  // behind it. Changes no byte's value or validity.
  void prepare_pages(bool with_hbm, HugePages huge = HugePages::Off);

  const isa::Program& program;
  const isa::TargetDesc& target;
  Memories mem;
  std::vector<uint8_t> tensor_written;  // per program.hbm_tensors entry: an instruction wrote its bytes
  // Per program.hbm_tensors entry: an input bind_inputs maps from its file (prepare_pages leaves it alone).
  std::vector<uint8_t> tensor_mapped;
  PeState pe;  // Tensor Engine: the stationary loaded into the PE array (sim/exec_tensor.cpp)
  // The multiply_moving products that may still run on the helper threads (pe_gemm_start keeps at most two,
  // sim/exec_tensor.cpp): their PSUM outputs and moving operands, the last one's at [0]. resolve() waits for
  // them (settle_gemm) before handing out an operand that overlaps an output, a write that overlaps a moving
  // operand, or any operand of an indirect DMA (whose rows lie outside its view), so every instruction sees
  // memory as if the products had finished at their own turn.
  bool gemm_running = false;
  View gemm_out[2], gemm_moving[2];
  void settle_gemm();

  // Resolves operand `slot` of `ins` for reading / writing: checks that it is present (when the table
  // says REQ; an absent optional operand gives an empty View with mem None) and lies inside its memory
  // (throws a located Error otherwise; which memories the table allows is isa::verify's), binds it to memory
  // and makes its bytes valid. write() also records which Input tensors an HBM write touched.
  View read(const isa::Instruction& ins, int slot) { return resolve(ins, slot, false); }
  View write(const isa::Instruction& ins, int slot) { return resolve(ins, slot, true); }
  // write() without waiting for the running products: only for the dst of a multiply_moving that pe_gemm_start
  // queues behind them (which orders it after any product it overlaps); any other use settles first.
  View write_queued_product(const isa::Instruction& ins, int slot) { return resolve(ins, slot, true, false); }
  // The same checks without binding (the validation pass before simulation).
  View check(const isa::Instruction& ins, int slot, bool writes) const;

  std::optional<SourceLoc> location(const isa::Instruction& ins) const;
  // Options::interrupt: every run loop calls poll_interrupt() once per instruction or event.
  const std::atomic<bool>* interrupt = nullptr;
  void poll_interrupt() {
    if (interrupt && (++polls_ & 1023) == 0 && interrupt->load(std::memory_order_relaxed))
      throw Error("interrupted");
  }
  [[noreturn]] void fail(const isa::Instruction& ins, const std::string& msg) const;
  // For an instruction without .loc: the unlocated note naming it by engine stream, index and opcode
  // ("vector instruction 3 (memset)"), which nki-sim --program puts before the message.
  void add_instruction_note(const isa::Instruction& ins, Error& err) const;
  // Options::max_run_elements: execute() charges each instruction the elements of its largest operand (at
  // least 1); a run over the budget stops with a located error naming --max-run-elements.
  uint64_t run_elements_budget = UINT64_MAX;
  uint64_t run_elements = 0;
  void charge_work(const isa::Instruction& ins);

  // Scratch buffer k (0..7) of at least n elements.
  float* f32(int k, size_t n) { return grow(f32_[k], n); }
  uint32_t* u32(int k, size_t n) { return grow(u32_[k], n); }
  uint8_t* bytes(int k, size_t n) { return grow(bytes_[k], n); }

  // Per-partition scalar operand (a [P,1] tile): element 0 of each of its partitions, as fp32, or nullptr
  // when the optional operand is absent. Its partition count equals `partitions` (checked by isa::verify).
  const float* column_f32(const isa::Instruction& ins, int slot, uint32_t partitions, int scratch);
  const uint32_t* column_int(const isa::Instruction& ins, int slot, uint32_t partitions, int scratch);

  // Engine registers that persist across instructions (nki-isa.md §1.8), one fp32 per partition lane:
  // the ScalarE and VectorE accumulators. Empty until first used; sim/exec_vector_accum.cpp sizes them to the
  // target's partitions, zero-filled (hardware leaves them undefined).
  std::vector<float> scalar_acc, vector_acc;
  // Per-lane XORWOW random number generators (sim/exec_vector_random.cpp): 6 words (x0..x4, d) per generator,
  // VectorE 4 and GpSimd 1 generator per lane. Empty until first used (then as if seeded with 0).
  std::vector<uint32_t> rng_vector, rng_gpsimd;
  // Sequencer registers (sim/exec_control_regs.cpp): regs[engine][r], 32-bit, all 0 at the start; sized to
  // the target's sequencer_registers.
  std::array<std::vector<int32_t>, isa::kNumEngines> regs;
  // A DMA whose scalar_offset is a register (ind=3) uses the register as it was at its trigger: the timed
  // scheduler sets this while applying the transfer's effect (the functional run triggers and applies at once).
  std::optional<int32_t> dma_register;
  // device_print output (Options::print_sink; nullptr = std::cerr).
  std::ostream* print_sink = nullptr;
  // Options::print_dir: each device_print also saves its whole tile as <print_dir>/<print_tag><NAME>_<N>.npy
  // (N counts the prints of NAME from 0; print_tag is "core<C>_" on the cores of an LNC run).
  std::string print_dir, print_tag;
  std::map<std::string, uint32_t> print_counts;
  // --check (sim/check.h): the run's shadow state and this context's core; nullptr = checks off (free).
  Checker* checker = nullptr;
  uint32_t check_core = 0;

 private:
  uint32_t polls_ = 0;
  View resolve(const isa::Instruction& ins, int slot, bool writes, bool gemm_hazards = true);
  // Dynamic-offset operands (sim/dynamic_offset.cpp): validation, and the byte shift of operand `slot`
  // (described as `v`) read at execution; an out-of-bounds shift is a located Error.
  void check_dynamic(const isa::Instruction& ins, int slot) const;
  int64_t dynamic_shift(const isa::Instruction& ins, int slot, const View& v);
  void track_hbm_write(const View& v);
  template <class T>
  static T* grow(std::vector<T>& v, size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
  }
  std::array<std::vector<float>, 8> f32_;
  std::array<std::vector<uint32_t>, 8> u32_;
  std::array<std::vector<uint8_t>, 4> bytes_;
  std::vector<size_t> input_tensors_;  // indices of Input tensors in program.hbm_tensors
};

// Element-wise driver: for every partition i of dst, calls body(i, in, out, n) where in[k] points to the
// n = dst.free_elems fp32 values of partition i of *inputs[k] and out to n fp32 results that end up in dst.
// Contiguous float32 operands are used in place; everything else is gathered/scattered through scratch.
// Inputs are always read before dst is written (also when a cross-partition copy overlaps itself).
template <size_t K, class Body>
void elementwise_f32(ExecContext& ctx, const View& dst, const std::array<const View*, K>& inputs, Body&& body) {
  const size_t n = dst.free_elems;
  const uint32_t P = dst.partitions;
  if (n == 0 || P == 0) return;
  bool hazard = false, out_direct = direct_f32(dst, 0) != nullptr;
  for (const View* v : inputs) {
    if (!may_overlap(dst, *v)) continue;
    if (v->start_partition != dst.start_partition) hazard = true;
    if (!(v->row(0) == dst.row(0) && v->contiguous_rows() && v->dtype == dst.dtype)) out_direct = false;
  }
  std::array<const float*, K> in{};
  if (hazard) {  // gather all inputs of all partitions before writing anything
    std::array<float*, K> all{};
    for (size_t k = 0; k < K; ++k) {
      all[k] = ctx.f32(int(k), n * P);
      for (uint32_t i = 0; i < P; ++i) gather_f32(*inputs[k], i, all[k] + i * n);
    }
    float* out = ctx.f32(int(K), n);
    for (uint32_t i = 0; i < P; ++i) {
      for (size_t k = 0; k < K; ++k) in[k] = all[k] + i * n;
      body(i, in, out, n);
      scatter_f32(dst, i, out);
    }
    return;
  }
  std::array<float*, K> scratch{};
  for (size_t k = 0; k < K; ++k) scratch[k] = ctx.f32(int(k), n);
  float* out_scratch = ctx.f32(int(K), n);
  for (uint32_t i = 0; i < P; ++i) {
    for (size_t k = 0; k < K; ++k) {
      const float* d = direct_f32(*inputs[k], i);
      if (!d) {
        gather_f32(*inputs[k], i, scratch[k]);
        d = scratch[k];
      }
      in[k] = d;
    }
    float* out = out_direct ? direct_f32(dst, i) : out_scratch;
    body(i, in, out, n);
    if (!out_direct) scatter_f32(dst, i, out);
  }
}

// The integer (raw bits) twin of elementwise_f32 for bitvec ops; values as loaded by load_int.
template <size_t K, class Body>
void elementwise_int(ExecContext& ctx, const View& dst, const std::array<const View*, K>& inputs, Body&& body) {
  const size_t n = dst.free_elems;
  const uint32_t P = dst.partitions;
  if (n == 0 || P == 0) return;
  std::array<uint32_t*, K> all{};
  std::array<const uint32_t*, K> in{};
  for (size_t k = 0; k < K; ++k) {  // gather everything first: simple and always hazard-free
    all[k] = ctx.u32(int(k), n * P);
    for (uint32_t i = 0; i < P; ++i) gather_int(*inputs[k], i, all[k] + i * n);
  }
  uint32_t* out = ctx.u32(int(K), n);
  for (uint32_t i = 0; i < P; ++i) {
    for (size_t k = 0; k < K; ++k) in[k] = all[k] + i * n;
    body(i, in, out, n);
    scatter_int(dst, i, out);
  }
}

// dst <- src element by element in element order (partition-major, free dims outer -> inner); bit-exact
// when the dtypes are equal, otherwise src -> fp32 -> dst. Requires equal total element counts. Reads
// everything before writing when the operands overlap.
void copy_elements(ExecContext& ctx, const View& dst, const View& src);

// activation's accumulator effect (sim/exec_vector_accum.cpp): applies params.reduce_cmd/reduce_op of `ins` to
// the ScalarE accumulator of `lane` with that partition's n fp32 results (rules: isa/verify_elementwise.cpp).
void activation_accumulate(ExecContext& ctx, const isa::Instruction& ins, uint32_t lane, const float* out, size_t n);

// One semantic function per instruction-table row (sim/exec_*.cpp).
#define INST(id, ...) void exec_##id(ExecContext& ctx, const isa::Instruction& ins);
#include "isa/instructions.def"
#undef INST

// Applies the data effect of `ins` (dispatch through a table generated from instructions.def).
void execute(ExecContext& ctx, const isa::Instruction& ins);

}  // namespace nkisim::sim
