// nki_control.h - dynamic control flow in the front end (frontend/nki_control.cpp, docs/dynamic-loops.md):
// nki.isa register_alloc/move/load/store, nl.fori_loop / nl.while_loop / nl.dynamic_range, and the
// deprecated `for i in nl.dynamic_range(...)` and `while reg:` statement forms. A loop body is evaluated
// once, between a loop_begin and a loop_end op (ir::Ctl).
#pragma once
#include "frontend/ast.h"
#include "frontend/interp.h"

namespace nkisim::frontend {

// nisa.register_alloc's result: virtual register `id` of the kernel. A loop induction variable is frozen
// (writing it is an error).
struct VRegObj : Object {
  int id;
  bool frozen;
  VRegObj(int i, bool f) : Object(VK::Other), id(i), frozen(f) {}
  std::string type_name() const override { return "VirtualRegister"; }
  std::string repr() const override { return "VirtualRegister(" + std::to_string(id) + ")"; }
};
const VRegObj* as_vreg(const Value& v);  // nullptr unless v is a VirtualRegister

// nl.dynamic_range(start, stop, step): only usable as the iterable of a `for` statement.
struct DynRangeObj : Object {
  Value start, stop;
  int64_t step = 1;
  DynRangeObj() : Object(VK::Other) {}
  std::string type_name() const override { return "dynamic_range"; }
  std::string repr() const override { return "dynamic_range(...)"; }
};
const DynRangeObj* as_dynamic_range(const Value& v);

// Statement forms (called by interp_stmt.cpp).
Flow exec_dynamic_for(Interp& in, const ForStmt* fs, FrameObj* f, const DynRangeObj& r);
Flow exec_dynamic_while(Interp& in, const WhileStmt* w, FrameObj* f, const VRegObj& cond);

void install_nki_control(Interp& in, ModuleObj* nl, ModuleObj* isa);

}  // namespace nkisim::frontend
