// interp.cpp - evaluator infrastructure: construction/teardown, modules and imports, locations, budgets.
#include "frontend/interp.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "frontend/nki.h"
#include "frontend/parser.h"

namespace nkisim::frontend {

namespace fs = std::filesystem;

ModuleObj::~ModuleObj() {
  // The AST's constant caches hold Values: destroy them without freeing objects twice at teardown.
  ast.reset();
}

ModuleScope::ModuleScope(Interp& i, ModuleObj* m) : in(i), saved(i.cur_module_) { i.cur_module_ = m; }
ModuleScope::~ModuleScope() { in.cur_module_ = saved; }

thread_local Interp* tl_interp = nullptr;

size_t instance_hash(const Value& v) {
  auto* cls = v.as<InstanceObj>()->cls.as<ClassObj>();
  const Value* h = cls->lookup(S::__hash__);
  if (!h && tl_interp) {
    bool dc = false, frozen = false;
    for (ClassObj* c : cls->mro) dc |= c->dataclass, frozen |= c->frozen;
    if (dc && !cls->lookup(S::__eq__)) {  // dataclass(eq=True): hashable only when frozen
      if (!frozen) raise("TypeError", "unhashable type: '" + cls->name + "'");
      std::vector<Value> items;
      for (Sym s : dataclass_fields(cls)) items.push_back(v.as<InstanceObj>()->attrs[s]);
      return hash_value(make_tuple(std::move(items)));
    }
  }
  if (!h || !tl_interp) return std::hash<const void*>()(v.obj());
  if (h->is_none()) raise("TypeError", "unhashable type: '" + cls->name + "'");
  Value r = tl_interp->call0(tl_interp->get_attr(v, S::__hash__), tl_interp->current_site());
  if (!r.is_int_like()) raise("TypeError", "__hash__ method should return an integer");
  return size_t(r.i());
}

bool instance_equal(const Value& a, const Value& b) {
  if (!tl_interp) return a.is_heap() && b.is_heap() && a.obj() == b.obj();
  return tl_interp->equal(a, b);
}

Interp::Interp(InterpOptions o) : opts(std::move(o)), heap_scope_(heap_) {
  heap_.budget = opts.memory_budget;
  saved_interp_ = tl_interp;
  tl_interp = this;
  char probe;
  stack_base_ = &probe;
  rlimit rl{};
  size_t lim = 8u << 20;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    lim = size_t(rl.rlim_cur);
  else if (rl.rlim_cur == RLIM_INFINITY)
    lim = 64u << 20;
  stack_limit_ = opts.stack_bytes ? opts.stack_bytes : std::min<size_t>(lim / 2, 32u << 20);
  install_builtins(*this);
  install_nki(*this);
}

Interp::~Interp() {
  tl_interp = saved_interp_;
  TeardownGuard g;
  builtins = Value();
  ret_value = Value();
  nki.reset();
  loaded_modules.clear();
  raised.clear();
  virtual_files.clear();
  module_cache.clear();
  // heap_ (declared last but one) frees everything left, cycles included.
}

// ---------------------------------------------------------------- locations, budgets, output

SourceLoc Interp::loc_in(const ModuleObj* m, const Node* n) const {
  SourceLoc l;
  if (m) l.file = m->path;
  if (n) {
    l.line = n->line;
    l.col = n->col;
  }
  return l;
}
SourceLoc Interp::loc_of(const Node* n) const { return loc_in(cur_module_, n); }

std::vector<SourceLoc> Interp::call_chain() const {
  std::vector<SourceLoc> out;  // usually empty: no allocation then (one per emitted op otherwise)
  size_t n = 0;
  for (const Site& s : sites_) n += s.node != nullptr;
  if (n == 0) return out;
  out.reserve(n);
  for (auto it = sites_.rbegin(); it != sites_.rend(); ++it)
    if (it->node) out.push_back(loc_in(it->module, it->node));
  return out;
}

void Interp::step() {
  if (opts.interrupt && (steps_ & 4095) == 0 && opts.interrupt->load(std::memory_order_relaxed))
    throw Error("interrupted");
  if (++steps_ > opts.step_budget)
    throw Error("evaluation step budget exceeded (" + std::to_string(opts.step_budget) +
                " steps): the kernel's meta-program runs too long or does not terminate (raise the limit with "
                "--max-steps N)");
}

void Interp::instruction_budget_exceeded() {
  throw Error("instruction budget exceeded: the kernel emits more than " + std::to_string(opts.instruction_budget) +
              " instructions (raise the limit with --max-instructions N)");
}

void Interp::stack_exhausted() {
  throw Error("expressions or calls nested too deeply (evaluator stack limit reached)");
}

void Interp::print_line(const std::string& text, const Node* site) {
  SourceLoc l = loc_of(site);
  std::string line = l.file + ":" + std::to_string(l.line) + ": " + text + "\n";
  if (opts.print_sink)
    *opts.print_sink += line;
  else
    std::cerr << line << std::flush;
}

void Interp::fail(const std::string& msg, const Node* at) { throw Error(msg, loc_of(at)); }

Value Interp::builtin(const char* name, BuiltinFn fn, Value self, int64_t data) {
  return make<BuiltinObj>(name, fn, std::move(self), data);
}

Value Interp::new_module(const std::string& name) {
  Value m = make<ModuleObj>(name);
  m.as<ModuleObj>()->initialized = true;
  m.as<ModuleObj>()->globals[S::__name__] = make_str(name);
  module_cache[intern(name)] = m;
  // Make it an attribute of its parent package.
  size_t dot = name.rfind('.');
  if (dot != std::string::npos) {
    auto it = module_cache.find(intern(name.substr(0, dot)));
    if (it != module_cache.end()) it->second.as<ModuleObj>()->globals[intern(name.substr(dot + 1))] = m;
  }
  return m;
}

void Interp::set_global(ModuleObj* m, const char* name, Value v) { m->globals[intern(name)] = std::move(v); }

ClassObj* Interp::exception_class(const std::string& name) {
  auto& g = builtins.as<ModuleObj>()->globals;
  auto it = g.find(intern(name));
  if (it != g.end() && it->second.is(VK::Class) && it->second.as<ClassObj>()->is_exception)
    return it->second.as<ClassObj>();
  return g.find(intern("Exception"))->second.as<ClassObj>();
}

// ---------------------------------------------------------------- modules

Value Interp::run_module(ModuleObj* m) {
  Value frame = make<FrameObj>();
  auto* fr = frame.as<FrameObj>();
  fr->module = m;
  fr->is_module = true;
  ModuleScope ms(*this, m);
  // Host code at module level (numpy data, torch models, ...) must not stop the kernel from compiling: a
  // statement that fails on a host-only value binds its names to opaque values that carry the reason.
  for (const Stmt* s : m->ast->body) {
    try {
      exec(s, fr);
    } catch (PyError& e) {
      if (e.type != "HostValueError") throw;
      std::vector<const NameExpr*> names;
      bound_names(s, names);
      for (const NameExpr* n : names) {
        Value o = make<OpaqueObj>(sym_str(n->id));
        o.as<OpaqueObj>()->reason = e.what();
        o.as<OpaqueObj>()->where = e.loc ? *e.loc : loc_of(s);
        store_name(n, o, fr);
      }
    }
  }
  m->initialized = true;
  return Value(m);
}

// The names a module-level statement binds (assignment and loop targets, def, class, import, with ... as).
static void target_names(const Expr* t, std::vector<const NameExpr*>& out) {
  if (!t) return;
  if (t->kind == NK::Name) out.push_back(static_cast<const NameExpr*>(t));
  if (t->kind == NK::Starred) target_names(static_cast<const StarredExpr*>(t)->value, out);
  if (t->kind == NK::Tuple || t->kind == NK::List)
    for (const Expr* e : static_cast<const SeqExpr*>(t)->elts) target_names(e, out);
}
void bound_names(const Stmt* s, std::vector<const NameExpr*>& out) {
  auto body = [&](const Body& b) {
    for (const Stmt* x : b) bound_names(x, out);
  };
  switch (s->kind) {
    case NK::Assign:
      for (const Expr* t : static_cast<const AssignStmt*>(s)->targets) target_names(t, out);
      break;
    case NK::AugAssign:
      target_names(static_cast<const AugAssignStmt*>(s)->target, out);
      break;
    case NK::AnnAssign:
      target_names(static_cast<const AnnAssignStmt*>(s)->target, out);
      break;
    case NK::For:
      target_names(static_cast<const ForStmt*>(s)->target, out);
      body(static_cast<const ForStmt*>(s)->body);
      body(static_cast<const ForStmt*>(s)->orelse);
      break;
    case NK::While:
      body(static_cast<const WhileStmt*>(s)->body);
      body(static_cast<const WhileStmt*>(s)->orelse);
      break;
    case NK::If:
      body(static_cast<const IfStmt*>(s)->body);
      body(static_cast<const IfStmt*>(s)->orelse);
      break;
    case NK::With:
      for (auto& it : static_cast<const WithStmt*>(s)->items) target_names(it.vars, out);
      body(static_cast<const WithStmt*>(s)->body);
      break;
    case NK::Try: {
      auto* t = static_cast<const TryStmt*>(s);
      body(t->body);
      for (auto& h : t->handlers) body(h.body);
      body(t->orelse);
      body(t->finalbody);
      break;
    }
    case NK::FunctionDef:
      out.push_back(static_cast<const FunctionDefStmt*>(s)->target);
      break;
    case NK::ClassDef:
      out.push_back(static_cast<const ClassDefStmt*>(s)->target);
      break;
    case NK::Import:
      for (auto& a : static_cast<const ImportStmt*>(s)->names) out.push_back(a.target);
      break;
    case NK::ImportFrom:
      for (auto& a : static_cast<const ImportFromStmt*>(s)->names) out.push_back(a.target);
      break;
    default:
      break;
  }
}

Value Interp::load_main(const std::string& path, std::string source, const std::string& module_name) {
  Value mv = make<ModuleObj>(module_name);
  auto* m = mv.as<ModuleObj>();
  m->path = path;
  register_source_file(path);  // diagnostics may quote it
  m->ast = parse_module(std::move(source), path);
  resolve_module(*m->ast);
  m->globals[S::__name__] = make_str(module_name);
  m->globals[S::__file__] = make_str(path);
  module_cache[intern(module_name)] = mv;
  loaded_modules.push_back(mv);
  return run_module(m);
}

static std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses and runs `file` as module `name`; binds it as attribute `part` of `parent` (a package) if given.
Value Interp::load_source_module(const std::string& name, const fs::path& file, std::string source, const Value& parent,
                                 const std::string& part) {
  Value mv = make<ModuleObj>(name);
  auto* m = mv.as<ModuleObj>();
  m->path = file.string();
  register_source_file(m->path);  // diagnostics may quote it
  m->globals[S::__name__] = make_str(name);
  m->globals[S::__file__] = make_str(m->path);
  module_cache[intern(name)] = mv;
  loaded_modules.push_back(mv);
  m->ast = parse_module(std::move(source), m->path);
  resolve_module(*m->ast);
  if (parent.is(VK::Module)) parent.as<ModuleObj>()->globals[intern(part)] = mv;
  run_module(m);
  return mv;
}

// `base.py` or `base/__init__.py`, whichever exists first; reads it into *src.
static std::optional<fs::path> find_module_file(const fs::path& base, std::string* src) {
  for (fs::path cand : {fs::path(base.string() + ".py"), base / "__init__.py"})
    if (fs::is_regular_file(cand))
      if (auto text = read_file(cand.string())) {
        *src = std::move(*text);
        return cand;
      }
  return std::nullopt;
}

Value Interp::import_module(const std::string& dotted_in, const Node* at, ModuleObj* from, int level) {
  std::string dotted = dotted_in;
  if (in_kernel && nki->current_api && level == 0 && (dotted == "neuronxcc" || dotted.rfind("neuronxcc.", 0) == 0))
    reject_legacy(dotted);
  (void)at;
  auto parts_of = [](const std::string& s) {
    std::vector<std::string> parts;
    for (size_t b = 0; b <= s.size();) {
      size_t e = s.find('.', b);
      if (e == std::string::npos) e = s.size();
      parts.push_back(s.substr(b, e - b));
      b = e + 1;
    }
    return parts;
  };
  if (level > 0) {
    // Relative: from the importing module's package, `level - 1` packages up.
    if (!from || from->path.empty()) raise("ImportError", "attempted relative import with no known parent package");
    fs::path dir = fs::path(from->path).parent_path();
    std::string pkg = from->name;
    bool is_pkg = fs::path(from->path).filename() == "__init__.py";
    auto up = [](std::string& p) {
      size_t dot = p.rfind('.');
      p = dot == std::string::npos ? "" : p.substr(0, dot);
    };
    if (!is_pkg) up(pkg);
    // Each level above the module's own folder must still be a package (it has an __init__.py) or lie inside
    // an -I folder: like CPython, a relative import never climbs above the top-level package.
    auto inside_include = [&](const fs::path& d) {
      std::error_code ec;
      const fs::path canon = fs::weakly_canonical(d, ec);
      for (const std::string& inc : opts.include_dirs) {
        const fs::path root = fs::weakly_canonical(inc, ec);
        auto mis = std::mismatch(root.begin(), root.end(), canon.begin(), canon.end());
        if (mis.first == root.end()) return true;
      }
      return false;
    };
    for (int k = 1; k < level; ++k) {
      dir = dir.parent_path();
      up(pkg);
      if (!fs::is_regular_file(dir / "__init__.py") && !inside_include(dir))
        raise("ImportError", "attempted relative import beyond top-level package");
    }
    std::string full = pkg.empty() ? dotted : dotted.empty() ? pkg : pkg + "." + dotted;
    if (full.empty()) full = dir.filename().string();
    auto it = module_cache.find(intern(full));
    if (it != module_cache.end()) return it->second;
    Value parent;
    if (auto p = module_cache.find(intern(pkg)); !pkg.empty() && p != module_cache.end()) parent = p->second;
    fs::path rel = dir;
    std::string name_so_far = pkg;
    for (const std::string& part : dotted.empty() ? std::vector<std::string>{} : parts_of(dotted)) {
      rel /= part;
      name_so_far = name_so_far.empty() ? part : name_so_far + "." + part;
      auto c = module_cache.find(intern(name_so_far));
      if (c != module_cache.end()) {
        parent = c->second;
        continue;
      }
      std::string src;
      auto file = find_module_file(rel, &src);
      if (!file) raise("ModuleNotFoundError", "No module named '" + name_so_far + "'");
      parent = load_source_module(name_so_far, *file, std::move(src), parent, part);
    }
    if (parent.is(VK::Module)) return parent;
    raise("ImportError", "cannot resolve relative import");
  }

  auto it = module_cache.find(intern(dotted));
  if (it != module_cache.end()) return it->second;

  // Absolute: the kernel's directory and the -I paths, package by package.
  std::vector<fs::path> dirs;
  if (!loaded_modules.empty()) dirs.push_back(fs::path(loaded_modules.front().as<ModuleObj>()->path).parent_path());
  for (auto& d : opts.include_dirs) dirs.push_back(d);
  std::string name_so_far;
  Value parent;
  for (const std::string& part : parts_of(dotted)) {
    name_so_far = name_so_far.empty() ? part : name_so_far + "." + part;
    auto c = module_cache.find(intern(name_so_far));
    if (c != module_cache.end()) {
      parent = c->second;
      if (parent.is(VK::Opaque)) return make<OpaqueObj>(dotted);
      continue;
    }
    std::string src;
    std::optional<fs::path> file;
    if (parent.is(VK::Module) && !parent.as<ModuleObj>()->path.empty()) {
      file = find_module_file(fs::path(parent.as<ModuleObj>()->path).parent_path() / part, &src);
    } else if (!parent.is(VK::Module)) {
      for (auto& d : dirs) {
        fs::path base = d;
        for (const std::string& p : parts_of(name_so_far)) base /= p;
        if ((file = find_module_file(base, &src))) break;
      }
      for (size_t k = 0; !file && k < opts.import_packages.size(); ++k) {  // (name_so_far is a top-level name)
        fs::path pkg = opts.import_packages[k];
        if ((pkg.extension() == ".py" ? pkg.stem() : pkg.filename()).string() == name_so_far)
          file = find_module_file(pkg.parent_path() / name_so_far, &src);
      }
    }
    if (!file) {
      if (parent.is(VK::Module)) raise("ModuleNotFoundError", "No module named '" + name_so_far + "'");
      // Not a project module: a host-side dependency (torch, ...). Usable only where it is not evaluated;
      // any real use is reported at that point.
      module_cache[intern(name_so_far)] = make<OpaqueObj>(name_so_far);
      return make<OpaqueObj>(dotted);
    }
    parent = load_source_module(name_so_far, *file, std::move(src), parent, part);
  }
  return parent;
}

// ---------------------------------------------------------------- --arg literals

static Value literal_value(Interp& in, const Expr* e, bool* ok) {
  switch (e->kind) {
    case NK::Constant: {  // literals; a bad one (overflow, complex) is "not a Python literal"
      try {
        return constant_value(static_cast<const ConstantExpr*>(e));
      } catch (PyError&) {
        break;
      }
    }
    case NK::UnaryOp: {
      auto* u = static_cast<const UnaryOpExpr*>(e);
      if (u->op != UnaryKind::Neg && u->op != UnaryKind::Pos) break;
      Value v = literal_value(in, u->operand, ok);
      if (!*ok || !v.is_number()) break;
      return in.unary(u->op, v);
    }
    case NK::Tuple:
    case NK::List: {
      std::vector<Value> items;
      for (auto* x : static_cast<const SeqExpr*>(e)->elts) {
        items.push_back(literal_value(in, x, ok));
        if (!*ok) return Value();
      }
      return e->kind == NK::Tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
    }
    case NK::Dict: {
      auto* d = static_cast<const DictExpr*>(e);
      Value dv = make<DictObj>();
      for (size_t i = 0; i < d->keys.size(); ++i) {
        if (!d->keys[i]) break;
        Value k = literal_value(in, d->keys[i], ok);
        Value v = literal_value(in, d->values[i], ok);
        if (!*ok) return Value();
        dv.as<DictObj>()->set(k, v);
      }
      return dv;
    }
    default:
      break;
  }
  *ok = false;
  return Value();
}

Value Interp::parse_literal(const std::string& text, const std::string& what) {
  ModuleAst tmp;
  tmp.file = what;
  Expr* e;
  try {
    e = parse_expression(tmp, text, what);
  } catch (Error& err) {
    throw Error(what + ": '" + text + "' is not a Python literal (" + err.what() + ")");
  }
  bool ok = true;
  Value v = literal_value(*this, e, &ok);
  if (!ok)
    throw Error(what + ": '" + text + "' is not a Python literal (int, float, bool, None, string, tuple or list)");
  return v;
}

}  // namespace nkisim::frontend
