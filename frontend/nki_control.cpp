// nki_control.cpp - registers and dynamic loops (nki-language.md §2.5, nki-isa.md §3.6; design in
// docs/dynamic-loops.md): nisa.register_alloc / register_move / register_load / register_store,
// nl.fori_loop, nl.while_loop, nl.dynamic_range and the `while reg:` statement. Registers are virtual
// here (ir::Kernel::num_vregs); a loop body is evaluated once between loop_begin and loop_end ops.
#include "frontend/nki_control.h"

#include "frontend/isa_bindings.h"
#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {
using namespace isa_binding;

constexpr uint16_t kNoReg = 65535;

void push_op(Interp& in, ir::Op op, const Node* site) {
  op.loc = in.loc_of(site);
  op.call_chain = in.call_chain();
  if (op.ctl != ir::Ctl::none) nl_state(in).control_ops++;
  in.kernel.add_op(std::move(op));
}

int new_vreg(Interp& in) { return in.kernel.num_vregs++; }

int32_t int32_value(const Value& v, const std::string& what) {
  const int64_t x = v.i();
  if (x < INT32_MIN || x > int64_t(UINT32_MAX))
    raise("ValueError", what + " " + std::to_string(x) + " does not fit in a 32-bit register");
  return int32_t(uint32_t(x));
}

// r[dst] = src (an int or a register).
void set_reg(Interp& in, int dst, const Value& src, const char* fname, const char* arg, const Node* site) {
  ir::Op op;
  op.params.rd = uint16_t(dst);
  if (const VRegObj* r = as_vreg(src)) {
    op.opcode = isa::Opcode::reg_alu;
    op.params.op0 = isa::AluOp::bypass;
    op.params.rs0 = uint16_t(r->id);
  } else if (src.is_int_like()) {
    op.opcode = isa::Opcode::reg_set;
    op.params.rimm = int32_value(src, std::string(fname) + ": " + arg);
  } else {
    raise("TypeError", std::string(fname) + ": " + arg + " must be an int or a VirtualRegister, got '" +
                           type_name(src) + "'");
  }
  push_op(in, std::move(op), site);
}

const VRegObj& writable_vreg(const Value& v, const char* fname, const char* arg) {
  const VRegObj* r = as_vreg(v);
  if (!r) raise("TypeError", std::string(fname) + ": " + arg + " must be a VirtualRegister, got '" + type_name(v) + "'");
  if (r->frozen)
    raise("AssertionError", std::string(fname) + ": cannot write the induction variable of a dynamic loop");
  return *r;
}

int64_t step_value(const Value& v, const char* fname) {
  if (as_vreg(v)) raise("TypeError", std::string(fname) + ": step must be a positive compile-time int, got a VirtualRegister");
  if (!v.is_int_like()) raise("TypeError", std::string(fname) + ": step must be a positive compile-time int, got '" + type_name(v) + "'");
  if (v.i() <= 0) raise("ValueError", std::string(fname) + ": step must be a positive compile-time int, got " + std::to_string(v.i()));
  if (v.i() > INT32_MAX) raise("ValueError", std::string(fname) + ": step " + std::to_string(v.i()) + " does not fit in a 32-bit register");
  return v.i();
}

// A counted loop: i = lower; while i < upper: body(i); i += step. The bounds are read once, at loop entry.
template <class Body>
void counted_loop(Interp& in, const Value& lower, const Value& upper, int64_t step, const char* fname, const Node* site,
                  Body&& body) {
  const int i = new_vreg(in);
  set_reg(in, i, lower, fname, "lower bound", site);
  ir::Op head;
  head.opcode = isa::Opcode::branch;
  head.ctl = ir::Ctl::loop_begin;
  head.params.op0 = isa::AluOp::less;
  head.params.rs0 = uint16_t(i);
  if (as_vreg(upper)) {
    const int u = new_vreg(in);
    set_reg(in, u, upper, fname, "upper bound", site);
    head.params.rs1 = uint16_t(u);
  } else if (upper.is_int_like()) {
    head.params.rs1 = kNoReg;
    head.params.rimm = int32_value(upper, std::string(fname) + ": upper bound");
  } else {
    raise("TypeError", std::string(fname) + ": upper bound must be an int or a VirtualRegister, got '" +
                           type_name(upper) + "'");
  }
  push_op(in, std::move(head), site);
  body(make<VRegObj>(i, true));
  ir::Op inc;
  inc.opcode = isa::Opcode::reg_alu;
  inc.params.rd = inc.params.rs0 = uint16_t(i);
  inc.params.op0 = isa::AluOp::add;
  inc.params.rs1 = kNoReg;
  inc.params.rimm = int32_t(step);
  push_op(in, std::move(inc), site);
  ir::Op end;
  end.opcode = isa::Opcode::branch;
  end.ctl = ir::Ctl::loop_end;
  push_op(in, std::move(end), site);
}

