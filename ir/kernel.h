// kernel.h - the Kernel IR: tensors, views over them, and nki.isa-level operations in program order.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "isa/diagnostic.h"
#include "isa/instruction.h"
#include "ir/inline_vec.h"
#include "ir/operand_slots.h"
#include "ir/prefault.h"

namespace nkisim::ir {

enum class Buffer : uint8_t { sbuf, psum, hbm, shared_hbm };  // hbm == private_hbm
std::string_view buffer_name(Buffer b);
inline bool is_on_chip(Buffer b) { return b == Buffer::sbuf || b == Buffer::psum; }

struct Tensor {
  enum class Role : uint8_t { Temp, Param };
  std::string name;
  isa::DType dtype = isa::DType::float32;
  std::vector<int64_t> shape;  // on-chip: shape[0] is the partition dim
  Buffer buffer = Buffer::sbuf;
  Role role = Role::Temp;
  int param_index = -1;  // Role::Param: position among the kernel's tensor parameters
  // `address=` placement for on-chip tensors: (start partition, byte offset in each partition).
  std::optional<std::pair<int64_t, int64_t>> address;
  SourceLoc loc;  // where it was created
  std::vector<uint8_t> init;  // HBM constant data (nl.shared_constant): the initial bytes, or empty
  int64_t num_elements() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

// Where a tensor was made, as the Neuron compiler sees it: it does not unroll a loop, so the tiles made at one
// kernel line with one shape, dtype and buffer are one tensor to it (ir/lower.cpp add_siblings, ir/interleave.cpp).
// Only meaningful when loc.known().
inline auto site_key(const Tensor& t) { return std::tie(t.loc.line, t.loc.col, t.loc.file, t.shape, t.dtype, t.buffer); }
inline bool same_site(const Tensor& a, const Tensor& b) { return a.loc.known() && site_key(a) == site_key(b); }

struct ViewDim {
  int64_t stride = 0;  // elements (of the view's dtype) in the base tensor's row-major storage
  int64_t count = 1;
  bool operator==(const ViewDim&) const = default;
};
inline constexpr size_t kMaxViewDims = 6;  // NkiTensor views have at most 5 dims; one spare for reshapes
using ViewDims = InlineVec<ViewDim, kMaxViewDims>;  // inline: a million ops allocate nothing per view

// A view: element (i0, i1, ...) is at flat element index `offset + sum(ik * dims[k].stride)` of the base
// tensor's row-major storage (in units of `dtype`, which may reinterpret the base's dtype).
// On-chip views: dims[0] is the partition dim and its stride equals the base's per-partition element count.
struct View {
  int tensor = -1;
  isa::DType dtype = isa::DType::float32;
  int64_t offset = 0;
  ViewDims dims;
  std::vector<int64_t> shape() const {
    std::vector<int64_t> s;
    for (auto& d : dims) s.push_back(d.count);
    return s;
  }
  int64_t num_elements() const {
    int64_t n = 1;
    for (auto& d : dims) n *= d.count;
    return n;
  }
  // The partition count of an on-chip view (dims[0]; 1 for a view without dims).
  int64_t partitions() const { return dims.empty() ? 1 : dims[0].count; }
};

// Dynamic control flow (docs/dynamic-loops.md). loop_begin / loop_end bracket the body of a dynamic loop
// (opcode branch); before each iteration the body runs while (v[params.rs0] params.op0 b) != 0, b =
// v[params.rs1] (params.rimm when rs1 = 65535), op0 a comparison. Register ops (opcodes reg_set, reg_alu,
// reg_load, reg_store) name virtual registers v[i], i < Kernel::num_vregs, in params.rd / rs0 / rs1; the
// back end gives every engine that needs them its own copy.
enum class Ctl : uint8_t { none, loop_begin, loop_end };

// A run-time offset of an on-chip compute operand (`.ap(scalar_offset=)`, `.select(dim, tensor)`;
// docs/dynamic-offsets.md): operand `slot` moves by value x row_stride elements of its view's dtype, the
// value read when the instruction executes from `offsets` (a 1-element SBUF integer view) or, when reg >= 0,
// from virtual register v[reg]. The back end lowers it to isa::DynOffset.
struct DynOperand {
  int slot = 0;
  std::optional<View> offsets;
  int reg = -1;
  int64_t row_stride = 0;
};

struct Op {
  isa::Opcode opcode = isa::Opcode::tensor_copy;
  Ctl ctl = Ctl::none;
  bool keep_order = false;  // made inside `with nl.no_reorder():`: no pass moves it (ir/schedule.cpp, ir/interleave.cpp)
  bool group_end = false;   // a memset the front end made only to end a PSUM accumulation group (frontend/nl_blocks.cpp)
  OperandSlots<View> operands;  // slots as in the instruction table (ir/operand_slots.h)
  isa::InstrParams params{};
  std::optional<isa::Engine> engine;  // nullopt = engine.unknown: the back end chooses
  SourceLoc loc;                       // the kernel line that issued it
  std::vector<SourceLoc> call_chain;   // enclosing call sites, innermost first (for notes)
  std::vector<DynOperand> dynamic;     // operands with a run-time offset (usually none)
};

// Calls f(slot, view, spec) for each present operand of `op`, in slot order, with its instruction-table spec.
template <class F>
void for_each_operand(const Op& op, F&& f) {
  const isa::InstrInfo& in = isa::info(op.opcode);
  for (int s = 0; s < in.num_operands; ++s)
    if (const std::optional<View>& v = op.operands[size_t(s)]) f(s, *v, in.operands[size_t(s)]);
}

// Whether operand `slot` of `op` reads its tensor's elements: an input, and a written operand whose old value
// counts too (an accumulating matmul's destination, an operand the table marks `keeps`, a transfer's destination
// when oob_mode.skip may drop rows of it).
inline bool reads_operand(const Op& op, int slot, const isa::OperandSpec& spec) {
  return !spec.written || spec.keeps || (slot == 0 && (op.params.accumulate || op.params.oob_skip));
}

// Contract: ops execute in program order (the meaning of the kernel); params lists the tensor ids of the
// kernel's tensor parameters in order; outputs lists the returned tensor ids in return order (a returned
// parameter appears in both).
struct Kernel {
  std::string name;
  std::string target = "trn2";
  // Where this core's private HBM tensors (buffer=nl.hbm / nl.private_hbm) start, at the least: with LNC=2 the
  // cores share one HBM space, so core c's private tensors go after core c-1's whole space (api::compile_kernel
  // sets it); shared tensors and parameters come first, at the same addresses on every core.
  int64_t private_hbm_base = 0;
  std::string file;  // the kernel's source file
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<int> params;
  std::vector<int> outputs;
  int num_vregs = 0;  // virtual registers (nisa.register_alloc, loop induction variables)
  std::vector<std::string> strings;  // device_print prefixes (isa::Program::strings, by index)
  // What the front end read and ran (api/bundle.cpp records them): every Python source file it loaded, the
  // kernel file first, as the front end opened them; and the legacy SPMD launch grid the kernel ran over
  // (--grid or the file's kernel[2, 2](...) launch; empty: one instance).
  std::vector<std::string> source_files;
  std::vector<int64_t> launch_grid;

