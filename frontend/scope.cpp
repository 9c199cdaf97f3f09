// scope.cpp - name resolution: decides for every Name whether it is a local slot, a free variable of an
// enclosing function (depth, slot), a global, or a class-namespace name (Python's scoping rules).
#include <unordered_map>
#include <unordered_set>

#include "frontend/interp.h"

namespace nkisim::frontend {
namespace {

struct Scope {
  enum Kind { Module, Function, Class, Comp } kind;
  explicit Scope(Kind k) : kind(k) {}
  Scope* parent = nullptr;
  ScopeData* data = nullptr;  // Function / Comp
  std::unordered_map<Sym, uint32_t> locals;
  std::unordered_set<Sym> globals, nonlocals;
  const std::string* file = nullptr;

  uint32_t add_local(Sym s) {
    auto it = locals.find(s);
    if (it != locals.end()) return it->second;
    uint32_t slot = data->num_slots++;
    data->slot_names.push_back(s);
    locals.emplace(s, slot);
    return slot;
  }
};

constexpr int kMaxExprDepth = 1000;  // AST nesting the resolver (and evaluator) accept

class Resolver {
 public:
  explicit Resolver(const std::string& file) : file_(file) {}

  void module(ModuleAst& m) {
    Scope s(Scope::Module);
    body(m.body, &s);
  }

 private:
  const std::string& file_;
  int depth_ = 0;
  struct Depth {
    Resolver& r;
    Depth(Resolver& rr, const Node* n) : r(rr) {
      if (++r.depth_ > kMaxExprDepth)
        r.fail("expression too deeply nested (more than " + std::to_string(kMaxExprDepth) + " levels)", n);
    }
    ~Depth() { --r.depth_; }
  };

  [[noreturn]] void fail(const std::string& msg, const Node* n) { throw Error(msg, SourceLoc{file_, n->line, n->col}); }

  // ---- pass 1: names bound in a function/class body (not descending into nested scopes)
  void bind_target(const Expr* t, std::vector<Sym>& out) {
    if (!t) return;
    switch (t->kind) {
      case NK::Name:
        out.push_back(static_cast<const NameExpr*>(t)->id);
        break;
      case NK::Tuple:
      case NK::List:
        for (auto* e : static_cast<const SeqExpr*>(t)->elts) bind_target(e, out);
        break;
      case NK::Starred:
        bind_target(static_cast<const StarredExpr*>(t)->value, out);
        break;
      default:
        break;
    }
  }
  void walrus_in(const Expr* e, std::vector<Sym>& out);  // NamedExpr targets anywhere in e (except lambdas)
  void collect(const Body& b, std::vector<Sym>& out, Scope* s) {
    for (const Stmt* st : b) collect_stmt(st, out, s);
  }
  void collect_stmt(const Stmt* st, std::vector<Sym>& out, Scope* s) {
    switch (st->kind) {
      case NK::FunctionDef: {
        auto* d = static_cast<const FunctionDefStmt*>(st);
        out.push_back(d->code->name);
        for (auto* x : d->decorators) walrus_in(x, out);
        break;
      }
      case NK::ClassDef:
        out.push_back(static_cast<const ClassDefStmt*>(st)->name);
        break;
      case NK::Assign: {
        auto* a = static_cast<const AssignStmt*>(st);
        for (auto* t : a->targets) {
          bind_target(t, out);
          walrus_in(t, out);
        }
        walrus_in(a->value, out);
        break;
      }
      case NK::AugAssign: {
        auto* a = static_cast<const AugAssignStmt*>(st);
        bind_target(a->target, out);
        walrus_in(a->value, out);
        break;
      }
      case NK::AnnAssign: {
        auto* a = static_cast<const AnnAssignStmt*>(st);
        if (a->target->kind == NK::Name) bind_target(a->target, out);
        walrus_in(a->value, out);
        break;
      }
      case NK::For: {
        auto* f = static_cast<const ForStmt*>(st);
        bind_target(f->target, out);
        walrus_in(f->iter, out);
        collect(f->body, out, s);
        collect(f->orelse, out, s);
        break;
      }
      case NK::While: {
        auto* w = static_cast<const WhileStmt*>(st);
        walrus_in(w->test, out);
        collect(w->body, out, s);
        collect(w->orelse, out, s);
        break;
      }
      case NK::If: {
        auto* i = static_cast<const IfStmt*>(st);
        walrus_in(i->test, out);
        collect(i->body, out, s);
        collect(i->orelse, out, s);
        break;
      }
      case NK::With: {
        auto* w = static_cast<const WithStmt*>(st);
        for (auto& it : w->items) {
          bind_target(it.vars, out);
          walrus_in(it.context, out);
        }
        collect(w->body, out, s);
        break;
      }
      case NK::Try: {
        auto* t = static_cast<const TryStmt*>(st);
        collect(t->body, out, s);
        for (auto& h : t->handlers) {
          if (h.name) out.push_back(h.name->id);
          collect(h.body, out, s);
        }
        collect(t->orelse, out, s);
        collect(t->finalbody, out, s);
        break;
      }
      case NK::Import:
        for (auto& a : static_cast<const ImportStmt*>(st)->names) out.push_back(a.target->id);
        break;
      case NK::ImportFrom:
        for (auto& a : static_cast<const ImportFromStmt*>(st)->names) out.push_back(a.target->id);
        break;
      case NK::Delete:
        for (auto* t : static_cast<const DeleteStmt*>(st)->targets) bind_target(t, out);
        break;
      case NK::Global:
        for (Sym n : static_cast<const NamesStmt*>(st)->names) s->globals.insert(n);
        if (s->data && !s->data->global_decl) s->data->global_decl = st;
        break;
      case NK::Nonlocal:
        for (Sym n : static_cast<const NamesStmt*>(st)->names) s->nonlocals.insert(n);
        break;
      case NK::ExprStmt:
        walrus_in(static_cast<const ExprStmt*>(st)->value, out);
        break;
      case NK::Return:
        walrus_in(static_cast<const ReturnStmt*>(st)->value, out);
        break;
      case NK::Assert:
        walrus_in(static_cast<const AssertStmt*>(st)->test, out);
        break;
      default:
        break;
    }
  }