// while r[c] != 0: body()
template <class Body>
void while_loop(Interp& in, int c, const Node* site, Body&& body) {
  ir::Op head;
  head.opcode = isa::Opcode::branch;
  head.ctl = ir::Ctl::loop_begin;
  head.params.op0 = isa::AluOp::not_equal;
  head.params.rs0 = uint16_t(c);
  head.params.rs1 = kNoReg;
  head.params.rimm = 0;
  push_op(in, std::move(head), site);
  body();
  ir::Op end;
  end.opcode = isa::Opcode::branch;
  end.ctl = ir::Ctl::loop_end;
  push_op(in, std::move(end), site);
}

Value nisa_register_alloc(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"x"}};
  Value v[1];
  bind("register_alloc", ps, a, v);
  const int id = new_vreg(in);
  if (present(v[0])) set_reg(in, id, v[0], "register_alloc", "x", in.current_site());
  return make<VRegObj>(id, false);
}

Value nisa_register_move(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"dst", true}, {"src", true}};
  Value v[2];
  bind("register_move", ps, a, v);
  const VRegObj& dst = writable_vreg(v[0], "register_move", "dst");
  set_reg(in, dst.id, v[1], "register_move", "src", in.current_site());
  return Value();
}

// register_load(dst, src) / register_store(dst, src): the memory operand is one element of at most 32 bits
// (isa::verify).
void load_register(Interp&, OpBuilder& b, const Value* v) {
  b.params().rd = uint16_t(writable_vreg(v[0], "register_load", "dst").id);
}
void store_register(Interp&, OpBuilder& b, const Value* v) {
  const VRegObj* src = as_vreg(v[1]);
  if (!src) raise("TypeError", "register_store: src must be a VirtualRegister, got '" + type_name(v[1]) + "'");
  b.params().rs0 = uint16_t(src->id);
}

Value call_body(Interp& in, const Value& fn, Value arg) {
  CallArgs ca{&arg, 1, nullptr, 0, in.current_site()};
  return in.call(fn, ca);
}

Value nl_fori_loop(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"lower", true}, {"upper", true}, {"body_fun", true}, {"step"}};
  Value v[4];
  bind("fori_loop", ps, a, v);
  const int64_t step = present(v[3]) ? step_value(v[3], "fori_loop") : 1;
  const Node* site = in.current_site();
  counted_loop(in, v[0], v[1], step, "fori_loop", site, [&](Value i) {
    Value r = call_body(in, v[2], std::move(i));
    if (!r.is_none()) raise("TypeError", "fori_loop: body_fun must return None, got '" + type_name(r) + "'");
  });
  return Value();
}

Value nl_while_loop(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"init", true}, {"body_fun", true}};
  Value v[2];
  bind("while_loop", ps, a, v);
  const Node* site = in.current_site();
  int c;
  if (const VRegObj* r = as_vreg(v[0])) {
    c = writable_vreg(v[0], "while_loop", "init").id;
    (void)r;
  } else if (v[0].is_int_like()) {
    c = new_vreg(in);
    set_reg(in, c, v[0], "while_loop", "init", site);
  } else {
    raise("TypeError", "while_loop: init must be an int or a VirtualRegister, got '" + type_name(v[0]) + "'");
  }
  Value reg = make<VRegObj>(c, false);
  while_loop(in, c, site, [&] {
    Value next = call_body(in, v[1], reg);
    if (const VRegObj* n = as_vreg(next)) {
      if (n->id != c) set_reg(in, c, next, "while_loop", "the body's result", site);
    } else if (next.is_int_like()) {
      set_reg(in, c, next, "while_loop", "the body's result", site);
    } else {
      raise("TypeError", "while_loop: body_fun must return the next condition (a VirtualRegister or an int), got '" +
                             type_name(next) + "'");
    }
  });
  return reg;
}

Value nl_dynamic_range(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"start", true}, {"stop"}, {"step"}};
  Value v[3];
  bind("dynamic_range", ps, a, v);
  Value r = make<DynRangeObj>();
  auto* d = static_cast<DynRangeObj*>(r.obj());
  if (present(v[1])) {
    d->start = v[0];
    d->stop = v[1];
  } else {
    d->start = Value::integer(0);
    d->stop = v[0];
  }
  d->step = present(v[2]) ? step_value(v[2], "dynamic_range") : 1;
  for (const Value* b : {&d->start, &d->stop})
    if (!as_vreg(*b) && !b->is_int_like())
      raise("TypeError", "dynamic_range: bounds must be ints or VirtualRegisters, got '" + type_name(*b) + "'");
  return r;
}

// core_barrier(data, cores, engine=engine.gpsimd, name=None): v3+, an LNC=2 launch, cores=(0, 1) only
// (nki-isa.md §3.6). `data` is the tensor whose accesses the barrier orders.
void barrier_launch(Interp& in, OpBuilder& b, const Value* v) {
  bool ok = v[1].is(VK::Tuple) || v[1].is(VK::List);
  if (ok) {
    const auto& c = items_of(v[1]);
    ok = c.size() == 2 && c[0].is_int_like() && c[0].i() == 0 && c[1].is_int_like() && c[1].i() == 1;
  }
  if (!ok) raise("ValueError", "core_barrier: cores must be (0, 1), got " + in.repr(v[1]));
  b.verify();  // the hardware rules (availability: trn2+) before the launch's
  if (in.nki->lnc != 2)
    raise("ValueError", "core_barrier: needs an LNC=2 launch (kernel[2], nki-sim --lnc 2); this launch has " +
                            std::to_string(in.nki->lnc) + " core");
}

