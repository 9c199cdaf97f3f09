// passes.h - the back end's passes over the Kernel IR (internal to ir/; lower.cpp runs them in order).
#pragma once
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/deps.h"
#include "ir/kernel.h"
#include "ir/lower.h"
#include "isa/program.h"
#include "isa/target.h"

namespace nkisim::ir {

// Loop-invariant code motion for unrolled loops (ir/reuse.cpp): an element-wise op (tensor_tensor,
// tensor_scalar, tensor_copy, activation without accumulators) outside dynamic loops that writes a whole fresh
// on-chip tile, written by no other op, with the same computation as an earlier such op whose sources have not
// been written since, is dropped; later uses of its tile use the earlier op's tile. nullopt: nothing dropped.
std::optional<Kernel> reuse_recomputations(const Kernel& k);

// Copies out of single-use temporaries forwarded into their producer, and fills of a tile that is next
// overwritten whole dropped (ir/forward.cpp); nullopt when there is nothing to do.
// A Tensor Engine producer (a matmul or transpose that overwrites its PSUM temporary) may write a PSUM slice that lies
// within one bank of `psum_bank_bytes`.
std::optional<Kernel> forward_copies(const Kernel& k, int64_t psum_bank_bytes);

// The live ranges of an automatically allocated SBUF tile outside dynamic loops rotate through `buffers` tensors
// (ir/rename.cpp; the target's tile_buffers): a range starts at an instruction that writes the tile without reading
// it, ranges an instruction reads across stay one, and range i uses buffer i % buffers, so every read sees the same
// elements as before. nullopt: nothing split (buffers < 2, or no tile with two ranges).
std::optional<Kernel> split_live_ranges(const Kernel& k, int buffers);

// Whether a reordering pass (schedule_for_pressure, interleave_accumulation_groups) may move the op: a data-path
// instruction the table marks REORDER, carrying no engine state (no accumulator command, no control flow, no
// run-time offset), and not made in a no_reorder block (Op::keep_order). Everything else stays where it is.
bool reorderable(const Op& op);

// Accumulation groups interleaved (ir/interleave.cpp, docs/cost-model.md): a run of consecutive independent PSUM
// accumulation groups (PE units writing one automatically allocated PSUM tensor, each followed by the ops up to
// the next PE unit) that fit in PSUM together, at most one per bank, is issued contraction-step-major: every
// group's first unit, then every group's second, ...; then the groups' following ops in order. nullopt: no run.
std::optional<Kernel> interleave_accumulation_groups(const Kernel& k, const isa::TargetDesc& target);

// Reordering before spilling (ir/schedule.cpp, docs/spill.md): moves independent ops (by the tensors they read
// and write; ops carrying engine state, control flow and run-time offsets stay in place and split the kernel into
// stretches) so that in each stretch an op that does not grow the live bytes of automatically allocated `mem`
// tensors (nor take the other on-chip memory past `other_capacity` bytes per partition) runs first, else the one
// whose placement lets such an op run, else the earliest in program order. nullopt: the order is unchanged.
std::optional<Kernel> schedule_for_pressure(const Kernel& k, Buffer mem, int64_t other_capacity);

// Where each tensor lives after allocation.
struct Placement {
  isa::Memory mem = isa::Memory::None;
  int64_t partition = 0;  // on-chip: first partition
  int64_t address = 0;    // on-chip: byte offset in each partition; HBM: byte address
  bool allocated = false;
};

// Chooses an engine for every op: the op's own, or the table's default for engine=unknown. DMA ops get
// their trigger engine later (insert_semaphores). Throws if an op names an engine that cannot run it.
// `counts` (optional): the ops per engine, DMA ops apart (EngineCounts::dmas), in the same pass over the ops.
struct EngineCounts {
  std::array<size_t, isa::kNumEngines> per_engine{};  // ops other than DMAs
  size_t dmas = 0;
};
std::vector<isa::Engine> assign_engines(const Kernel& k, EngineCounts* counts = nullptr);

// Spilling during allocation (lower()): when an on-chip tensor without address= does not fit, `choose` gets the
// tensors of that memory live at that point with their bytes per partition (the failing one first) and returns
// the one to spill, or -1 to throw the capacity error. The spilled tensor leaves the allocation (unplaced) and
// is listed in `spilled`; `error` keeps the first capacity error.
// When one victim leaves the free space in pieces, allocation puts it back and instead takes out the live tensors
// in the contiguous window (or the failing tensor itself) whose summed `price` is the least; price(tensor,
// failing) is that tensor's spill cost, or infinity when it may not go.
struct SpillChoice {
  std::function<int(const std::vector<std::pair<int, int64_t>>& live)> choose;
  std::function<double(int tensor, int failing)> price;
  std::vector<int> spilled;
  std::optional<Error> error;
};

// Places HBM tensors (inputs first, in parameter order) and on-chip tensors (SBUF/PSUM, liveness-based
// reuse with next-fit placement, address= honoured). Fills the program's hbm_tensors / hbm_bytes. When a
// tensor without address= does not fit: throws the capacity error, or with `spill` asks it what to spill.
std::vector<Placement> allocate(const Kernel& k, const isa::TargetDesc& t, isa::Program& p,
                                SpillChoice* spill = nullptr);

// Spilling (ir/spill.cpp, docs/spill.md), for kernels that place none of their tensors. spillable: an on-chip
// tensor the kernel did not place (no address=, no mod_alloc/alloc) without run-time offsets (lower() never
// spills the staging tiles it made). spill_tensors moves each to private HBM and rewrites every op touching it: a
// compute operand that cannot be in HBM gets a fresh staging tile (SBUF, or PSUM for a matmul dst) with a DMA
// reload before a read or an accumulating write and a DMA spill after a write (through SBUF from PSUM);
// consecutive accumulating matmuls into the same block share one staging tile.
struct SpillNote {
  int tensor = -1;
  std::string name;
  Buffer from = Buffer::sbuf;
  int64_t bytes = 0;  // per partition
  int reloads = 0, spills = 0;
  bool remat = false;  // re-loaded from its input instead (rematerialise_tensors)
  std::string source;  // remat: that input's name
};
// spill_tensors rewrites for all of `tensors` in one pass over the ops; one note per tensor, in that order.
SpillNote spill_note(const Kernel& k, int tensor);     // tensor, name, from and bytes filled in
std::vector<char> spillable_tensors(const Kernel& k);  // per tensor: spillable
std::vector<SpillNote> spill_tensors(Kernel& k, const std::vector<int>& tensors);

// Rematerialisation (ir/remat.cpp, docs/spill.md): per tensor, the op that defines it when it is a spillable tile
// written once, by a static dma_copy from a kernel input nothing writes, before any other use; else -1.
// rematerialise_tensors drops those copies of `tensors` and, before each op reading one of them, copies it again
// (the same DMA) into a fresh tile of its shape that the op reads instead; one note per tensor, in that order.
std::vector<int> rematerialisable_tensors(const Kernel& k, const std::vector<char>& spillable);
std::vector<SpillNote> rematerialise_tensors(Kernel& k, const std::vector<int>& tensors, const std::vector<int>& def);

// Lowers an ir::View to an access pattern with its tensor's placement `p`; validates the form for `slot` of `op`
// (partition count, stride and start, at most 4 free dims within the pattern limits). Throws located errors. The
// operand's memory and the instruction's other rules are isa::verify's.
isa::AccessPattern to_access_pattern(const Kernel& k, const Placement& p, const View& v, const Op& op, int slot,
                                     const isa::TargetDesc& t);

// Fills isa::DynOffset of every operand of `op` with a run-time offset (ir/dynamic_offset.cpp).
void lower_dynamic_operands(const Kernel& k, const std::vector<Placement>& pl, const Op& op, isa::Instruction& ins);

// Fills the instruction of op i (operands, params, location; everything else default).
using MakeInstruction = std::function<void(size_t i, isa::Instruction& ins)>;

// Puts the instructions (one per op, in program order, made by `make`) into the program's streams,
// choosing DMA trigger engines and queues and adding the semaphore waits and updates that program order
// requires (RAW, WAR, WAW over overlapping memory), and nothing more (ir/deps.h). Straight-line code takes the
// fast path (ir/semaphores.cpp: each instruction is made once, into a scratch instruction, and moved once, into
// its stream) unless `path` is SemaphorePath::regions (lower.h). `granules`: how finely memory is tracked
// (memory_granules(), ir/deps.h).
void emit_with_semaphores(const Kernel& k, const std::vector<isa::Engine>& engines, const MakeInstruction& make,
                          const isa::TargetDesc& t, isa::Program& p, deps::Granules granules,
                          SemaphorePath path = SemaphorePath::automatic);

// The granules (bytes) in which the dependency analyses track memory for kernel k placed by `pl`: the coarsest
// that keep the byte hulls of its accesses apart (deps::MemoryGranules).
deps::Granules memory_granules(const Kernel& k, const std::vector<Placement>& pl, const isa::TargetDesc& t);

// Kernels with dynamic loops or registers (ir/loops.cpp, docs/dynamic-loops.md): emit_with_semaphores
// hands them to emit_with_loops, which replicates registers per engine, emits each loop once per register
// engine and makes every semaphore wait of a loop body relative to its iteration counter. Its regions (the top
// level, each loop body) are analysed by the same deps::RegionAnalysis as straight-line code; a loop-free kernel
// gives the same program on both paths (tests/ir/tools/regions_match.cpp).
bool has_dynamic_control(const Kernel& k);
void emit_with_loops(const Kernel& k, const std::vector<isa::Engine>& engines, std::vector<isa::Instruction>&& instrs,
                     const isa::TargetDesc& t, isa::Program& p, deps::Granules granules);

// The Neuron compiler's instruction scheduler (ir/list_schedule.cpp, docs/cost-model.md "Session 16"), for
// straight-line kernels after allocation: list scheduling of the ops over their dependencies through memory (RAW,
// WAR, WAW on the placed bytes; an accumulator command in order with its engine's others) with the compile-time
// estimates of isa/cost.h. Each engine, when free, takes the earliest of its ready ops in program order, else the
// op ready first; transfers start when ready. An ANY_ENGINE op without engine= goes to the engine of its row that
// would finish it first (GpSimd never with a PSUM operand). Ops that may not move (not REORDER, no_reorder blocks,
// run-time offsets, control) stay in place, and nothing moves across them or more than a window of items ahead.
// Returns the ops in the order of their estimated starts, with `engines` permuted and updated to match; nullopt
// when neither the order nor an engine changes.
std::optional<Kernel> schedule_for_latency(const Kernel& k, std::vector<isa::Engine>& engines,
                                           const MakeInstruction& make, const isa::TargetDesc& t, int64_t chip_granule);

// LNC=2 (ir/lnc.cpp): numbers the core_barrier instructions of each engine and gives them their semaphore.
void assign_core_barriers(const Kernel& k, isa::Program& p);

// Location helpers.
Error error_at(const Op& op, std::string msg);

}  // namespace nkisim::ir
