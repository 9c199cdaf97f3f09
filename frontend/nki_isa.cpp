// nki_isa.cpp - nki.isa instructions: bind arguments (exact NKI 0.6 signatures), check operands and
// shapes at the call, and append an ir::Op located at the call (with the enclosing call chain).
#include "frontend/nki.h"

namespace nkisim::frontend {
namespace {

isa::Memory memory_of(ir::Buffer b) {
  switch (b) {
    case ir::Buffer::sbuf:
      return isa::Memory::SBUF;
    case ir::Buffer::psum:
      return isa::Memory::PSUM;
    default:
      return isa::Memory::HBM;
  }
}

std::string memories_str(uint8_t mask) {
  std::vector<std::string> names;
  if (mask & isa::M_HBM) names.push_back("HBM");
  if (mask & isa::M_SB) names.push_back("SBUF");
  if (mask & isa::M_PS) names.push_back("PSUM");
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  return s;
}

class OpBuilder {
 public:
  OpBuilder(Interp& in, const char* fname, isa::Opcode opc) : in_(in), fname_(fname) { op_.opcode = opc; }

  const TensorObj* tensor(const Value& v, const char* arg) {
    if (!v.is(VK::Tensor))
      raise("TypeError", std::string(fname_) + ": " + arg + " must be a tensor, got '" + type_name(v) + "'");
    return v.as<TensorObj>();
  }

  // Puts a tensor view in operand `slot` after checking its memory against the instruction table.
  const TensorObj* operand(int slot, const Value& v, const char* arg) {
    const TensorObj* t = tensor(v, arg);
    const isa::OperandSpec& spec = isa::info(op_.opcode).operands[slot];
    ir::Buffer buf = t->base().buffer;
    if (!(spec.memories & isa::memory_bit(memory_of(buf))))
      raise("ValueError", std::string(fname_) + ": " + arg + " must be in " + memories_str(spec.memories) + ", but '" +
                              t->base().name + "' is in " + buffer_str(buf));
    if (buffer_on_chip(buf) && !t->view.dims.empty() && t->view.dims[0].count > 128)
      raise("ValueError", "Size of partition dimension " + std::to_string(t->view.dims[0].count) +
                              " exceeds architecture limitation of 128");
    op_.operands[slot] = t->view;
    return t;
  }

  // Element counts must match; for on-chip compute operands the partition counts too.
  void same_shape(const TensorObj* a, const char* an, const TensorObj* b, const char* bn, bool partitions) {
    bool ok = a->view.num_elements() == b->view.num_elements();
    if (ok && partitions && buffer_on_chip(a->base().buffer) && buffer_on_chip(b->base().buffer))
      ok = a->view.dims[0].count == b->view.dims[0].count;
    if (!ok)
      raise("ValueError", std::string(fname_) + ": " + an + " has shape " + shape_str(a->view.shape()) + " but " + bn +
                              " has shape " + shape_str(b->view.shape()));
  }

  // A per-partition [P, 1] operand (bias, scale, tensor_scalar operands).
  void column(const TensorObj* t, const char* arg, const TensorObj* data) {
    int64_t p = data->view.dims.empty() ? 1 : data->view.dims[0].count;
    if (t->view.dims.empty() || t->view.dims[0].count != p || t->view.num_elements() != p)
      raise("ValueError", std::string(fname_) + ": " + arg + " must have shape (" + std::to_string(p) + ", 1), got " +
                              shape_str(t->view.shape()));
  }

  isa::AluOp alu(const Value& v, const char* arg) {
    if (v.is(VK::NkiOp)) {
      const NkiOpInfo& o = nki_ops()[v.nki_op_index()];
      if (o.alu) return *o.alu;
      raise("ValueError",
            std::string(fname_) + ": " + arg + " must be an ALU operator such as nl.add, got nl." + o.name);
    }
    raise("TypeError",
          std::string(fname_) + ": " + arg + " must be an ALU operator such as nl.add, got '" + type_name(v) + "'");
  }

  isa::ActFunc act(const Value& v, const char* arg) {
    if (v.is(VK::NkiOp)) {
      const NkiOpInfo& o = nki_ops()[v.nki_op_index()];
      if (o.act) return *o.act;
      raise("ValueError",
            std::string(fname_) + ": " + arg + " must be an activation function such as nl.exp, got nl." + o.name);
    }
    raise("TypeError", std::string(fname_) + ": " + arg + " must be an activation function such as nl.exp, got '" +
                           type_name(v) + "'");
  }

