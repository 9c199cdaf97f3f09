// nki_isa.cpp - nki.isa instructions: bind arguments (exact NKI 0.6 signatures), check operands and
// shapes at the call, and append an ir::Op located at the call (with the enclosing call chain).
#include "frontend/isa_builder.h"

namespace nkisim::frontend {
namespace {
using namespace isa_binding;

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

Value isa_tensor_copy(Interp& in, const BuiltinObj&, CallArgs& a) {
  // dtype= (the tutorials' spelling, not in the API reference): the copy converts to dst's dtype whatever it says.
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}, {"engine"}, {"name"}, {"dtype"}};
  Value v[5];
  bind("tensor_copy", ps, a, v);
  OpBuilder b(in, "tensor_copy", isa::Opcode::tensor_copy);
  auto* dst = b.operand(0, v[0], "dst");
  auto* src = b.operand(1, v[1], "src");
  b.same_shape(dst, "dst", src, "src", true);
  if (isa_binding::present(v[4]) && !v[4].is_none() && !v[4].is(VK::DType))
    raise("TypeError", "tensor_copy: dtype must be an NKI dtype such as nl.bfloat16, got " + in.repr(v[4]));
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
  if (isa::dtype_kind(dt) == isa::DTypeKind::Packed && value != 0.0f)  // nki-language.md §3: x4 types need 0
    raise("ValueError", "memset: dst has the packed MX dtype " + std::string(isa::dtype_name(dt)) +
                            "; only value 0 is allowed");
  bool int_dst = !isa::is_float(dt);
  if (int_dst && v[1].is(VK::Float) && v[1].f() != double(int64_t(v[1].f())))
    raise("ValueError",
          "memset: value " + in.repr(v[1]) + " is not an integer but dst has dtype " + std::string(isa::dtype_name(dt)));
  b.params().imm0 = value;
  b.engine(v[2]);
  b.name(v[3]);
  return b.emit();
}

}  // namespace

void install_nki_isa(Interp& in, ModuleObj* isa) {
  auto def = [&](const char* name, BuiltinFn fn) { isa->globals[intern(name)] = in.builtin(name, fn); };
  def("tensor_tensor", isa_tensor_tensor);
  def("tensor_scalar", isa_tensor_scalar);
  def("tensor_copy", isa_tensor_copy);
  def("memset", isa_memset);
  install_nki_isa_dma(in, isa);
  install_nki_isa_tensor(in, isa);
  install_nki_isa_vector(in, isa);
  install_nki_isa_mx(in, isa);
}

}  // namespace nkisim::frontend