  // ---- pass 2: annotate names
  void lookup_enclosing(NameExpr* n, Scope* from, bool skip_self_locals) {
    uint16_t depth = 0;
    (void)skip_self_locals;
    for (Scope* a = from->parent; a; a = a->parent) {
      if (a->kind == Scope::Class) continue;
      ++depth;
      if (a->kind == Scope::Module) break;
      if (a->globals.count(n->id)) break;
      auto it = a->locals.find(n->id);
      if (it != a->locals.end() && !a->nonlocals.count(n->id)) {
        n->where = Where::Free;
        n->depth = depth;
        n->slot = it->second;
        return;
      }
    }
    n->where = Where::Global;
  }

  void name(NameExpr* n, Scope* s) {
    switch (s->kind) {
      case Scope::Module:
        n->where = Where::Global;
        return;
      case Scope::Class:
        if (s->globals.count(n->id)) {
          n->where = Where::Global;
          return;
        }
        lookup_enclosing(n, s, false);
        n->fallback = n->where;
        n->where = Where::ClassNs;
        return;
      default:
        break;
    }
    if (s->globals.count(n->id)) {
      n->where = Where::Global;
      return;
    }
    if (s->nonlocals.count(n->id)) {
      lookup_enclosing(n, s, true);
      if (n->where != Where::Free) fail("no binding for nonlocal '" + sym_str(n->id) + "' found", n);
      return;
    }
    auto it = s->locals.find(n->id);
    if (it != s->locals.end()) {
      n->where = Where::Local;
      n->slot = it->second;
      return;
    }
    lookup_enclosing(n, s, false);
  }

  // The target of `x := v` inside comprehensions binds in the nearest enclosing non-comprehension scope.
  void walrus_target(NameExpr* n, Scope* s) {
    if (s->kind != Scope::Comp) return name(n, s);
    uint16_t depth = 0;
    for (Scope* a = s; a; a = a->parent) {
      if (a->kind == Scope::Comp) {
        ++depth;
        continue;
      }
      if (a->kind == Scope::Class)
        fail("assignment expression within a comprehension cannot be used in a class body", n);
      if (a->kind == Scope::Module) {
        n->where = Where::Global;
        return;
      }
      n->where = Where::Free;
      n->depth = depth;
      n->slot = a->add_local(n->id);
      return;
    }
  }

