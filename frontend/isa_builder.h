// isa_builder.h - shared machinery for nki.isa bindings: argument binding and OpBuilder, which checks
// operands against the instruction table and appends a located ir::Op. Each instruction family has its
// own binding file (nki_isa_<family>.cpp, named like isa/verify_<family>.cpp) with an install function.
#pragma once
#include "frontend/nki.h"

namespace nkisim::frontend {
namespace isa_binding {


inline isa::Memory memory_of(ir::Buffer b) {
  switch (b) {
    case ir::Buffer::sbuf:
      return isa::Memory::SBUF;
    case ir::Buffer::psum:
      return isa::Memory::PSUM;
    default:
      return isa::Memory::HBM;
  }
}

// isa::verify of `op` on the kernel's target at the call (frontend/isa_builder.cpp): a broken hardware rule raises
// ValueError "<fname>: <rule>" naming the operands by their NKI arguments (`args`, per slot; empty = the table's).
void verify_at_call(Interp& in, const ir::Op& op, const char* fname, const std::array<std::string, isa::kMaxOperands>& args);

class OpBuilder {
 public:
  OpBuilder(Interp& in, const char* fname, isa::Opcode opc) : in_(in), fname_(fname) { op_.opcode = opc; }

  const TensorObj* tensor(const Value& v, const char* arg) {
    if (!v.is(VK::Tensor))
      raise("TypeError", std::string(fname_) + ": " + arg + " must be a tensor, got '" + type_name(v) + "'");
    return v.as<TensorObj>();
  }

  // Puts a tensor view in operand `slot` (an .ap() form only where the instruction takes it).
  const TensorObj* operand(int slot, const Value& v, const char* arg) {
    const TensorObj* t = tensor(v, arg);
    t->check_usable();
    const bool dyn_on_chip = t->indirect && buffer_on_chip(t->base().buffer);  // docs/dynamic-offsets.md
    if (t->indirect && !allow_indirect_ && !dyn_on_chip)
      raise("ValueError", std::string(fname_) + ": " + arg +
                              " is an indirect access pattern (.ap() with scalar_offset or vector_offset); only "
                              "dma_copy and dma_compute accept one");
    if (dyn_on_chip && allow_indirect_)
      raise("ValueError", std::string(fname_) + ": " + arg + " has a dynamic offset on the on-chip tensor '" +
                              t->base().name + "'; DMA instructions take dynamic offsets on HBM tensors only");
    if (dyn_on_chip) {  // a run-time offset the executing engine applies (ir::DynOperand)
      ir::DynOperand d;
      d.slot = slot;
      d.row_stride = t->indirect->row_stride;
      if (t->indirect->kind == 3) d.reg = t->indirect->reg;
      else d.offsets = t->indirect->offsets.as<TensorObj>()->view;
      op_.dynamic.push_back(std::move(d));
    }
    if (t->lead)
      raise("NotImplementedError", std::string(fname_) + ": " + arg + " '" + t->base().name +
                                       "' has block dimensions before nl.par_dim; index the blocks first (e.g. t[i])");
    op_.operands[slot] = t->view;  // its memory and partitions: verify_at_call
    args_[size_t(slot)] = arg;
    return t;
  }

  // reduce_res of activation / activate2: a [P, 1] tile with data's P partitions. It is the operand of a second
  // instruction (act_read_accumulator, whose verify sees one column but not data): the pairing is the API's.
  void column(const TensorObj* t, const char* arg, const TensorObj* data) {
    int64_t p = data->view.partitions();
    if (t->view.dims.empty() || t->view.dims[0].count != p || t->view.num_elements() != p)
      raise("ValueError", std::string(fname_) + ": " + arg + " must have shape (" + std::to_string(p) + ", 1), got " +
                              shape_str(t->view.shape()));
  }

  isa::AluOp alu(const Value& given, const char* arg) {
    return nl_op(given, arg, &NkiOpInfo::alu, "an ALU operator such as nl.add");
  }
  isa::ActFunc act(const Value& given, const char* arg) {
    return nl_op(given, arg, &NkiOpInfo::act, "an activation function such as nl.exp");
  }

  float number(const Value& v, const char* arg) {
    if (v.is_number()) return float(v.num());
    raise("TypeError", std::string(fname_) + ": " + arg + " must be a number, got '" + type_name(v) + "'");
  }

