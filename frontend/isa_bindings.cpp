// isa_bindings.cpp - runs a table-driven nki.isa binding (isa_bindings.h): binds the call's arguments to the row's
// signature and fills each operand or field the way the row says.
#include "frontend/isa_bindings.h"

#include <stdexcept>
#include <type_traits>

namespace nkisim::frontend::isa_binding {
namespace {

constexpr size_t kMaxArgs = 16;

// A given argument converted by the type of the field it fills.
void fill(Interp& in, OpBuilder& b, const Binding& t, const Arg& arg, const Value& v) {
  P& p = b.params();
  std::visit(
      [&](auto f) {
        using F = decltype(f);
        if constexpr (std::is_same_v<F, isa::AluOp P::*>)
          p.*f = b.alu(v, arg.name);
        else if constexpr (std::is_same_v<F, isa::ActFunc P::*>)
          p.*f = b.act(v, arg.name);
        else if constexpr (std::is_same_v<F, float P::*>)
          p.*f = b.number(v, arg.name);
        else if constexpr (std::is_same_v<F, bool P::*>)
          p.*f = in.truthy(v);
        else if constexpr (std::is_same_v<F, int32_t P::*>)
          p.*f = vector_binding::int32_arg(t.fname, v, arg.name);
        else if constexpr (std::is_same_v<F, isa::ReduceCmd P::*>)
          p.*f = isa::ReduceCmd(b.enum_arg(v, EnumReduceCmd, arg.name).enum_value());
      },
      arg.field);
}

// An absent optional argument: its default, when the row gives one.
void fill_default(OpBuilder& b, const Arg& arg) {
  if (arg.dflt < 0) return;
  if (auto* f = std::get_if<isa::AluOp P::*>(&arg.field)) b.params().**f = isa::AluOp(arg.dflt);
  if (auto* f = std::get_if<isa::ReduceCmd P::*>(&arg.field)) b.params().**f = isa::ReduceCmd(arg.dflt);
}

Value run_binding(Interp& in, const BuiltinObj& self, CallArgs& a) {
  const Binding& t = *reinterpret_cast<const Binding*>(self.data);  // install_binding
  Value v[kMaxArgs];
  bind_args(t.fname, t.specs.data(), t.specs.size(), a, v);
  OpBuilder b(in, t.fname, t.opcode);
  if (isa::has_trait(t.opcode, isa::Trait::DMA)) b.allow_indirect();  // an .ap() with offsets: DMA operands only
  for (size_t i = 0; i < t.args.size(); ++i) {
    const Arg& arg = t.args[i];
    if (arg.kind == Arg::Engine) {
      b.engine(v[i]);
    } else if (arg.kind == Arg::Name) {
      b.name(v[i]);
    } else if (arg.kind == Arg::Custom) {
      continue;
    } else if (!arg.required && !present(v[i])) {
      fill_default(b, arg);
    } else if (arg.kind == Arg::Tensor) {
      b.operand(arg.slot, v[i], arg.name);
    } else if (arg.kind == Arg::TensorOrNumber) {
      vector_binding::column_or_number(b, arg.slot, v[i], arg.name, b.params().*std::get<float P::*>(arg.field));
    } else {
      fill(in, b, t, arg, v[i]);
    }
  }
  if (t.hook) t.hook(in, b, v);
  b.emit();
  if (t.after) t.after(in, b, v);
  return Value();
}

}  // namespace

Binding::Binding(const char* f, isa::Opcode op, std::initializer_list<Arg> a, Hook h, Hook after)
    : fname(f), opcode(op), args(a), hook(h), after(after) {
  if (args.size() > kMaxArgs) throw std::logic_error(std::string(f) + ": more arguments than a binding holds");
  for (const Arg& x : args) specs.push_back(ParamSpec{x.name, x.required});
}

void read_accumulator(Interp& in, const char* fname, const Value& reduce_res, const Value& data) {
  if (!present(reduce_res)) return;
  OpBuilder r(in, fname, isa::Opcode::act_read_accumulator);
  r.column(r.operand(0, reduce_res, "reduce_res"), "reduce_res", data.as<TensorObj>());
  r.emit();
}

const Binding* binding_of(const Value& fn) {
  if (!fn.is(VK::Builtin) || fn.as<BuiltinObj>()->fn != run_binding) return nullptr;
  return reinterpret_cast<const Binding*>(fn.as<BuiltinObj>()->data);
}

void install_binding(Interp& in, ModuleObj* isa, const Binding& b) {
  isa->globals[intern(b.fname)] = in.builtin(b.fname, run_binding, Value(), reinterpret_cast<intptr_t>(&b));
}

}  // namespace nkisim::frontend::isa_binding