  void function(FuncCode* code, Scope* parent) {
    Scope s(Scope::Function);
    s.parent = parent;
    s.data = &code->scope;
    code->scope = ScopeData{};
    for (auto& p : code->params) s.add_local(p.name);
    std::vector<Sym> bound;
    if (code->lambda_body)
      walrus_in(code->lambda_body, bound);
    else
      collect(code->body, bound, &s);
    for (Sym n : s.globals)
      if (s.nonlocals.count(n)) fail("name '" + sym_str(n) + "' is nonlocal and global", nullptr_node(code));
    for (Sym b : bound)
      if (!s.globals.count(b) && !s.nonlocals.count(b)) s.add_local(b);
    if (code->lambda_body)
      expr(code->lambda_body, &s);
    else
      body(code->body, &s);
  }
  const Node* nullptr_node(FuncCode* code) {
    static thread_local Node n(NK::Pass);
    n.line = code->line;
    n.col = code->col;
    return &n;
  }

  void comp(CompExpr* c, Scope* s) {
    // The first iterable is evaluated in the enclosing scope.
    expr(c->gens[0].iter, s);
    Scope cs(Scope::Comp);
    cs.parent = s;
    cs.data = &c->scope;
    c->scope = ScopeData{};
    for (auto& g : c->gens) {
      std::vector<Sym> bound;
      bind_target(g.target, bound);
      for (Sym b : bound) cs.add_local(b);
    }
    for (size_t i = 0; i < c->gens.size(); ++i) {
      auto& g = c->gens[i];
      if (i > 0) expr(g.iter, &cs);
      expr(g.target, &cs);
      for (auto* x : g.ifs) expr(x, &cs);
    }
    expr(c->elt, &cs);
    if (c->value) expr(c->value, &cs);
  }

  void expr(Expr* e, Scope* s) {
    if (!e) return;
    Depth guard(*this, e);
    switch (e->kind) {
      case NK::Name:
        name(static_cast<NameExpr*>(e), s);
        return;
      case NK::Constant:
      case NK::Yield:
        if (e->kind == NK::Yield) expr(static_cast<YieldExpr*>(e)->value, s);
        return;
      case NK::JoinedStr:
        for (auto* p : static_cast<JoinedStrExpr*>(e)->parts) expr(p, s);
        return;
      case NK::FormattedValue: {
        auto* fv = static_cast<FormattedValueExpr*>(e);
        expr(fv->value, s);
        expr(fv->format_spec, s);
        return;
      }
      case NK::Tuple:
      case NK::List:
      case NK::Set:
        for (auto* x : static_cast<SeqExpr*>(e)->elts) expr(x, s);
        return;
      case NK::Dict: {
        auto* d = static_cast<DictExpr*>(e);
        for (auto* x : d->keys) expr(x, s);
        for (auto* x : d->values) expr(x, s);
        return;
      }
      case NK::BinOp: {
        auto* b = static_cast<BinOpExpr*>(e);
        expr(b->left, s);
        expr(b->right, s);
        return;
      }
      case NK::UnaryOp:
        expr(static_cast<UnaryOpExpr*>(e)->operand, s);
        return;
      case NK::BoolOp:
        for (auto* x : static_cast<BoolOpExpr*>(e)->values) expr(x, s);
        return;
      case NK::Compare: {
        auto* c = static_cast<CompareExpr*>(e);
        expr(c->left, s);
        for (auto* x : c->comparators) expr(x, s);
        return;
      }
      case NK::Call: {
        auto* c = static_cast<CallExpr*>(e);
        expr(c->func, s);
        for (auto* x : c->args) expr(x, s);
        for (auto& k : c->keywords) expr(k.value, s);
        return;
      }
      case NK::Attribute:
        expr(static_cast<AttributeExpr*>(e)->value, s);
        return;
      case NK::Subscript: {
        auto* x = static_cast<SubscriptExpr*>(e);
        expr(x->value, s);
        expr(x->slice, s);
        return;
      }
      case NK::Slice: {
        auto* x = static_cast<SliceExpr*>(e);
        expr(x->lower, s);
        expr(x->upper, s);
        expr(x->step, s);
        return;
      }
      case NK::IfExp: {
        auto* x = static_cast<IfExpExpr*>(e);
        expr(x->test, s);
        expr(x->body, s);
        expr(x->orelse, s);
        return;
      }
      case NK::Lambda: {
        auto* l = static_cast<LambdaExpr*>(e);
        for (auto& p : l->code->params) expr(p.default_, s);
        function(l->code, s);
        return;
      }
      case NK::ListComp:
      case NK::SetComp:
      case NK::GeneratorExp:
      case NK::DictComp:
        comp(static_cast<CompExpr*>(e), s);
        return;
      case NK::Starred:
        expr(static_cast<StarredExpr*>(e)->value, s);
        return;
      case NK::NamedExpr: {
        auto* n = static_cast<NamedExprExpr*>(e);
        expr(n->value, s);
        walrus_target(n->target, s);
        return;
      }
      default:
        return;
    }
  }