  void engine(const Value& v) {
    if (v.is_unbound() || v.is_none()) return;
    if (!v.is(VK::Enum) || v.enum_type() != EnumEngine)
      raise("TypeError", std::string(fname_) + ": engine must be a nki.isa.engine value, got '" + type_name(v) + "'");
    // The members of nki.isa.engine are named as the ISA's engines; unknown and dma: the back end chooses.
    const std::optional<isa::Engine> e = isa::parse_engine(enum_member_name(EnumEngine, v.enum_value()));
    if (!e) return;
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

  // Checks an enum argument and returns it as the enum value. The member's integer value is accepted too
  // (kernels spell `dge_mode=3`; NKI passes enums to the compiler by value): docs/compatibility.md.
  Value enum_arg(const Value& v, int type, const char* arg) {
    if (v.is_unbound() || v.is_none()) return v;
    if (v.is(VK::Int)) {
      for (auto& [n, m] : enum_type(type).members)
        if (m == v.i()) return Value::enum_val(type, m);
      raise("ValueError", std::string(fname_) + ": " + arg + "=" + std::to_string(v.i()) + " is not a nki.isa." +
                              enum_type(type).name + " value");
    }
    if (!v.is(VK::Enum) || v.enum_type() != type)
      raise("TypeError", std::string(fname_) + ": " + arg + " must be a nki.isa." + enum_type(type).name +
                             " value, got '" + type_name(v) + "'");
    return v;
  }

  isa::InstrParams& params() { return op_.params; }
  ir::Op& op() { return op_; }
  const char* fname() const { return fname_; }
  void allow_indirect() { allow_indirect_ = true; }  // DMA bindings (frontend/nki_isa_dma.cpp)

  // Checks the instruction's hardware rules (verify_at_call) now, e.g. before a binding's launch checks.
  void verify() {
    verify_at_call(in_, op_, fname_, args_);
    verified_ = true;
  }

  // Checks the instruction's hardware rules (unless verify() did) and appends the op, located at the call.
  Value emit() {
    if (!verified_) verify_at_call(in_, op_, fname_, args_);
    op_.loc = in_.loc_of(in_.current_site());
    op_.call_chain = in_.call_chain();
    in_.kernel.add_op(std::move(op_));
    return Value();
  }

 private:
  // An nki op (or a function standing for one: as_op_code) that has the `field` form; `what` names it in errors.
  template <class T>
  T nl_op(const Value& given, const char* arg, std::optional<T> NkiOpInfo::*field, const char* what) {
    const Value v = as_op_code(in_, given);
    if (v.is(VK::NkiOp)) {
      const NkiOpInfo& o = nki_ops()[v.nki_op_index()];
      if (o.*field) return *(o.*field);
      raise("ValueError", std::string(fname_) + ": " + arg + " must be " + what + ", got nl." + o.name);
    }
    raise("TypeError", std::string(fname_) + ": " + arg + " must be " + what + ", got '" + type_name(v) + "'");
  }

  Interp& in_;
  const char* fname_;
  ir::Op op_;
  std::array<std::string, isa::kMaxOperands> args_;  // the NKI argument bound to each operand slot
  bool allow_indirect_ = false;
  bool verified_ = false;
};

template <size_t N>
void bind(const char* fname, const ParamSpec (&ps)[N], CallArgs& a, Value* out) {
  bind_args(fname, ps, N, a, out);
}

inline bool present(const Value& v) { return !v.is_unbound() && !v.is_none(); }

}  // namespace isa_binding

// Install functions, one per binding file: frontend/nki_isa_<family>.cpp holds the bindings of the instructions whose
// verifiers are in isa/verify_<family>.cpp and executors in sim/exec_<family>.cpp.
void install_nki_isa_elementwise(Interp& in, ModuleObj* isa);  // tensor_tensor, tensor_scalar, activation, memset
void install_nki_isa_copy(Interp& in, ModuleObj* isa);         // tensor_copy
void install_nki_isa_dma(Interp& in, ModuleObj* isa);          // dma_copy, dma_transpose, dma_compute
void install_nki_isa_tensor(Interp& in, ModuleObj* isa);       // nc_matmul, nc_transpose
void install_nki_isa_tensor_mx(Interp& in, ModuleObj* isa);    // quantize_mx, nc_matmul_mx
void install_nki_isa_stt(Interp& in, ModuleObj* isa);          // scalar_tensor_tensor, activate2, nc_n_gather
void install_nki_isa_vector_reduce(Interp& in, ModuleObj* isa);
void install_nki_isa_vector_accum(Interp& in, ModuleObj* isa);
void install_nki_isa_vector_select(Interp& in, ModuleObj* isa);
void install_nki_isa_vector_gpsimd(Interp& in, ModuleObj* isa);
void install_nki_isa_vector_random(Interp& in, ModuleObj* isa);
inline void install_nki_isa(Interp& in, ModuleObj* isa) {
  for (auto* f : {install_nki_isa_elementwise, install_nki_isa_copy, install_nki_isa_dma, install_nki_isa_tensor,
                  install_nki_isa_tensor_mx, install_nki_isa_stt, install_nki_isa_vector_reduce,
                  install_nki_isa_vector_accum, install_nki_isa_vector_select, install_nki_isa_vector_gpsimd,
                  install_nki_isa_vector_random})
    f(in, isa);
}
// accumulate=None for a matmul writing dst (nki_isa_tensor.cpp; nc_matmul and nc_matmul_mx): a tracker from
// make_psum_tracker() bound to the builtin follows which PSUM elements hold a matmul result; `fn` (the NKI
// function) names the call in the error for a mix.
Value make_psum_tracker();
bool infer_matmul_accumulate(Interp& in, const Value& tracker, const TensorObj* dst, const char* fn);

}  // namespace nkisim::frontend
