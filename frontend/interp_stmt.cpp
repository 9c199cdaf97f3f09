// interp_stmt.cpp - statement execution: assignment, loops (unrolled), if, def/class, import, try, with.
#include "frontend/interp.h"
#include "frontend/nki.h"
#include "frontend/nki_control.h"

namespace nkisim::frontend {

bool Interp::condition(const Expr* test, FrameObj* f) {
  Value v = eval(test, f);
  try {
    return truthy(v);
  } catch (Error& e) {
    if (!e.loc) e.loc = loc_of(test);
    throw;
  }
}

Flow Interp::exec_body(const Body& body, FrameObj* f) {
  for (const Stmt* s : body) {
    Flow fl = exec(s, f);
    if (fl != Flow::Normal) return fl;
  }
  return Flow::Normal;
}

void Interp::assign(const Expr* t, Value v, FrameObj* f) {
  switch (t->kind) {
    case NK::Name: {
      auto* n = static_cast<const NameExpr*>(t);
      if (v.is(VK::Other)) {  // `b = nl.loop_reduce(a, ...)` reduces into b's tile
        const Value* old = nullptr;
        if (n->where == Where::Local) old = &f->slots[n->slot];
        v = nl_assign_name(*this, old ? *old : Value::unbound(), sym_str(n->id), std::move(v));
      }
      store_name(n, std::move(v), f);
      return;
    }
    case NK::Attribute: {
      auto* a = static_cast<const AttributeExpr*>(t);
      set_attr(eval(a->value, f), a->attr, std::move(v));
      return;
    }
    case NK::Subscript: {
      auto* s = static_cast<const SubscriptExpr*>(t);
      Value obj = eval(s->value, f);
      Value key = eval(s->slice, f);
      SiteScope site(*this, t);
      set_item(obj, key, std::move(v));
      return;
    }
    case NK::Tuple:
    case NK::List: {
      auto& elts = static_cast<const SeqExpr*>(t)->elts;
      std::vector<Value> items;
      if (v.is(VK::Tuple) || v.is(VK::List))
        items = items_of(v);
      else
        items = to_vector(v);
      int star = -1;
      for (size_t i = 0; i < elts.size(); ++i)
        if (elts[i]->kind == NK::Starred) star = int(i);
      if (star < 0) {
        if (items.size() != elts.size()) {
          if (items.size() > elts.size())
            raise("ValueError", "too many values to unpack (expected " + std::to_string(elts.size()) + ")");
          raise("ValueError", "not enough values to unpack (expected " + std::to_string(elts.size()) + ", got " +
                                  std::to_string(items.size()) + ")");
        }
        for (size_t i = 0; i < elts.size(); ++i) assign(elts[i], std::move(items[i]), f);
        return;
      }
      size_t after = elts.size() - star - 1;
      if (items.size() < elts.size() - 1)
        raise("ValueError", "not enough values to unpack (expected at least " + std::to_string(elts.size() - 1) +
                                ", got " + std::to_string(items.size()) + ")");
      for (int i = 0; i < star; ++i) assign(elts[i], items[i], f);
      std::vector<Value> mid(items.begin() + star, items.end() - after);
      assign(static_cast<const StarredExpr*>(elts[star])->value, make_list(std::move(mid)), f);
      for (size_t i = 0; i < after; ++i) assign(elts[star + 1 + i], items[items.size() - after + i], f);
      return;
    }
    case NK::Starred:
      raise("SyntaxError", "starred assignment target must be in a list or tuple");
    default:
      raise("SyntaxError", "cannot assign to expression");
  }
}

static Value apply_augmented(Interp& in, BinKind op, const Value& cur, const Value& rhs) {
  if (op == BinKind::Add && cur.is(VK::List)) {  // list += iterable extends in place
    auto add = in.to_vector(rhs);
    check_heap_budget(add.size() * sizeof(Value));
    auto& items = items_of(cur);
    items.insert(items.end(), add.begin(), add.end());
    cur.as<SeqObj>()->account_items();
    return cur;
  }
  if (cur.is(VK::Tensor)) return nl_augmented(in, op, cur, rhs);  // tiles update in place
  return in.binop(op, cur, rhs);
}

Flow Interp::exec(const Stmt* s, FrameObj* f) {
  step();
  try {
    switch (s->kind) {
      case NK::ExprStmt:
        eval(static_cast<const ExprStmt*>(s)->value, f);
        return Flow::Normal;
      case NK::Assign: {
        auto* a = static_cast<const AssignStmt*>(s);
        // `name = nl.ndarray(...)` names the tensor after the variable (NkiState::hint_call).
        const Node* saved_call = nki->hint_call;
        Sym saved_name = nki->hint_name;
        if (a->targets.size() == 1 && a->targets[0]->kind == NK::Name && a->value->kind == NK::Call) {
          nki->hint_call = a->value;
          nki->hint_name = static_cast<const NameExpr*>(a->targets[0])->id;
        }
        Value v = eval(a->value, f);
        nki->hint_call = saved_call;
        nki->hint_name = saved_name;
        for (size_t i = 0; i + 1 < a->targets.size(); ++i) assign(a->targets[i], v, f);
        assign(a->targets.back(), std::move(v), f);
        return Flow::Normal;
      }
      case NK::AugAssign: {
        auto* a = static_cast<const AugAssignStmt*>(s);
        switch (a->target->kind) {
          case NK::Name: {
            auto* n = static_cast<const NameExpr*>(a->target);
            Value cur = load_name(n, f);
            Value rhs = eval(a->value, f);
            SiteScope site(*this, s);
            store_name(n, apply_augmented(*this, a->op, cur, rhs), f);
            break;
          }
          case NK::Attribute: {
            auto* at = static_cast<const AttributeExpr*>(a->target);
            Value obj = eval(at->value, f);
            Value cur = get_attr(obj, at->attr);
            Value rhs = eval(a->value, f);
            SiteScope site(*this, s);
            set_attr(obj, at->attr, apply_augmented(*this, a->op, cur, rhs));
            break;
          }
          default: {
            auto* sub = static_cast<const SubscriptExpr*>(a->target);
            Value obj = eval(sub->value, f);
            Value key = eval(sub->slice, f);
            Value cur = get_item(obj, key);
            Value rhs = eval(a->value, f);
            SiteScope site(*this, s);
            set_item(obj, key, apply_augmented(*this, a->op, cur, rhs));
          }
        }
        return Flow::Normal;
      }
      case NK::AnnAssign: {
        auto* a = static_cast<const AnnAssignStmt*>(s);
        if (f->cls && a->target->kind == NK::Name) {
          Sym n = static_cast<const NameExpr*>(a->target)->id;
          auto& fields = f->cls->fields;
          if (std::find(fields.begin(), fields.end(), n) == fields.end()) fields.push_back(n);
        }
        if (a->value) assign(a->target, eval(a->value, f), f);
        return Flow::Normal;
      }
      case NK::For: {
        auto* fs = static_cast<const ForStmt*>(s);
        Value it = eval(fs->iter, f);
        if (const DynRangeObj* dr = as_dynamic_range(it)) return exec_dynamic_for(*this, fs, f, *dr);
        bool broke = false;
        auto body = [&](Value item) -> int {  // 0 continue looping, 1 break, 2 return
          step();
          assign(fs->target, std::move(item), f);
          Flow fl = exec_body(fs->body, f);
          if (fl == Flow::Break) {
            broke = true;
            return 1;
          }
          if (fl == Flow::Return) return 2;
          return 0;
        };
        int r = 0;
        if (it.is(VK::Range)) {
          auto* rg = it.as<RangeObj>();
          struct KeepOrder {  // directives=no_reorder(): ops made in the loop keep program order
            ir::Kernel& k;
            bool on;
            KeepOrder(ir::Kernel& kk, bool o) : k(kk), on(o) { k.keep_order_depth += on; }
            ~KeepOrder() { k.keep_order_depth -= on; }
          } keep(kernel, rg->keep_order);
          // A legacy traced loop (RangeObj::traced): the numbers in the frame's locals at loop entry are what
          // every iteration starts from (`addr += size` in the body advances it once, as the tracer does).
          std::vector<std::pair<size_t, Value>> entry;
          if (rg->traced)
            for (size_t i = 0; i < f->slots.size(); ++i)
              if (f->slots[i].is_number()) entry.emplace_back(i, f->slots[i]);
          int64_t n = rg->length(), v = rg->start, st = rg->step;
          for (int64_t k = 0; k < n && r == 0; ++k, v += st) {
            if (k > 0)
              for (const auto& [i, x] : entry) f->slots[i] = x;
            r = body(Value::integer(v));
          }
        } else if (it.is(VK::List) || it.is(VK::Tuple)) {
          auto& items = items_of(it);
          for (size_t k = 0; k < items.size() && r == 0; ++k) r = body(items[k]);
        } else {
          for (auto& item : to_vector(it)) {
            r = body(std::move(item));
            if (r) break;
          }
        }
        if (r == 2) return Flow::Return;
        if (!broke) return exec_body(fs->orelse, f);
        return Flow::Normal;
      }
      case NK::While: {
        auto* w = static_cast<const WhileStmt*>(s);
        if (w->test->kind == NK::Name) {  // `while reg:` is a dynamic loop (nki-language.md §2.5)
          Value c = eval(w->test, f);
          if (const VRegObj* r = as_vreg(c)) return exec_dynamic_while(*this, w, f, *r);
        }
        while (condition(w->test, f)) {
          step();
          Flow fl = exec_body(w->body, f);
          if (fl == Flow::Break) return Flow::Normal;
          if (fl == Flow::Return) return fl;
        }
        return exec_body(w->orelse, f);
      }
      case NK::If: {
        auto* i = static_cast<const IfStmt*>(s);
        return condition(i->test, f) ? exec_body(i->body, f) : exec_body(i->orelse, f);
      }
      case NK::Return: {
        auto* r = static_cast<const ReturnStmt*>(s);
        ret_value = r->value ? eval(r->value, f) : Value();
        return Flow::Return;
      }
      case NK::Pass:
        return Flow::Normal;
      case NK::Break:
        return Flow::Break;
      case NK::Continue:
        return Flow::Continue;
      case NK::FunctionDef: {
        auto* d = static_cast<const FunctionDefStmt*>(s);
        std::vector<Value> decos;
        for (auto* x : d->decorators) decos.push_back(eval(x, f));
        std::vector<Value> defaults(d->code->params.size(), Value::unbound());
        for (size_t i = 0; i < d->code->params.size(); ++i)
          if (d->code->params[i].default_) defaults[i] = eval(d->code->params[i].default_, f);
        Value fn = make_function(d->code, f, defaults);
        for (auto it = decos.rbegin(); it != decos.rend(); ++it) {
          Value arg = fn;
          CallArgs a{&arg, 1, nullptr, 0, d->decorators[decos.rend() - it - 1]};
          fn = call(*it, a);
        }
        store_name(d->target, std::move(fn), f);
        return Flow::Normal;
      }
      case NK::ClassDef:
        exec_class(static_cast<const ClassDefStmt*>(s), f);
        return Flow::Normal;
      case NK::Import:
      case NK::ImportFrom:
        exec_import(s, f);
        return Flow::Normal;
      case NK::Assert: {
        auto* a = static_cast<const AssertStmt*>(s);
        if (truthy(eval(a->test, f))) return Flow::Normal;
        std::string msg = "assertion failed";
        if (a->msg) msg += ": " + str(eval(a->msg, f));
        raise("AssertionError", msg);
      }
      case NK::Raise: {
        auto* r = static_cast<const RaiseStmt*>(s);
        if (!r->exc) {
          if (handling_.empty()) raise("RuntimeError", "No active exception to reraise");
          throw handling_.back();
        }
        Value e = eval(r->exc, f);
        if (e.is(VK::Class)) e = call0(e, r->exc);
        if (!e.is(VK::Instance) || !e.as<InstanceObj>()->cls.as<ClassObj>()->is_exception)
          raise("TypeError", "exceptions must derive from BaseException");
        std::string type = e.as<InstanceObj>()->cls.as<ClassObj>()->name;
        std::string text = str(e);
        PyError err(type, text.empty() ? type : type + ": " + text);
        err.exc = e.obj();
        raised.push_back(e);
        throw err;
      }
      case NK::Try:
        return exec_try(static_cast<const TryStmt*>(s), f);
      case NK::With:
        return exec_with(static_cast<const WithStmt*>(s), f);
      case NK::Global:
      case NK::Nonlocal:
        return Flow::Normal;
      case NK::Match:  // host code at module level is skipped like other host-only statements
        throw PyError("HostValueError", "match statements are not supported by the NKI front end");
      case NK::Delete: {
        for (const Expr* t : static_cast<const DeleteStmt*>(s)->targets) {
          if (t->kind == NK::Name)
            delete_name(static_cast<const NameExpr*>(t), f);
          else if (t->kind == NK::Subscript) {
            auto* sub = static_cast<const SubscriptExpr*>(t);
            Value obj = eval(sub->value, f);
            del_item(obj, eval(sub->slice, f));
          } else if (t->kind == NK::Attribute) {
            auto* at = static_cast<const AttributeExpr*>(t);
            Value obj = eval(at->value, f);
            if (!obj.is(VK::Instance) || !obj.as<InstanceObj>()->attrs.erase(at->attr))
              raise("AttributeError", sym_str(at->attr));
          } else {
            for (const Expr* x : static_cast<const SeqExpr*>(t)->elts)
              if (x->kind == NK::Name) delete_name(static_cast<const NameExpr*>(x), f);
          }
        }
        return Flow::Normal;
      }
      default:
        raise("SyntaxError", "unsupported statement");
    }
  } catch (Error& e) {
    if (!e.loc) e.loc = loc_of(s);
    throw;
  }
}

static bool exception_matches(Interp& in, const PyError& e, const Value& type) {
  if (type.is(VK::Tuple)) {
    for (auto& t : items_of(type))
      if (exception_matches(in, e, t)) return true;
    return false;
  }
  if (!type.is(VK::Class) || !type.as<ClassObj>()->is_exception)
    raise("TypeError", "catching classes that do not inherit from BaseException is not allowed");
  if (e.exc) return static_cast<InstanceObj*>(e.exc)->cls.as<ClassObj>()->is_subclass_of(type.as<ClassObj>());
  return in.exception_class(e.type)->is_subclass_of(type.as<ClassObj>());
}

Flow Interp::exec_try(const TryStmt* t, FrameObj* f) {
  Flow result = Flow::Normal;
  try {
    bool raised = false;
    try {
      result = exec_body(t->body, f);
    } catch (PyError& e) {
      raised = true;
      const ExceptHandler* handler = nullptr;
      for (auto& h : t->handlers) {
        if (!h.type || exception_matches(*this, e, eval(h.type, f))) {
          handler = &h;
          break;
        }
      }
      if (!handler) throw;
      if (handler->name) store_name(handler->name, exception_value(e), f);
      handling_.push_back(e);  // for a bare `raise` in the handler
      struct Pop {
        std::vector<PyError>& v;
        ~Pop() { v.pop_back(); }
      } pop{handling_};
      result = exec_body(handler->body, f);
    }
    if (!raised && result == Flow::Normal) result = exec_body(t->orelse, f);
  } catch (...) {
    if (!t->finalbody.empty()) {
      Flow ff = exec_body(t->finalbody, f);
      if (ff != Flow::Normal) return ff;
    }
    throw;
  }
  if (!t->finalbody.empty()) {
    Value saved = ret_value;
    Flow ff = exec_body(t->finalbody, f);
    if (ff != Flow::Normal) return ff;
    ret_value = std::move(saved);
  }
  return result;
}

Flow Interp::exec_with(const WithStmt* w, FrameObj* f) { return exec_with_items(w, 0, f); }

// Python's with: __enter__, the rest (inner items, then the body), then __exit__(None, None, None); if a
// Python exception escapes, __exit__(type, value, None) runs instead and a true result suppresses it.
// Compile errors that are not Python exceptions (budgets, ...) are not seen by __exit__.
Flow Interp::exec_with_items(const WithStmt* w, size_t i, FrameObj* f) {
  if (i == w->items.size()) return exec_body(w->body, f);
  const WithItem& item = w->items[i];
  Value ctx = eval(item.context, f);
  Value enter, exit_fn;
  if (!try_get_attr(ctx, S::__enter__, &enter) || !try_get_attr(ctx, S::__exit__, &exit_fn))
    raise("TypeError", "'" + type_name(ctx) + "' object does not support the context manager protocol");
  Value entered = call0(enter, item.context);
  auto call_exit = [&](Value type, Value exc) {
    Value saved = ret_value;  // __exit__ must not clobber a `return` value of the body
    Value args[3] = {std::move(type), std::move(exc), Value()};
    CallArgs a{args, 3, nullptr, 0, item.context};
    bool suppress = truthy(call(exit_fn, a));
    ret_value = std::move(saved);
    return suppress;
  };
  Flow fl;
  try {
    if (item.vars) assign(item.vars, entered, f);
    fl = exec_with_items(w, i + 1, f);
  } catch (PyError& e) {
    Value exc = exception_value(e);
    if (call_exit(exc.as<InstanceObj>()->cls, exc)) return Flow::Normal;
    throw;
  }
  call_exit(Value(), Value());
  return fl;
}

Value Interp::exception_value(const PyError& e) {
  if (e.exc) return Value(e.exc);
  Value exc = make<InstanceObj>(Value(exception_class(e.type)));
  exc.as<InstanceObj>()->attrs[S::args] = make_tuple({make_str(e.what())});
  return exc;
}

void Interp::exec_class(const ClassDefStmt* c, FrameObj* f) {
  std::vector<Value> decos;
  for (auto* x : c->decorators) decos.push_back(eval(x, f));
  Value cv = make<ClassObj>(sym_str(c->name));
  auto* cls = cv.as<ClassObj>();
  cls->module = Value(f->module);
  cls->mro.push_back(cls);
  for (auto* b : c->bases) {
    Value bv = eval(b, f);
    if (bv.is(VK::Opaque)) {  // host-side base classes (e.g. torch.nn.Module): ignored
      cls->host_base = true;
      continue;
    }
    if (!bv.is(VK::Class)) raise("TypeError", "class base must be a class, not '" + type_name(bv) + "'");
    auto* base = bv.as<ClassObj>();
    cls->bases.push_back(bv);
    for (ClassObj* m : base->mro)
      if (std::find(cls->mro.begin(), cls->mro.end(), m) == cls->mro.end()) cls->mro.push_back(m);
    cls->is_exception |= base->is_exception;
    cls->is_enum |= base->is_enum;
    cls->is_nkiobject |= base->is_nkiobject;
    cls->frozen |= base->frozen;
    cls->host_base |= base->host_base;
  }
  if (in_kernel && nki->current_api && !cls->kernel_ok()) reject_class(cls, "class");
  bool enum_root = cls->is_enum;
  Value frame = make<FrameObj>();
  auto* cf = frame.as<FrameObj>();
  cf->parent = f->cls ? f->parent : (f->is_module ? Value() : Value(f));
  cf->module = f->module;
  cf->cls = cls;
  {
    Flow fl = exec_body(c->body, cf);
    (void)fl;
  }
  for (auto& [k, v] : cls->attrs) {
    Value* fnv = &v;
    if (v.is(VK::StaticMethod) || v.is(VK::ClassMethod) || v.is(VK::Property)) fnv = &v.as<WrapperObj>()->fn;
    if (fnv->is(VK::Function)) fnv->as<FunctionObj>()->owner_class = cv;
  }
  if (enum_root) {
    // Enum members: every plain class attribute becomes an instance with .name and .value.
    int64_t last = 0;
    for (Sym s : cls->order) {
      std::string_view n = sym_name(s);
      if (n.size() >= 2 && n.substr(0, 2) == "__") continue;
      Value& v = cls->attrs[s];
      if (v.is(VK::Function) || v.is(VK::StaticMethod) || v.is(VK::ClassMethod) || v.is(VK::Property)) continue;
      if (v.is_int_like()) last = v.i();
      if (v.is(VK::Instance) && v.as<InstanceObj>()->cls.as<ClassObj>()->name == "auto") v = Value::integer(++last);
      Value member = make<InstanceObj>(cv);
      member.as<InstanceObj>()->attrs[S::name] = make_str(std::string(n));
      member.as<InstanceObj>()->attrs[S::value] = v;
      v = member;
    }
  }
  Value result = cv;
  for (auto it = decos.rbegin(); it != decos.rend(); ++it) {
    Value arg = result;
    CallArgs a{&arg, 1, nullptr, 0, c};
    result = call(*it, a);
  }
  store_name(c->target, std::move(result), f);
}

void Interp::exec_import(const Stmt* s, FrameObj* f) {
  if (s->kind == NK::Import) {
    for (auto& a : static_cast<const ImportStmt*>(s)->names) {
      Value m = import_module(a.name, s, f->module, 0);
      bool has_as = a.target->id != intern(a.name.substr(0, a.name.find('.')));
      if (a.name.find('.') == std::string::npos || has_as) {
        store_name(a.target, m, f);
      } else {
        store_name(a.target, import_module(a.name.substr(0, a.name.find('.')), s, f->module, 0), f);
      }
    }
    return;
  }
  auto* im = static_cast<const ImportFromStmt*>(s);
  Value m = import_module(im->module, s, f->module, im->level);
  if (im->star) {
    if (m.is(VK::Module))
      for (auto& [k, v] : m.as<ModuleObj>()->globals)
        if (sym_name(k).substr(0, 1) != "_") f->module->globals[k] = v;
    return;
  }
  for (auto& a : im->names) {
    Value v;
    if (m.is(VK::Opaque)) {
      v = make<OpaqueObj>(m.as<OpaqueObj>()->what + "." + a.name);
    } else if (!try_get_attr(m, intern(a.name), &v)) {
      std::string full = (m.is(VK::Module) ? m.as<ModuleObj>()->name : im->module) + "." + a.name;
      try {
        v = import_module(full, s, nullptr, 0);
        if (v.is(VK::Opaque)) throw PyError("ImportError", "");
      } catch (PyError&) {
        raise("ImportError", "cannot import name '" + a.name + "' from '" +
                                 (m.is(VK::Module) ? m.as<ModuleObj>()->name : im->module) + "'");
      }
    }
    store_name(a.target, v, f);
  }
}

}  // namespace nkisim::frontend