  float number(const Value& v, const char* arg) {
    if (v.is_number()) return float(v.num());
    raise("TypeError", std::string(fname_) + ": " + arg + " must be a number, got '" + type_name(v) + "'");
  }

  void engine(const Value& v) {
    if (v.is_unbound() || v.is_none()) return;
    if (!v.is(VK::Enum) || v.enum_type() != EnumEngine)
      raise("TypeError", std::string(fname_) + ": engine must be a nki.isa.engine value, got '" + type_name(v) + "'");
    std::optional<isa::Engine> e;
    switch (v.enum_value()) {
      case kEngineTensor:
        e = isa::Engine::Tensor;
        break;
      case kEngineVector:
        e = isa::Engine::Vector;
        break;
      case kEngineScalar:
        e = isa::Engine::Scalar;
        break;
      case kEngineGpSimd:
        e = isa::Engine::GpSimd;
        break;
      case kEngineSync:
        e = isa::Engine::Sync;
        break;
      default:
        return;  // unknown / dma: the back end chooses
    }
    uint8_t allowed = isa::info(op_.opcode).engines;
    if (!(allowed & isa::engine_bit(*e))) {
      std::string names;
      for (int k = 0; k < isa::kNumEngines; ++k)
        if (allowed & (1u << k)) names += (names.empty() ? "" : ", ") + std::string(isa::engine_name(isa::Engine(k)));
      raise("ValueError", std::string(fname_) + ": engine=" + enum_member_name(EnumEngine, v.enum_value()) +
                              " cannot execute this instruction (allowed: " + names + ")");
    }
    op_.engine = e;
  }

  void name(const Value& v) {
    if (!v.is_unbound() && !v.is_none() && !v.is(VK::Str))
      raise("TypeError", std::string(fname_) + ": name must be a string");
  }

  void enum_arg(const Value& v, int type, const char* arg) {
    if (v.is_unbound() || v.is_none()) return;
    if (!v.is(VK::Enum) || v.enum_type() != type)
      raise("TypeError", std::string(fname_) + ": " + arg + " must be a nki.isa." + enum_type(type).name +
                             " value, got '" + type_name(v) + "'");
  }

  isa::InstrParams& params() { return op_.params; }

  Value emit() {
    op_.loc = in_.loc_of(in_.current_site());
    op_.call_chain = in_.call_chain();
    in_.kernel.ops.push_back(std::move(op_));
    return Value();
  }

 private:
  Interp& in_;
  const char* fname_;
  ir::Op op_;
};

template <size_t N>
void bind(const char* fname, const ParamSpec (&ps)[N], CallArgs& a, Value* out) {
  bind_args(fname, ps, N, a, out);
}

bool present(const Value& v) { return !v.is_unbound() && !v.is_none(); }

Value isa_dma_copy(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"priority"}, {"oob_mode"},
                                 {"dge_mode"},  {"engine"},    {"name"}};
  Value v[7];
  bind("dma_copy", ps, a, v);
  OpBuilder b(in, "dma_copy", isa::Opcode::dma_copy);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  b.same_shape(dst, "dst", src, "src", false);
  if (present(v[2])) {
    if (!v[2].is_int_like() || v[2].i() < 0 || v[2].i() > 3)
      raise("ValueError", "dma_copy: priority must be 0, 1, 2 or 3");
  }
  b.enum_arg(v[3], EnumOobMode, "oob_mode");
  b.enum_arg(v[4], EnumDgeMode, "dge_mode");
  b.engine(v[5]);
  b.name(v[6]);
  return b.emit();
}

Value isa_tensor_tensor(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data1", true}, {"data2", true}, {"op", true}, {"engine"}, {"name"}};
  Value v[6];
  bind("tensor_tensor", ps, a, v);
  OpBuilder b(in, "tensor_tensor", isa::Opcode::tensor_tensor);
  auto* dst = b.operand(0, v[0], "dst");
  auto* d1 = b.operand(1, v[1], "data1");
  auto* d2 = b.operand(2, v[2], "data2");
  b.same_shape(dst, "dst", d1, "data1", true);
  b.same_shape(dst, "dst", d2, "data2", true);
  if (d1->base().buffer == ir::Buffer::psum && d2->base().buffer == ir::Buffer::psum)
    raise("ValueError", "tensor_tensor: data1 and data2 cannot both be in PSUM");
  b.params().op0 = b.alu(v[3], "op");
  b.engine(v[4]);
  b.name(v[5]);
  return b.emit();
}

