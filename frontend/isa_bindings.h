// isa_bindings.h - table-driven nki.isa bindings: a binding is a row (its NKI name, its opcode, its arguments in
// signature order, each saying what it fills, and hooks for the rest), run by one function (isa_bindings.cpp).
#pragma once
#include <variant>
#include <vector>

#include "frontend/nki_isa_vector_util.h"

namespace nkisim::frontend::isa_binding {

using P = isa::InstrParams;
// The field an argument fills; its type says how the argument converts: an ALU operator (nl.add), an activation
// function (nl.exp), a number, a flag (truthiness), an int32, or a nki.isa.reduce_cmd member.
using Field = std::variant<std::monostate, isa::AluOp P::*, isa::ActFunc P::*, float P::*, bool P::*, int32_t P::*,
                           isa::ReduceCmd P::*>;

struct Arg {
  enum Kind : uint8_t { Tensor, TensorOrNumber, Value, Engine, Name, Custom };
  const char* name;
  bool required;
  Kind kind;
  int slot = -1;  // Tensor, TensorOrNumber: the operand slot
  Field field{};  // TensorOrNumber (a float), Value
  int dflt = -1;  // Value: an ALU operator or reduce_cmd member stored when the argument is absent (-1: none)
};

// A tensor in operand `slot`; optional ones are bound only when given.
inline Arg tensor(const char* n, int slot, bool required = true) { return {n, required, Arg::Tensor, slot}; }
// A tensor in `slot` (verify: a [P, 1] column) or a number in the float field `f`.
inline Arg tensor_or_number(const char* n, int slot, float P::*f, bool required = true) {
  return {n, required, Arg::TensorOrNumber, slot, f};
}
// A value converted by the type of `f`; when absent, `dflt` (an AluOp or ReduceCmd) or the field's default.
inline Arg value(const char* n, Field f, bool required = true, int dflt = -1) {
  return {n, required, Arg::Value, -1, f, dflt};
}
inline Arg custom(const char* n, bool required = false) { return {n, required, Arg::Custom}; }  // the hook's
inline const Arg kEngine{"engine", false, Arg::Engine}, kName{"name", false, Arg::Name};

// reduce_res of activation, activation_reduce and activate2 (when given): a second instruction, act_read_accumulator,
// right after the activation, writing a (P, 1) tile with data's partitions (the pairing is the API's: verify sees
// one instruction at a time).
void read_accumulator(Interp& in, const char* fname, const Value& reduce_res, const Value& data);

// One nki.isa function: the table's arguments are bound in order, then `hook` (if any) binds the Custom ones and
// checks what spans several arguments, then the op is emitted (OpBuilder::emit: isa::verify at the call), then
// `after` (if any) emits what follows it in the same call.
struct Binding {
  using Hook = void (*)(Interp& in, OpBuilder& b, const Value* v);
  const char* fname;
  isa::Opcode opcode;
  std::vector<Arg> args;
  Hook hook = nullptr, after = nullptr;
  std::vector<ParamSpec> specs;  // args' names and requiredness, for bind_args

  Binding(const char* f, isa::Opcode op, std::initializer_list<Arg> a, Hook h = nullptr, Hook after = nullptr);
};

// The row behind the nki.isa builtin `fn`, or nullptr (a binding written as a function).
const Binding* binding_of(const Value& fn);

// Registers `b` as the builtin `fname` of module `isa`; `b` must outlive the interpreter (a static table).
void install_binding(Interp& in, ModuleObj* isa, const Binding& b);
template <size_t N>
void install_bindings(Interp& in, ModuleObj* isa, const Binding (&table)[N]) {
  for (const Binding& b : table) install_binding(in, isa, b);
}

}  // namespace nkisim::frontend::isa_binding
