// interp.cpp - evaluator infrastructure: construction/teardown, modules and imports, locations, budgets.
#include "frontend/interp.h"

#include <sys/resource.h>

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

Interp::Interp(InterpOptions o) : opts(std::move(o)), heap_scope_(heap_) {
  char probe;
  stack_base_ = &probe;
  rlimit rl{};
  size_t lim = 8u << 20;
  if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    lim = size_t(rl.rlim_cur);
  else if (rl.rlim_cur == RLIM_INFINITY)
    lim = 64u << 20;
  stack_limit_ = std::min<size_t>(lim / 2, 32u << 20);
  install_builtins(*this);
  install_nki(*this);
}

Interp::~Interp() {
  TeardownGuard g;
  builtins = Value();
  ret_value = Value();
  nki.reset();
  loaded_modules.clear();
  raised.clear();
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
  std::vector<SourceLoc> out;
  out.reserve(sites_.size());
  for (auto it = sites_.rbegin(); it != sites_.rend(); ++it)
    if (it->node) out.push_back(loc_in(it->module, it->node));
  return out;
}

void Interp::step() {
  if (++steps_ > opts.step_budget)
    throw Error("evaluation step budget exceeded (" + std::to_string(opts.step_budget) +
                " steps): the kernel's meta-program runs too long or does not terminate");
}

void Interp::check_stack() {
  char probe;
  size_t used = size_t(stack_base_ > &probe ? stack_base_ - &probe : &probe - stack_base_);
  if (used > stack_limit_) throw Error("expressions or calls nested too deeply (evaluator stack limit reached)");
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
  Flow fl = exec_body(m->ast->body, fr);
  (void)fl;
  m->initialized = true;
  return Value(m);
}