  int add_tensor(Tensor t) {
    tensors.push_back(std::move(t));
    return int(tensors.size()) - 1;
  }
  // Appends an op (the front end, one at a time). An Op is ~1 KB: a big kernel's ops take megabytes of fresh
  // pages, mapped ahead a MiB at a time (ir/prefault.h), also those the ops move into when `ops` grows.
  int keep_order_depth = 0;  // open `nl.no_reorder()` blocks while the front end emits ops
  void add_op(Op op) {
    if (keep_order_depth > 0) op.keep_order = true;
    if (ops.size() == ops.capacity()) {
      std::vector<Op> grown;
      grown.reserve(std::max<size_t>(64, 2 * ops.capacity()));
      prefault(grown.data(), grown.data() + ops.size());
      for (Op& o : ops) grown.push_back(std::move(o));
      ops.swap(grown);
    }
    prefault_append(ops);
    ops.push_back(std::move(op));
  }
  View full_view(int tensor) const;  // the whole tensor, row-major
  // Whether v is every element of its tensor once, in the tensor's own layout and dtype (full_view's).
  bool is_whole(const View& v) const;
};

// An on-chip tile the compiler places (no address=, not a parameter): back-end passes may rename, forward into
// or drop what only such tiles hold (ir/reuse.cpp, ir/forward.cpp).
inline bool auto_allocated(const Tensor& t) {
  return t.role == Tensor::Role::Temp && !t.address && is_on_chip(t.buffer);
}

}  // namespace nkisim::ir
