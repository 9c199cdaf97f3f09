// nki.h - NKI values for the evaluator: tensors (an IR tensor + a view), op codes, enums, kernel state.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/interp.h"
#include "isa/instruction.h"
#include "isa/target.h"

namespace nkisim::frontend {

// nl.add, nl.exp, ...: an op code usable as an ALU op, an activation function, or both.
struct NkiOpInfo {
  std::string name;
  std::optional<isa::AluOp> alu;
  std::optional<isa::ActFunc> act;
};
const std::vector<NkiOpInfo>& nki_ops();

// Enum types of nki.isa (engine, reduce_cmd, ...): Value::enum_val(type, value).
enum NkiEnumType : int { EnumEngine, EnumReduceCmd, EnumDgeMode, EnumOobMode, EnumNcVersion, EnumDmaEngine, EnumCount };
struct EnumTypeInfo {
  const char* name;
  std::vector<std::pair<const char*, int>> members;
};
const EnumTypeInfo& enum_type(int t);
const char* enum_member_name(int type, int value);
inline constexpr int kEngineUnknown = 0, kEngineTensor = 1, kEngineScalar = 2, kEngineGpSimd = 3, kEngineDma = 4,
                     kEngineVector = 5, kEngineSync = 6;

// An indirect access pattern made by `.ap(vector_offset=..., scalar_offset=...)`, `.select(dim, tensor|register)`
// or `.vector_select()` (nki-language.md §5). On an HBM tensor only DMA instructions accept it
// (frontend/nki_isa_dma.cpp); on an SBUF/PSUM tensor (kinds 2 and 3) every compute instruction does, as an
// ir::DynOperand (OpBuilder::operand, docs/dynamic-offsets.md). view's partition stride is 0 for a vector_offset.
struct IndirectAp {
  uint16_t kind = 0;     // 1 vector_offset (a [P,1] tile of row indices), 2 scalar_offset (a 1-element tile)
  Value offsets;         // the SBUF tensor holding the offsets (kind 3: none)
  int reg = -1;          // kind 3, scalar_offset from a VirtualRegister (docs/dynamic-loops.md): its id
  int64_t row_stride = 0;  // elements (of view.dtype) per step of the offset: prod(base.shape[indirect_dim+1:])
};

struct TensorObj : Object {
  int id;  // index into Interp::kernel.tensors
  ir::View view;
  const ir::Kernel* kernel;
  std::shared_ptr<const IndirectAp> indirect;  // set only by .ap() with a dynamic offset
  // Legacy nl.ndarray((B, nl.par_dim(P), F)): the number of leading block dims before the partition dim
  // (view.dims[lead] is the partition dim); indexing them with integers gives ordinary tiles (nl_blocks.cpp).
  int lead = 0;
  // neuronxcc.nki.compiler mod_alloc of a block tensor: per lead dim, the number of physical blocks (block i
  // lives at i mod fold[d]; empty: every block has its own); the view's counts stay the logical ones.
  std::vector<int64_t> fold;
  // neuronxcc.nki.compiler alloc(func) of a block tensor: the tensor of each block (row-major over the lead dims),
  // each placed where func said; the view's lead dims then have stride 0 and `id` is the first block's tensor.
  std::shared_ptr<const std::vector<int>> blocks;
  // A static .ap() outside the tensor: the error is raised when the view is used (an instruction operand or a
  // further view), not where it is made (docs/compatibility.md).
  std::string deferred_error;
  // A legacy slice past a dimension (nki_tensor.cpp, view_of_keys): per view dim, the number of leading elements
  // inside the tensor; deferred_error is then cleared by a restriction to within them (restrict_value).
  std::vector<int64_t> valid;
  void check_usable() const {
    if (!deferred_error.empty()) raise("ValueError", deferred_error);
  }
  TensorObj(int i, ir::View v, const ir::Kernel* k) : Object(VK::Tensor), id(i), view(std::move(v)), kernel(k) {}
  const ir::Tensor& base() const { return kernel->tensors[id]; }
  std::string repr() const override;
  std::string type_name() const override { return "NkiTensor"; }
};

struct NkiState {
  std::unordered_map<std::string, int> name_uses;  // for unique tensor names: the names taken as given
  // The numbers k of the names base_k that new_tensor made from `base`, increasing (the names themselves are
  // not kept: a big kernel makes thousands).
  std::unordered_map<std::string, std::vector<int64_t>> name_suffixes;
  const Node* hint_call = nullptr;                 // `name = nl.ndarray(...)`: the call and the name
  Sym hint_name = 0;
  int nc_version = 3;
  bool current_api = false;  // the kernel is decorated with nki.jit (not neuronxcc.nki.jit)
  Value tile_size;  // the nl.tile_size namespace
  std::shared_ptr<struct NlState> nl;  // nl.* tiles, index tiles, launch grid (nl_ops.h)
  int lnc = 1, lnc_core = 0;  // --lnc: nl.num_programs() / nl.program_id(0) without a launch grid
  // The HBM the kernel's tensors may take (the target's hbm_capacity_bytes, or CompileOptions' override) and
  // what its HBM tensors take so far: an nl.ndarray past it is a located error (nki_lang.cpp).
  std::string target_name = "trn2";
  double hbm_capacity = 0, hbm_capacity_override = 0;
  uint64_t hbm_used = 0;
  // Tensors made by comparisons (`a > b`, nl.greater(...)): run-time data that cannot be a condition. Any other
  // tensor handle is truthy, as a Python object (docs/compatibility.md).
  std::unordered_set<int> compare_results;
  // Functions that also name an operator where an op code is expected: numpy's scalar helpers (np.maximum,
  // np.exp, ...) and nl reductions (nl.max -> maximum); the value is an index into nki_ops().
  std::unordered_map<const Object*, int> op_aliases;
  Value alloc_directive_class;  // neuronxcc.nki.compiler allocation directives (nki_compiler.cpp)
};

// v itself, or the op code (a VK::NkiOp value) a function in NkiState::op_aliases stands for.
Value as_op_code(Interp& in, const Value& v);
// Registers the function `fn` (a built-in) as standing for the nki op named `op` (an nki_ops() name).
void add_op_alias(Interp& in, const Value& fn, const char* op);

// The value of neuronxcc.nki.compiler.no_reorder() (nki_compiler.cpp), which the ranges' directives= recognise.
inline constexpr const char* kNoReorderDirective = "<neuronxcc.nki.compiler.no_reorder>";

inline bool buffer_on_chip(ir::Buffer b) { return b == ir::Buffer::sbuf || b == ir::Buffer::psum; }

// nl.tile_size constants and nki.isa.get_nc_version() for the target (called before the kernel runs).
void set_target_constants(Interp& in, const isa::TargetDesc& t);

// np.float32(x), ...: a number converted to the dtype (numpy_lite.cpp).
Value convert_to_dtype(Interp& in, isa::DType t, CallArgs& a);

// Creates a kernel tensor and returns a full view of it.
Value new_tensor(Interp& in, ir::Tensor t);
// Dtype names are isa::dtype_name; this alias remains for binding files that use it.
inline std::string_view dtype_str(isa::DType t) { return isa::dtype_name(t); }
// "(128, 512)" and "sbuf": the IR's spellings (ir::shape_string, ir::buffer_name).
std::string shape_str(const std::vector<int64_t>& shape);
inline std::string buffer_str(ir::Buffer b) { return std::string(ir::buffer_name(b)); }

}  // namespace nkisim::frontend
