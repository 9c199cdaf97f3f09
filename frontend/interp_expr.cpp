// interp_expr.cpp - expression evaluation: names, constants, displays, operators, calls, comprehensions.
#include "frontend/interp.h"
#include "frontend/nki.h"
#include "frontend/small_vec.h"

namespace nkisim::frontend {

Value Interp::eval(const Expr* e, FrameObj* f) {
  try {
    check_stack();
    return eval_inner(e, f);
  } catch (Error& err) {
    if (!err.loc) err.loc = loc_of(e);
    throw;
  }
}

static FrameObj* walk_up(FrameObj* f, int depth) {
  for (; depth > 0; --depth) f = f->parent.as<FrameObj>();
  return f;
}

Value Interp::load_name(const NameExpr* n, FrameObj* f) {
  switch (n->where) {
    case Where::Local: {
      const Value& v = f->slots[n->slot];
      if (v.is_unbound())
        raise("UnboundLocalError", "local variable '" + sym_str(n->id) + "' referenced before assignment");
      return v;
    }
    case Where::Free: {
      const Value& v = walk_up(f, n->depth)->slots[n->slot];
      if (v.is_unbound())
        raise("NameError", "free variable '" + sym_str(n->id) + "' referenced before assignment in enclosing scope");
      return v;
    }
    case Where::ClassNs: {
      auto it = f->cls->attrs.find(n->id);
      if (it != f->cls->attrs.end()) return it->second;
      if (n->fallback == Where::Free) {
        const Value& v = walk_up(f, n->depth)->slots[n->slot];
        if (!v.is_unbound()) return v;
        raise("NameError", "name '" + sym_str(n->id) + "' is not defined");
      }
      break;
    }
    default:
      break;
  }
  auto& g = f->module->globals;
  auto it = g.find(n->id);
  if (it != g.end()) return it->second;
  auto& b = builtins.as<ModuleObj>()->globals;
  auto bt = b.find(n->id);
  if (bt != b.end()) return bt->second;
  raise("NameError", "name '" + sym_str(n->id) + "' is not defined");
}

void Interp::store_name(const NameExpr* n, Value v, FrameObj* f) {
  switch (n->where) {
    case Where::Local:
      f->slots[n->slot] = std::move(v);
      return;
    case Where::Free:
      walk_up(f, n->depth)->slots[n->slot] = std::move(v);
      return;
    case Where::ClassNs:
      f->cls->set(n->id, std::move(v));
      return;
    default:
      f->module->globals[n->id] = std::move(v);
      return;
  }
}

void Interp::delete_name(const NameExpr* n, FrameObj* f) {
  auto undefined = [&] { raise("NameError", "name '" + sym_str(n->id) + "' is not defined"); };
  switch (n->where) {
    case Where::Local:
    case Where::Free: {
      Value& v = n->where == Where::Local ? f->slots[n->slot] : walk_up(f, n->depth)->slots[n->slot];
      if (v.is_unbound()) undefined();
      v = Value::unbound();
      return;
    }
    case Where::ClassNs:
      if (!f->cls->attrs.erase(n->id)) undefined();
      return;
    default:
      if (!f->module->globals.erase(n->id)) undefined();
  }
}

Value constant_value(const ConstantExpr* c) {
  switch (c->ck) {
    case ConstKind::None:
      return Value();
    case ConstKind::True:
      return Value::boolean(true);
    case ConstKind::False:
      return Value::boolean(false);
    case ConstKind::Ellipsis:
      return Value::ellipsis();
    case ConstKind::Int:
      if (c->overflow)
        raise("OverflowError", "integer literal " + c->sval +
                                   " does not fit in 64 bits (the compile-time evaluator uses "
                                   "64-bit integers)");
      return Value::integer(c->ival);
    case ConstKind::Float:
      return Value::floating(c->fval);
    case ConstKind::Imag:
      raise("TypeError", "complex numbers are not supported at compile time");
    case ConstKind::Str:
      return make_str(c->sval);
    case ConstKind::Bytes:
      return make<StrObj>(c->sval, true);
  }
  return Value();
}

// Evaluates a sequence of element expressions, expanding `*iterable`.
static void eval_elts(Interp& in, const std::vector<Expr*>& elts, FrameObj* f, std::vector<Value>& out) {
  out.reserve(elts.size());
  for (const Expr* x : elts) {
    if (x->kind == NK::Starred) {
      for (auto& v : in.to_vector(in.eval(static_cast<const StarredExpr*>(x)->value, f))) out.push_back(std::move(v));
    } else {
      out.push_back(in.eval(x, f));
    }
  }
}

Value Interp::eval_inner(const Expr* e, FrameObj* f) {
  switch (e->kind) {
    case NK::Name:
      return load_name(static_cast<const NameExpr*>(e), f);
    case NK::Constant: {
      auto* c = static_cast<const ConstantExpr*>(e);
      if (c->cache.is_none() && c->ck != ConstKind::None) c->cache = constant_value(c);
      return c->cache;
    }
    case NK::JoinedStr:
      return eval_fstring(static_cast<const JoinedStrExpr*>(e), f);
    case NK::Tuple:
    case NK::List: {
      std::vector<Value> items;
      eval_elts(*this, static_cast<const SeqExpr*>(e)->elts, f, items);
      return e->kind == NK::Tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
    }
    case NK::Set: {
      std::vector<Value> items;
      eval_elts(*this, static_cast<const SeqExpr*>(e)->elts, f, items);
      Value s = make<DictObj>(VK::Set);
      for (auto& v : items) s.as<DictObj>()->set(v, Value());
      return s;
    }
    case NK::Dict: {
      auto* d = static_cast<const DictExpr*>(e);
      Value dv = make<DictObj>();
      auto* dict = dv.as<DictObj>();
      for (size_t i = 0; i < d->keys.size(); ++i) {
        if (!d->keys[i]) {
          Value other = eval(d->values[i], f);
          if (!other.is(VK::Dict)) raise("TypeError", "'" + type_name(other) + "' object is not a mapping");
          for (auto& en : other.as<DictObj>()->entries)
            if (en.live) dict->set(en.key, en.value);
          continue;
        }
        Value k = eval(d->keys[i], f);
        dict->set(k, eval(d->values[i], f));
      }
      return dv;
    }
    case NK::BinOp: {
      auto* b = static_cast<const BinOpExpr*>(e);
      Value l = eval(b->left, f);
      Value r = eval(b->right, f);
      SiteScope site(*this, e);
      return binop(b->op, l, r);
    }
    case NK::UnaryOp: {
      auto* u = static_cast<const UnaryOpExpr*>(e);
      Value v = eval(u->operand, f);
      if (u->op == UnaryKind::Not) return Value::boolean(!truthy(v));
      SiteScope site(*this, e);
      return unary(u->op, v);
    }
    case NK::BoolOp: {
      auto* b = static_cast<const BoolOpExpr*>(e);
      Value v;
      for (size_t i = 0; i < b->values.size(); ++i) {
        v = eval(b->values[i], f);
        if (i + 1 == b->values.size()) break;
        bool t = truthy(v);
        if (b->is_and ? !t : t) break;
      }
      return v;
    }
    case NK::Compare: {
      auto* c = static_cast<const CompareExpr*>(e);
      Value left = eval(c->left, f);
      for (size_t i = 0; i < c->ops.size(); ++i) {
        Value right = eval(c->comparators[i], f);
        const CmpKind op = c->ops[i];
        if ((nl_operand(left) || nl_operand(right)) && op != CmpKind::Is && op != CmpKind::IsNot &&
            op != CmpKind::In && op != CmpKind::NotIn && !left.is_none() && !right.is_none()) {
          // Tiles and index tiles compare element-wise (a tile / a mask), without chaining.
          if (c->ops.size() != 1)
            raise("TypeError", "chained comparisons of tiles or index tiles are not supported; combine them with '&'");
          SiteScope site(*this, e);
          return nl_compare(*this, op, left, right);
        }
        if (!compare(op, left, right)) return Value::boolean(false);
        left = std::move(right);
      }
      return Value::boolean(true);
    }
    case NK::Call:
      return eval_call(static_cast<const CallExpr*>(e), f);
    case NK::Attribute: {
      auto* a = static_cast<const AttributeExpr*>(e);
      return get_attr(eval(a->value, f), a->attr);
    }
    case NK::Subscript: {
      auto* s = static_cast<const SubscriptExpr*>(e);
      Value obj = eval(s->value, f);
      if (obj.is(VK::Tensor)) return nki_index_literal(*this, obj, s->slice, f);
      return get_item(obj, eval(s->slice, f));
    }
    case NK::Slice: {
      auto* s = static_cast<const SliceExpr*>(e);
      Value a = s->lower ? eval(s->lower, f) : Value();
      Value b = s->upper ? eval(s->upper, f) : Value();
      Value c = s->step ? eval(s->step, f) : Value();
      return make<SliceObj>(std::move(a), std::move(b), std::move(c));
    }
    case NK::IfExp: {
      auto* x = static_cast<const IfExpExpr*>(e);
      return truthy(eval(x->test, f)) ? eval(x->body, f) : eval(x->orelse, f);
    }
    case NK::Lambda: {
      auto* l = static_cast<const LambdaExpr*>(e);
      std::vector<Value> defaults(l->code->params.size(), Value::unbound());
      for (size_t i = 0; i < l->code->params.size(); ++i)
        if (l->code->params[i].default_) defaults[i] = eval(l->code->params[i].default_, f);
      return make_function(l->code, f, defaults);
    }
    case NK::ListComp:
    case NK::SetComp:
    case NK::GeneratorExp:
    case NK::DictComp:
      return eval_comp(static_cast<const CompExpr*>(e), f);
    case NK::Starred:
      raise("SyntaxError", "can't use starred expression here");
    case NK::NamedExpr: {
      auto* n = static_cast<const NamedExprExpr*>(e);
      Value v = eval(n->value, f);
      store_name(n->target, v, f);
      return v;
    }
    case NK::Yield:
      raise("SyntaxError", "generators ('yield') are not supported in NKI kernels");
    default:
      raise("SyntaxError", "unsupported expression");
  }
}

Value Interp::make_function(const FuncCode* code, FrameObj* f, const std::vector<Value>& defaults) {
  Value fv = make<FunctionObj>(code);
  auto* fn = fv.as<FunctionObj>();
  if (f->cls)
    fn->closure = f->parent;
  else if (!f->is_module)
    fn->closure = Value(f);
  fn->defaults = defaults;
  fn->module = Value(f->module);
  return fv;
}

Value Interp::eval_call(const CallExpr* c, FrameObj* f) {
  // `name = nl.ndarray(...)` gives the tensor its variable name (see NkiState::hint_call).
  Value fn = eval(c->func, f);
  SmallVec<Value, 6> pos;
  SmallVec<std::pair<Sym, Value>, 6> kw;
  if (c->simple) {
    for (const Expr* a : c->args) pos.push_back(eval(a, f));
    for (const Keyword& k : c->keywords) kw.emplace_back(k.arg, eval(k.value, f));
  } else {
    for (const Expr* a : c->args) {
      if (a->kind == NK::Starred) {
        for (auto& v : to_vector(eval(static_cast<const StarredExpr*>(a)->value, f))) pos.push_back(std::move(v));
      } else {
        pos.push_back(eval(a, f));
      }
    }
    for (const Keyword& k : c->keywords) {
      auto add = [&](Sym name, Value v) {
        for (auto& [n, _] : kw)
          if (n == name) raise("TypeError", "got multiple values for keyword argument '" + sym_str(name) + "'");
        kw.emplace_back(name, std::move(v));
      };
      if (k.arg) {
        add(k.arg, eval(k.value, f));
        continue;
      }
      Value m = eval(k.value, f);
      if (!m.is(VK::Dict)) raise("TypeError", "argument after ** must be a mapping, not " + type_name(m));
      for (auto& en : m.as<DictObj>()->entries) {
        if (!en.live) continue;
        if (!en.key.is(VK::Str)) raise("TypeError", "keywords must be strings");
        add(intern(str_of(en.key)), en.value);
      }
    }
  }
  CallArgs a{pos.data(), pos.size(), kw.data(), kw.size(), c};
  const Node* saved = cur_site_;
  cur_site_ = c;
  struct Restore {
    const Node*& r;
    const Node* v;
    ~Restore() { r = v; }
  } restore{cur_site_, saved};
  return call(fn, a);
}

Value Interp::eval_comp(const CompExpr* c, FrameObj* f) {
  Value frame = make<FrameObj>();
  auto* cf = frame.as<FrameObj>();
  cf->parent = f->cls ? f->parent : (f->is_module ? Value() : Value(f));
  cf->module = f->module;
  cf->slots.assign(c->scope.num_slots, Value::unbound());
  std::vector<Value> out_list;
  Value out_dict;
  if (c->kind == NK::DictComp)
    out_dict = make<DictObj>();
  else if (c->kind == NK::SetComp)
    out_dict = make<DictObj>(VK::Set);
  Value first_iter = eval(c->gens[0].iter, f);
  // Recursive generation over the `for` clauses.
  auto gen = [&](auto& self, size_t level, const Value* iter_value) -> void {
    const Comprehension& g = c->gens[level];
    Value it = iter_value ? *iter_value : eval(g.iter, cf);
    auto each = [&](const Value& item) {
      step();
      assign(g.target, item, cf);
      for (const Expr* cond : g.ifs)
        if (!truthy(eval(cond, cf))) return;
      if (level + 1 < c->gens.size()) {
        self(self, level + 1, nullptr);
        return;
      }
      if (c->kind == NK::DictComp) {
        Value k = eval(c->elt, cf);
        out_dict.as<DictObj>()->set(k, eval(c->value, cf));
      } else if (c->kind == NK::SetComp) {
        out_dict.as<DictObj>()->set(eval(c->elt, cf), Value());
      } else {
        out_list.push_back(eval(c->elt, cf));
        // The list is counted when it is made: until then its growth is checked (--max-compile-memory).
        if ((out_list.size() & 0xFFFF) == 0) check_heap_budget(out_list.capacity() * sizeof(Value));
      }
    };
    if (const RangeObj* r = it.is(VK::Range) ? it.as<RangeObj>() : nullptr) {  // no list of the numbers
      const int64_t n = r->length(), start = r->start, stride = r->step;
      for (int64_t i = 0; i < n; ++i) each(Value::integer(int64_t(uint64_t(start) + uint64_t(i) * uint64_t(stride))));
    } else {
      for (auto& item : to_vector(it)) each(item);
    }
  };
  gen(gen, 0, &first_iter);
  if (c->kind == NK::DictComp || c->kind == NK::SetComp) return out_dict;
  if (c->kind == NK::GeneratorExp) return make_tuple(std::move(out_list));  // generators are materialised
  return make_list(std::move(out_list));
}

Value Interp::eval_fstring(const JoinedStrExpr* js, FrameObj* f) {
  std::string out;
  for (const Expr* p : js->parts) {
    if (p->kind == NK::Constant) {
      out += static_cast<const ConstantExpr*>(p)->sval;
      continue;
    }
    auto* fv = static_cast<const FormattedValueExpr*>(p);
    Value v = eval(fv->value, f);
    if (fv->conversion == 'r' || fv->conversion == 'a')
      v = make_str(repr(v));
    else if (fv->conversion == 's')
      v = make_str(str(v));
    std::string spec;
    if (fv->format_spec) spec = str_of(eval_fstring(static_cast<const JoinedStrExpr*>(fv->format_spec), f));
    out += format(v, spec);
  }
  return make_str(std::move(out));
}

}  // namespace nkisim::frontend