Value Interp::load_main(const std::string& path, std::string source, const std::string& module_name) {
  Value mv = make<ModuleObj>(module_name);
  auto* m = mv.as<ModuleObj>();
  m->path = path;
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

Value Interp::import_module(const std::string& dotted_in, const Node* at, ModuleObj* from, int level) {
  std::string dotted = dotted_in;
  std::vector<fs::path> dirs;
  if (level > 0) {
    if (!from || from->path.empty()) raise("ImportError", "attempted relative import with no known parent package");
    fs::path dir = fs::path(from->path).parent_path();
    std::string pkg = from->name;
    bool is_pkg = fs::path(from->path).filename() == "__init__.py";
    if (!is_pkg) {
      size_t dot = pkg.rfind('.');
      pkg = dot == std::string::npos ? "" : pkg.substr(0, dot);
    }
    for (int k = 1; k < level; ++k) {
      dir = dir.parent_path();
      size_t dot = pkg.rfind('.');
      pkg = dot == std::string::npos ? "" : pkg.substr(0, dot);
    }
    std::string full = pkg.empty() ? dotted : dotted.empty() ? pkg : pkg + "." + dotted;
    if (full.empty()) full = dir.filename().string();
    auto it = module_cache.find(intern(full));
    if (it != module_cache.end()) return it->second;
    // Load from the directory directly.
    fs::path rel = dir;
    std::string rest = dotted;
    Value parent;
    size_t b = 0;
    std::string name_so_far = pkg;
    while (true) {
      size_t dot = rest.find('.', b);
      std::string part = rest.substr(b, dot == std::string::npos ? std::string::npos : dot - b);
      if (part.empty()) break;
      rel /= part;
      name_so_far = name_so_far.empty() ? part : name_so_far + "." + part;
      auto c = module_cache.find(intern(name_so_far));
      if (c != module_cache.end()) {
        parent = c->second;
      } else {
        fs::path file = rel.string() + ".py";
        if (!fs::exists(file)) file = rel / "__init__.py";
        auto src = fs::exists(file) ? read_file(file.string()) : std::nullopt;
        if (!src) raise("ModuleNotFoundError", "No module named '" + name_so_far + "'");
        Value mv = make<ModuleObj>(name_so_far);
        auto* m = mv.as<ModuleObj>();
        m->path = file.string();
        m->globals[S::__name__] = make_str(name_so_far);
        m->globals[S::__file__] = make_str(m->path);
        module_cache[intern(name_so_far)] = mv;
        loaded_modules.push_back(mv);
        m->ast = parse_module(std::move(*src), m->path);
        resolve_module(*m->ast);
        if (parent.is(VK::Module)) parent.as<ModuleObj>()->globals[intern(part)] = mv;
        run_module(m);
        parent = mv;
      }
      if (dot == std::string::npos) break;
      b = dot + 1;
    }
    if (parent.is(VK::Module)) return parent;
    raise("ImportError", "cannot resolve relative import");
  }

  auto it = module_cache.find(intern(dotted));
  if (it != module_cache.end()) return it->second;

  // Search the kernel's directory and the -I paths, package by package.
  if (!loaded_modules.empty()) dirs.push_back(fs::path(loaded_modules.front().as<ModuleObj>()->path).parent_path());
  for (auto& d : opts.include_dirs) dirs.push_back(d);
  std::string name_so_far;
  Value parent;
  size_t b = 0;
  while (true) {
    size_t dot = dotted.find('.', b);
    std::string part = dotted.substr(b, dot == std::string::npos ? std::string::npos : dot - b);
    name_so_far = name_so_far.empty() ? part : name_so_far + "." + part;
    auto c = module_cache.find(intern(name_so_far));
    if (c != module_cache.end()) {
      parent = c->second;
      if (parent.is(VK::Opaque)) return make<OpaqueObj>(dotted);
    } else {
      std::optional<std::string> src;
      fs::path file;
      if (parent.is(VK::Module) && !parent.as<ModuleObj>()->path.empty()) {
        fs::path base = fs::path(parent.as<ModuleObj>()->path).parent_path() / part;
        for (fs::path cand : {fs::path(base.string() + ".py"), base / "__init__.py"})
          if (fs::is_regular_file(cand) && (src = read_file(cand.string()))) {
            file = cand;
            break;
          }
      } else if (!parent.is(VK::Module)) {
        for (auto& d : dirs) {
          fs::path base = d;
          for (size_t k = 0, e; k <= name_so_far.size(); k = e + 1) {
            e = name_so_far.find('.', k);
            if (e == std::string::npos) e = name_so_far.size();
            base /= name_so_far.substr(k, e - k);
          }
          for (fs::path cand : {fs::path(base.string() + ".py"), base / "__init__.py"})
            if (fs::is_regular_file(cand) && (src = read_file(cand.string()))) {
              file = cand;
              break;
            }
          if (src) break;
        }
      }
      if (!src) {
        if (parent.is(VK::Module)) raise("ModuleNotFoundError", "No module named '" + name_so_far + "'");
        // Not a project module: a host-side dependency (numpy, torch, ...). Usable only where it is not
        // evaluated; any real use is reported at that point.
        Value op = make<OpaqueObj>(name_so_far);
        module_cache[intern(name_so_far)] = op;
        return make<OpaqueObj>(dotted);
      }
      Value mv = make<ModuleObj>(name_so_far);
      auto* m = mv.as<ModuleObj>();
      m->path = file.string();
      m->globals[S::__name__] = make_str(name_so_far);
      m->globals[S::__file__] = make_str(m->path);
      module_cache[intern(name_so_far)] = mv;
      loaded_modules.push_back(mv);
      m->ast = parse_module(std::move(*src), m->path);
      resolve_module(*m->ast);
      if (parent.is(VK::Module)) parent.as<ModuleObj>()->globals[intern(part)] = mv;
      run_module(m);
      parent = mv;
    }
    if (dot == std::string::npos) break;
    b = dot + 1;
  }
  (void)at;
  return parent;
}

// ---------------------------------------------------------------- --arg literals

static Value literal_value(Interp& in, const Expr* e, bool* ok) {
  switch (e->kind) {
    case NK::Constant: {
      auto* c = static_cast<const ConstantExpr*>(e);
      switch (c->ck) {
        case ConstKind::None:
          return Value();
        case ConstKind::True:
          return Value::boolean(true);
        case ConstKind::False:
          return Value::boolean(false);
        case ConstKind::Int:
          if (c->overflow) break;
          return Value::integer(c->ival);
        case ConstKind::Float:
          return Value::floating(c->fval);
        case ConstKind::Str:
          return make_str(c->sval);
        default:
          break;
      }
      break;
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