Value isa_tensor_scalar(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"data", true}, {"op0", true}, {"operand0", true}, {"reverse0"},
                                 {"op1"},       {"operand1"},   {"reverse1"},  {"engine"},         {"name"}};
  Value v[10];
  bind("tensor_scalar", ps, a, v);
  OpBuilder b(in, "tensor_scalar", isa::Opcode::tensor_scalar);
  auto* dst = b.operand(0, v[0], "dst");
  auto* data = b.operand(1, v[1], "data");
  b.same_shape(dst, "dst", data, "data", true);
  b.params().op0 = b.alu(v[2], "op0");
  if (v[3].is(VK::Tensor))
    b.column(b.operand(2, v[3], "operand0"), "operand0", data);
  else
    b.params().imm0 = b.number(v[3], "operand0");
  if (present(v[4])) b.params().reverse0 = in.truthy(v[4]);
  if (present(v[5])) {
    b.params().op1 = b.alu(v[5], "op1");
    if (!present(v[6])) raise("TypeError", "tensor_scalar: operand1 is required when op1 is given");
    if (v[6].is(VK::Tensor))
      b.column(b.operand(3, v[6], "operand1"), "operand1", data);
    else
      b.params().imm1 = b.number(v[6], "operand1");
    if (present(v[7])) b.params().reverse1 = in.truthy(v[7]);
  } else if (present(v[6])) {
    raise("TypeError", "tensor_scalar: operand1 is given but op1 is not");
  }
  b.engine(v[8]);
  b.name(v[9]);
  return b.emit();
}

Value isa_activation(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"op", true},   {"data", true}, {"bias"}, {"scale"},
                                 {"reduce_op"}, {"reduce_res"}, {"reduce_cmd"}, {"name"}};
  Value v[9];
  bind("activation", ps, a, v);
  OpBuilder b(in, "activation", isa::Opcode::activation);
  auto* dst = b.operand(0, v[0], "dst");
  b.params().func = b.act(v[1], "op");
  auto* data = b.operand(1, v[2], "data");
  b.same_shape(dst, "dst", data, "data", true);
  if (present(v[3])) {
    if (!v[3].is(VK::Tensor))
      raise("TypeError", "activation: a scalar bias is not supported yet; pass a (P, 1) tensor");
    b.column(b.operand(2, v[3], "bias"), "bias", data);
  }
  if (present(v[4])) {
    if (v[4].is(VK::Tensor))
      b.column(b.operand(3, v[4], "scale"), "scale", data);
    else
      b.params().scale = b.number(v[4], "scale");
  }
  if (present(v[6])) raise("ValueError", "activation: reduce_res= is not supported yet");
  if (present(v[5])) b.alu(v[5], "reduce_op");
  b.enum_arg(v[7], EnumReduceCmd, "reduce_cmd");
  b.name(v[8]);
  return b.emit();
}

Value isa_tensor_copy(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"engine"}, {"name"}};
  Value v[4];
  bind("tensor_copy", ps, a, v);
  OpBuilder b(in, "tensor_copy", isa::Opcode::tensor_copy);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  b.same_shape(dst, "dst", src, "src", true);
  b.engine(v[2]);
  b.name(v[3]);
  return b.emit();
}

Value isa_memset(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"value", true}, {"engine"}, {"name"}};
  Value v[4];
  bind("memset", ps, a, v);
  OpBuilder b(in, "memset", isa::Opcode::memset);
  auto* dst = b.operand(0, v[0], "dst");
  float value = b.number(v[1], "value");
  isa::DType dt = dst->view.dtype;
  bool int_dst = !(dt == isa::DType::float16 || dt == isa::DType::bfloat16 || dt == isa::DType::tfloat32 ||
                   dt == isa::DType::float32 || dt == isa::DType::float8_e4m3 || dt == isa::DType::float8_e5m2 ||
                   dt == isa::DType::float8_e4m3fn || dt == isa::DType::float8_e8m0fnu);
  if (int_dst && v[1].is(VK::Float) && v[1].f() != double(int64_t(v[1].f())))
    raise("ValueError",
          "memset: value " + in.repr(v[1]) + " is not an integer but dst has dtype " + std::string(dtype_str(dt)));
  b.params().imm0 = value;
  b.engine(v[2]);
  b.name(v[3]);
  return b.emit();
}

}  // namespace

void install_nki_isa(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("dma_copy", isa_dma_copy);
  def("tensor_tensor", isa_tensor_tensor);
  def("tensor_scalar", isa_tensor_scalar);
  def("activation", isa_activation);
  def("tensor_copy", isa_tensor_copy);
  def("memset", isa_memset);
}

}  // namespace nkisim::frontend