// sendrecv(src, dst, send_to_rank, recv_from_rank, pipe_id, dma_engine=dma_engine.dma, name=None): v3+, an
// LNC=2 launch (nki-isa.md §3.6, docs/lnc.md). Both ranks must be the other core; the operands' rules (SBUF, same
// dtype and shape, gpsimd_dma's bytes per partition) are verify_sendrecv's (isa/verify_sendrecv.cpp).
void sendrecv_launch(Interp& in, OpBuilder& b, const Value* v) {
  if (!v[4].is_int_like() || v[4].i() < 0 || v[4].i() > 65535)
    raise("ValueError", "sendrecv: pipe_id must be an int in [0, 65535], got " + in.repr(v[4]));
  const Value engine = b.enum_arg(v[5], EnumDmaEngine, "dma_engine");
  b.params().pipe_id = uint16_t(v[4].i());
  b.params().gpsimd_dma = engine.is(VK::Enum) && engine.enum_value() == 2;
  b.verify();  // the hardware rules (availability, dtypes, shapes, gpsimd_dma's size) before the launch's
  if (in.nki->lnc != 2)
    raise("ValueError", "sendrecv: needs an LNC=2 launch (kernel[2], nki-sim --lnc 2); this launch has " +
                            std::to_string(in.nki->lnc) + " core");
  const int peer = 1 - in.nki->lnc_core;
  for (int k : {2, 3}) {
    const char* arg = k == 2 ? "send_to_rank" : "recv_from_rank";
    if (!v[k].is_int_like() || v[k].i() < 0 || v[k].i() > 1)
      raise("ValueError", std::string("sendrecv: ") + arg + " must be a rank 0 or 1, got " + in.repr(v[k]));
    if (v[k].i() != peer)
      raise("ValueError", std::string("sendrecv: ") + arg + " must be the other core's rank " + std::to_string(peer) +
                              " (this is core " + std::to_string(in.nki->lnc_core) + "), got " + in.repr(v[k]));
  }
}

const Binding kBindings[] = {
    {"register_load", isa::Opcode::reg_load, {custom("dst", true), tensor("src", 0)}, load_register},
    {"register_store", isa::Opcode::reg_store, {tensor("dst", 0), custom("src", true)}, store_register},
    {"core_barrier", isa::Opcode::core_barrier, {tensor("data", 0), custom("cores", true), kEngine, kName},
     barrier_launch},
    {"sendrecv", isa::Opcode::sendrecv,
     {tensor("src", 1), tensor("dst", 0), custom("send_to_rank", true), custom("recv_from_rank", true),
      custom("pipe_id", true), custom("dma_engine"), kName},
     sendrecv_launch},
};

void body_flow(Flow fl, const char* what) {
  if (fl == Flow::Break) raise("SyntaxError", std::string("'break' is not supported in ") + what);
  if (fl == Flow::Continue) raise("SyntaxError", std::string("'continue' is not supported in ") + what);
  if (fl == Flow::Return) raise("SyntaxError", std::string("'return' is not supported in ") + what);
}

}  // namespace

const VRegObj* as_vreg(const Value& v) {
  return v.is(VK::Other) ? dynamic_cast<const VRegObj*>(v.obj()) : nullptr;
}
const DynRangeObj* as_dynamic_range(const Value& v) {
  return v.is(VK::Other) ? dynamic_cast<const DynRangeObj*>(v.obj()) : nullptr;
}

Flow exec_dynamic_for(Interp& in, const ForStmt* fs, FrameObj* f, const DynRangeObj& r) {
  counted_loop(in, r.start, r.stop, r.step, "dynamic_range", fs, [&](Value i) {
    in.assign(fs->target, std::move(i), f);
    body_flow(in.exec_body(fs->body, f), "a dynamic loop");
  });
  return in.exec_body(fs->orelse, f);
}

Flow exec_dynamic_while(Interp& in, const WhileStmt* w, FrameObj* f, const VRegObj& cond) {
  while_loop(in, cond.id, w, [&] { body_flow(in.exec_body(w->body, f), "a dynamic while loop"); });
  return in.exec_body(w->orelse, f);
}

void install_nki_control(Interp& in, ModuleObj* nl, ModuleObj* isa) {
  auto def = [&](ModuleObj* m, const char* name, BuiltinFn fn) { m->globals[intern(name)] = in.builtin(name, fn); };
  def(isa, "register_alloc", nisa_register_alloc);
  def(isa, "register_move", nisa_register_move);
  install_bindings(in, isa, kBindings);
  def(nl, "fori_loop", nl_fori_loop);
  def(nl, "while_loop", nl_while_loop);
  def(nl, "dynamic_range", nl_dynamic_range);
}

}  // namespace nkisim::frontend
