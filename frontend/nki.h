// nki.h - NKI values for the evaluator: tensors (an IR tensor + a view), op codes, enums, kernel state.
#pragma once
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/interp.h"
#include "isa/instruction.h"

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

struct TensorObj : Object {
  int id;  // index into Interp::kernel.tensors
  ir::View view;
  const ir::Kernel* kernel;
  TensorObj(int i, ir::View v, const ir::Kernel* k) : Object(VK::Tensor), id(i), view(std::move(v)), kernel(k) {}
  const ir::Tensor& base() const { return kernel->tensors[id]; }
  std::string repr() const override;
  std::string type_name() const override { return "NkiTensor"; }
};

struct NkiState {
  std::unordered_map<std::string, int> name_uses;  // for unique tensor names
  const Node* hint_call = nullptr;                 // `name = nl.ndarray(...)`: the call and the name
  Sym hint_name = 0;
  int nc_version = 3;
  Value tile_size;  // the nl.tile_size namespace
};

// Dtype names from isa/dtypes.def (kept local so the front end needs nothing else from isa/dtype.cpp).
std::string_view dtype_str(isa::DType t);
std::optional<isa::DType> dtype_from_name(std::string_view name);
inline bool buffer_on_chip(ir::Buffer b) { return b == ir::Buffer::sbuf || b == ir::Buffer::psum; }

// Creates a kernel tensor and returns a full view of it.
Value new_tensor(Interp& in, ir::Tensor t);
std::string shape_str(const std::vector<int64_t>& shape);
std::string buffer_str(ir::Buffer b);

}  // namespace nkisim::frontend
