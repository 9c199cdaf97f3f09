// nl_ops.h - the high-level nki.language functions (tiles returned by nl.* ops, nl.load/nl.store,
// operators on tiles) and the legacy neuronxcc.nki dataflow style (index tiles, masks, legacy nisa calls
// without dst=). Every nl.* op allocates its result tile (a fresh SBUF or PSUM tensor) and lowers to nki.isa
// instructions through the nki.isa bindings themselves, so operands are checked exactly as for nisa calls.
//   nl_ops.cpp        tiles, dtype promotion, elementwise/unary ops, load/store/copy, operators, x[...] = v
//   nl_index.cpp      nl.arange / nl.mgrid index tiles, affine index expressions, masks
//   nl_ops_more.cpp   matmul, transpose, reductions, softmax, rms_norm, where, shape ops, ...
//   legacy_isa.cpp    neuronxcc.nki.isa: instructions returning tiles (no dst=, dtype=/mask= keywords)
#pragma once
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "frontend/isa_builder.h"

namespace nkisim::frontend {

// ---- index tiles (nl_index.cpp)

// One iteration variable of an index tile: nl.arange(n)[:, None] is iterator 0..n-1 on tile axis 0.
struct NlIter {
  int axis = 0;        // tile dimension it runs along
  int64_t extent = 1;  // number of values
};

// An affine index expression: constant + sum(coeff * iterator).
struct IndexObj : Object {
  std::vector<std::pair<int, int64_t>> terms;  // (iterator id, coefficient), coefficient != 0
  int64_t constant = 0;
  int rank = 1;        // the index tile's rank (number of axes)
  bool unplaced = false;  // nl.arange(n) before [:, None] / [None, :]
  IndexObj() : Object(VK::Other) {}
  std::string type_name() const override { return "IndexTile"; }
  std::string repr() const override;
};

// A mask: a conjunction of affine constraints `sum(coeff * iterator) + constant >= 0` (strict ones are
// normalised to >=), or a compile-time constant when it has no iterators.
struct PredObj : Object {
  struct Cons {
    std::vector<std::pair<int, int64_t>> terms;
    int64_t constant = 0;
  };
  std::vector<Cons> all;  // every constraint holds
  bool never = false;     // constant false
  // Non-empty: the mask is the disjunction of these conjunctions (`|`, `!=`, `~` of a conjunction) and
  // `all`/`never` are unused.
  std::vector<std::vector<Cons>> any;
  PredObj() : Object(VK::Other) {}
  std::string type_name() const override { return "Mask"; }
  std::string repr() const override { return "<mask>"; }
};

// nl.loop_reduce(x, op, loop_indices): "the destination tile is also the rhs input to op", so its value is not a
// tile but this record, which `t[...] = <it>` turns into t[...] = op(t[...], x) (nl_set_item). Any other use of
// it is a type error.
struct LoopReduceObj : Object {
  Value x, mask;
  isa::AluOp op;
  std::optional<isa::DType> dtype;
  LoopReduceObj() : Object(VK::Other) {}
  std::string type_name() const override { return "loop_reduce result"; }
  std::string repr() const override { return "<nl.loop_reduce result>"; }
};

// Per-kernel state of the nl layer.
struct NlState {
  std::vector<NlIter> iters;
  // The result of the latest legacy nisa.nc_matmul / nl.matmul, so that `psum += nisa.nc_matmul(...)`
  // re-issues it into the accumulator (the PSUM tensor) instead of adding a copy.
  struct PendingMatmul {
    int tensor = -1;
    size_t begin = 0, end = 0;  // its ops in Kernel::ops
    Value stationary, moving;
    Value perf_mode = Value::unbound(), tile_position = Value::unbound();  // nisa.nc_matmul's, when given
  } pending;
  // Launch grid (--grid): the program ids of the current instance and the grid.
  std::vector<int64_t> program_id, grid;
  std::vector<int> shared_outputs;  // shared_hbm tensors of program 0, reused by the other programs
  size_t shared_next = 0;
  // Modulo-allocated PSUM block tensors (nl_blocks.cpp): per (tensor, physical block offset), the logical block
  // indices that last used it.
  std::map<std::pair<int, int64_t>, std::vector<int64_t>> fold_owner;
  // Dynamic-loop boundaries (loop_begin / loop_end ops) emitted so far, and nl.broadcast_to's ones row per
  // partition count with the boundary count when its memset was emitted: reused only while no boundary came
  // since, so the memset has run before every use.
  size_t control_ops = 0;
  std::map<int64_t, std::pair<Value, size_t>> bcast_ones;
  // Fresh result tiles of ops whose mask= selected nothing (a compile-time False): the legacy compiler emits no
  // instruction, so `x[...] = <it>` and `acc += <it>` write nothing (masked_off below).
  std::unordered_set<int> masked_off;
};
NlState& nl_state(Interp& in);
// Marks `tile` (a fresh tile no instruction writes, because its op's mask never holds) as masked off and
// returns it: assigning it (`x[...] = tile`) or accumulating it (`acc += tile`) is then a no-op.
Value masked_off(Interp& in, Value tile);
bool is_masked_off(Interp& in, const Value& v);

// Axis ranges [lo, hi) a mask allows; nullopt = unrestricted.
using AxisBounds = std::vector<std::optional<std::pair<int64_t, int64_t>>>;
// The per-axis bounds of a mask= argument (None/unbound: no bounds). Sets *never when nothing is selected.
// A mask that is not a box (it relates two index tiles, or uses `|` / `!=`) gives its bounding box when
// `hull` (ops writing fresh tiles, whose masked-out elements are undefined), else a located error.
AxisBounds mask_bounds(Interp& in, const Value& mask, bool* never, const char* fname, bool hull = false);
// The exact set a mask selects as disjoint boxes (empty: nothing; one unrestricted box for no mask).
std::vector<AxisBounds> mask_boxes(Interp& in, const Value& mask, const char* fname);
// Compute instructions cannot start a wide access at any partition: a partition-axis bound [lo, hi) becomes
// [0, hi) for ops writing fresh tiles (the extra rows are outside the mask and never read back as valid).
void widen_partition(AxisBounds& b);
// The input of a masked reduction (nl_mask_fill.cpp): `bounds` is the mask's bounding box (partition axis
// widened), `never` that it selects nothing. For a mask that is not a box, `x` is a fresh copy of the input with
// the masked-out elements set to `identity` and `pred` the fp32 0/1 tile of the mask (inside `bounds`);
// otherwise `x` is the input and `pred` None.
struct MaskedInput {
  Value x, pred;
  AxisBounds bounds;
  bool never = false;
};
MaskedInput mask_input(Interp& in, const Value& x, const Value& mask, double identity, const char* fname);
// A fresh tile: x where the predicate holds, else `fill` (written inside the bounds b); *pred (if given) gets
// the fp32 0/1 tile of the predicate (None for a constant predicate).
Value select_by_pred(Interp& in, const Value& x, const PredObj* p, double fill, const AxisBounds& b, Value* pred,
                     const char* fname);
// Restricts a view to the bounds, axis by axis (dims beyond the bounds are kept).
ir::View restrict_view(const ir::View& v, const AxisBounds& b);
// A tensor value restricted to the bounds (numbers, None and unbounded masks pass through unchanged).
Value restrict_value(const Value& v, const AxisBounds& b);
// A legacy view reaching past its tensor's end, which a mask= may bring back inside: `error` (the bounds error, told
// that a mask would allow it) is raised where the view is used (TensorObj::deferred_error) unless restrict_value
// keeps every dim within `valid`, its in-bounds elements per view dim.
Value overhanging_view(const TensorObj* t, const ir::View& v, const std::string& error, std::vector<int64_t> valid);

// nl.par_dim(n) (legacy): marks the partition dimension of a shape; want_shape (nki_lang.cpp) takes its size.
struct ParDimObj : Object {
  int64_t size;
  explicit ParDimObj(int64_t n) : Object(VK::Other), size(n) {}
  std::string type_name() const override { return "par_dim"; }
  std::string repr() const override { return "par_dim(" + std::to_string(size) + ")"; }
};
const ParDimObj* as_par_dim(const Value& v);  // null unless v is an nl.par_dim marker

bool is_index(const Value& v);  // IndexObj
bool is_pred(const Value& v);   // PredObj
// t[key] where key contains index tiles; Unbound when it does not.
Value index_tensor(Interp& in, const TensorObj* t, const Value& key);
// t[key] for a legacy block tensor (t->lead > 0): integers select blocks, the rest indexes the tile.
Value block_get_item(Interp& in, const TensorObj* t, const Value& key);
Value index_binop(Interp& in, BinKind k, const Value& a, const Value& b);
Value index_compare(Interp& in, CmpKind k, const Value& a, const Value& b);
Value index_unary(Interp& in, UnaryKind k, const Value& v);
Value index_get_item(Interp& in, const Value& obj, const Value& key);
// t[nl.mgrid[0:P, 0:F]]: a whole mgrid result as a subscript is its tuple of index tiles (else key unchanged).
Value mgrid_key(const Value& key);
void install_nl_index(Interp& in, ModuleObj* nl);

// ---- tiles and ops (nl_ops.cpp)

namespace nl {
// Weak Python scalars count as bool -> uint8, int -> int32, float -> float32.
isa::DType scalar_dtype(const Value& v);
// The legacy promotion of two dtypes (nki-language.md §6.4).
isa::DType promote(isa::DType a, isa::DType b);
// A fresh tile named after the assignment target when the call is `name = ...`.
Value new_tile(Interp& in, const std::vector<int64_t>& shape, isa::DType dt, ir::Buffer buf = ir::Buffer::sbuf,
               const char* fallback = "tile");
const TensorObj* tile_arg(const Value& v, const char* fname, const char* arg);  // a tensor or a TypeError
// Calls an nki.isa binding by name with keyword arguments (the binding checks and emits).
Value call_isa(Interp& in, const char* name, std::initializer_list<std::pair<const char*, Value>> kw);
Value view_value(const TensorObj* t, ir::View v);  // another view of t's tensor
// Optional dtype= argument.
std::optional<isa::DType> dtype_opt(const Value& v, const char* fname);
// Elementwise binary op with scalar / [P,1] broadcasting; `dst` given: writes it in place.
Value binary(Interp& in, isa::AluOp op, const Value& x, const Value& y, std::optional<isa::DType> dt,
             const Value& mask, const char* fname, const Value* dst = nullptr);
// dst = act(data * scale + bias) on the Scalar Engine.
Value activation(Interp& in, isa::ActFunc f, const Value& x, std::optional<isa::DType> dt, const Value& mask,
                 const char* fname, const Value& bias = Value::unbound(), const Value& scale = Value::unbound());
Value alu_value(isa::AluOp op);   // the nl.* op code of an ALU operator
Value act_value(isa::ActFunc f);  // ... of an activation function
bool legacy(Interp& in);  // the kernel is a legacy (neuronxcc.nki.jit) kernel
// Legacy numpy-style broadcasting of the tile operands among `ops` (others are left alone) to their common
// shape: tiles of one rank whose dims are each equal or 1; a partition dim of 1 through nl.broadcast_to, free
// dims as stride-0 views; per-partition scalars ([P, 1, ...]) kept when keep_columns. Otherwise unchanged.
void legacy_broadcast(Interp& in, std::initializer_list<Value*> ops, bool keep_columns);
}  // namespace nl

// Runs the kernel once per program id of a launch grid (row-major), returning program 0's result.
Value run_grid(Interp& in, FunctionObj* fn, CallArgs& a, const std::vector<int64_t>& grid);
// The launch grid the file spells for kernel `fn` of module `m` (`fn[4, 2](...)` in host code), empty when it
// spells none. For an nki.jit kernel it is {N}, the logical core size: N is 1 or 2 and an LNC target `t` runs
// (isa::check_lnc; else a located error).
std::vector<int64_t> file_launch_grid(Interp& in, ModuleObj* m, const FunctionObj* fn, const isa::TargetDesc& t);
void install_nl_grid(Interp& in, ModuleObj* nl);  // nl.nc, nl.spmd_dim

void install_nl_ops(Interp& in, ModuleObj* nl);
void install_nl_ops_more(Interp& in, ModuleObj* nl);
void install_nl_constants(Interp& in, ModuleObj* nl);  // nl.shared_identity_matrix (nl_constants.cpp)
void install_legacy_isa(Interp& in, ModuleObj* legacy_isa);
void install_legacy_isa_tiles(Interp& in, ModuleObj* legacy_isa);  // legacy_isa_tiles.cpp
// Shared by the legacy nisa bindings (legacy_isa.cpp): whether keyword `name` was given; nki.isa.NAME (the
// current-API binding a legacy call forwards to); and that forwarding: nki.isa.NAME(dst=dst, P=arg(P, v) ...)
// over the bound legacy parameters ps[0..n) except dtype / mask / shape and unbound ones. Returns dst.
bool has_kw(const CallArgs& a, const char* name);
Value current_isa_fn(Interp& in, const char* name);
Value forward_with_dst(Interp& in, const char* name, Value dst, const ParamSpec* ps, const Value* v, size_t n,
                       const std::function<Value(const std::string& param, const Value& v)>& arg);
void install_nki_compiler(Interp& in);  // neuronxcc.nki.compiler (nki_compiler.cpp)
// nl.ndarray(buffer=...): the buffer, and for a neuronxcc.nki.compiler allocation directive its placement
// (start partition, byte offset) in *address; `shape` has `lead` block dims before the partition dim. For a
// mod_alloc of a block tensor, *fold gets the physical block count per lead dim and *block_elems the physical
// free size of one block (PSUM: one bank each; 0 = the tile's own size). For an alloc(func) of a block tensor,
// *block_addrs gets the placement func gives each block (row-major over the block dims; PSUM: bank * 2 KiB +
// address), and each block becomes a tensor of its own (TensorObj::blocks).
Value resolve_allocation(Interp& in, const Value& buffer, const std::vector<int64_t>& shape, int lead, isa::DType dt,
                         std::optional<std::pair<int64_t, int64_t>>* address, std::vector<int64_t>* fold,
                         int64_t* block_elems, std::vector<std::pair<int64_t, int64_t>>* block_addrs);
void install_nl_legacy(Interp& in, ModuleObj* nl);  // nl.rand, empty_like, zeros_like, fp32 (nl_legacy.cpp)

}  // namespace nkisim::frontend