  void body(Body& b, Scope* s) {
    if (s->kind == Scope::Class) {
      std::vector<Sym> bound;
      collect(b, bound, s);
    }
    for (Stmt* st : b) stmt(st, s);
  }

  void stmt(Stmt* st, Scope* s) {
    switch (st->kind) {
      case NK::FunctionDef: {
        auto* d = static_cast<FunctionDefStmt*>(st);
        for (auto* x : d->decorators) expr(x, s);
        for (auto& p : d->code->params) expr(p.default_, s);
        name(d->target, s);
        function(d->code, s);
        return;
      }
      case NK::ClassDef: {
        auto* c = static_cast<ClassDefStmt*>(st);
        for (auto* x : c->decorators) expr(x, s);
        for (auto* x : c->bases) expr(x, s);
        for (auto& k : c->keywords) expr(k.value, s);
        name(c->target, s);
        Scope cs(Scope::Class);
        cs.parent = s;
        body(c->body, &cs);
        return;
      }
      case NK::Return:
        expr(static_cast<ReturnStmt*>(st)->value, s);
        return;
      case NK::Delete:
        for (auto* t : static_cast<DeleteStmt*>(st)->targets) expr(t, s);
        return;
      case NK::Assign: {
        auto* a = static_cast<AssignStmt*>(st);
        expr(a->value, s);
        for (auto* t : a->targets) expr(t, s);
        return;
      }
      case NK::AugAssign: {
        auto* a = static_cast<AugAssignStmt*>(st);
        expr(a->value, s);
        expr(a->target, s);
        return;
      }
      case NK::AnnAssign: {
        auto* a = static_cast<AnnAssignStmt*>(st);
        expr(a->value, s);
        expr(a->target, s);
        return;
      }
      case NK::For: {
        auto* f = static_cast<ForStmt*>(st);
        expr(f->iter, s);
        expr(f->target, s);
        body(f->body, s);
        body(f->orelse, s);
        return;
      }
      case NK::While: {
        auto* w = static_cast<WhileStmt*>(st);
        expr(w->test, s);
        body(w->body, s);
        body(w->orelse, s);
        return;
      }
      case NK::If: {
        auto* i = static_cast<IfStmt*>(st);
        expr(i->test, s);
        body(i->body, s);
        body(i->orelse, s);
        return;
      }
      case NK::With: {
        auto* w = static_cast<WithStmt*>(st);
        for (auto& it : w->items) {
          expr(it.context, s);
          expr(it.vars, s);
        }
        body(w->body, s);
        return;
      }
      case NK::Raise: {
        auto* r = static_cast<RaiseStmt*>(st);
        expr(r->exc, s);
        expr(r->cause, s);
        return;
      }
      case NK::Try: {
        auto* t = static_cast<TryStmt*>(st);
        body(t->body, s);
        for (auto& h : t->handlers) {
          expr(h.type, s);
          if (h.name) name(h.name, s);
          body(h.body, s);
        }
        body(t->orelse, s);
        body(t->finalbody, s);
        return;
      }
      case NK::Assert: {
        auto* a = static_cast<AssertStmt*>(st);
        expr(a->test, s);
        expr(a->msg, s);
        return;
      }
      case NK::Import:
        for (auto& a : static_cast<ImportStmt*>(st)->names) name(a.target, s);
        return;
      case NK::ImportFrom:
        for (auto& a : static_cast<ImportFromStmt*>(st)->names) name(a.target, s);
        return;
      case NK::Global:
      case NK::Nonlocal:
        if (s->kind == Scope::Module && st->kind == NK::Nonlocal)
          fail("nonlocal declaration not allowed at module level", st);
        if (s->kind == Scope::Class || s->kind == Scope::Module) {
          for (Sym n : static_cast<NamesStmt*>(st)->names) s->globals.insert(n);
        }
        return;
      case NK::ExprStmt:
        expr(static_cast<ExprStmt*>(st)->value, s);
        return;
      default:
        return;
    }
  }
};

void Resolver::walrus_in(const Expr* e, std::vector<Sym>& out) {
  if (!e) return;
  Depth guard(*this, e);
  switch (e->kind) {
    case NK::NamedExpr: {
      auto* n = static_cast<const NamedExprExpr*>(e);
      out.push_back(n->target->id);
      walrus_in(n->value, out);
      return;
    }
    case NK::Lambda:
      return;
    case NK::Tuple:
    case NK::List:
    case NK::Set:
      for (auto* x : static_cast<const SeqExpr*>(e)->elts) walrus_in(x, out);
      return;
    case NK::Dict:
      for (auto* x : static_cast<const DictExpr*>(e)->values) walrus_in(x, out);
      for (auto* x : static_cast<const DictExpr*>(e)->keys) walrus_in(x, out);
      return;
    case NK::BinOp:
      walrus_in(static_cast<const BinOpExpr*>(e)->left, out);
      walrus_in(static_cast<const BinOpExpr*>(e)->right, out);
      return;
    case NK::UnaryOp:
      walrus_in(static_cast<const UnaryOpExpr*>(e)->operand, out);
      return;
    case NK::BoolOp:
      for (auto* x : static_cast<const BoolOpExpr*>(e)->values) walrus_in(x, out);
      return;
    case NK::Compare:
      walrus_in(static_cast<const CompareExpr*>(e)->left, out);
      for (auto* x : static_cast<const CompareExpr*>(e)->comparators) walrus_in(x, out);
      return;
    case NK::Call:
      walrus_in(static_cast<const CallExpr*>(e)->func, out);
      for (auto* x : static_cast<const CallExpr*>(e)->args) walrus_in(x, out);
      for (auto& k : static_cast<const CallExpr*>(e)->keywords) walrus_in(k.value, out);
      return;
    case NK::Attribute:
      walrus_in(static_cast<const AttributeExpr*>(e)->value, out);
      return;
    case NK::Subscript:
      walrus_in(static_cast<const SubscriptExpr*>(e)->value, out);
      walrus_in(static_cast<const SubscriptExpr*>(e)->slice, out);
      return;
    case NK::IfExp:
      walrus_in(static_cast<const IfExpExpr*>(e)->test, out);
      walrus_in(static_cast<const IfExpExpr*>(e)->body, out);
      walrus_in(static_cast<const IfExpExpr*>(e)->orelse, out);
      return;
    case NK::Starred:
      walrus_in(static_cast<const StarredExpr*>(e)->value, out);
      return;
    case NK::ListComp:
    case NK::SetComp:
    case NK::GeneratorExp:
    case NK::DictComp: {
      auto* c = static_cast<const CompExpr*>(e);
      for (auto& g : c->gens) {
        walrus_in(g.iter, out);
        for (auto* x : g.ifs) walrus_in(x, out);
      }
      walrus_in(c->elt, out);
      walrus_in(c->value, out);
      return;
    }
    case NK::JoinedStr:
      for (auto* p : static_cast<const JoinedStrExpr*>(e)->parts) walrus_in(p, out);
      return;
    case NK::FormattedValue:
      walrus_in(static_cast<const FormattedValueExpr*>(e)->value, out);
      return;
    default:
      return;
  }
}

}  // namespace

void resolve_module(ModuleAst& m) { Resolver(m.file).module(m); }

}  // namespace nkisim::frontend
