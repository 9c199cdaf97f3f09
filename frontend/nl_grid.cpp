// nl_grid.cpp - launches spelled in the kernel file (nki-language.md §1.2, §2.4): `kernel[2](a, b)`,
// `kernel[4, 2]`, `kernel[nl.spmd_dim(4, nl.nc(2))]` or `kernel[nl.nc(2) * 2]` in the file's __main__ block or
// test methods (host code the evaluator does not run). For a legacy kernel that is a grid the CLI runs as
// --grid would (serially on one core, so a core-sharded axis is just its size); for an nki.jit kernel
// `kernel[N]` (or `kernel[nl.nc(N)]`) is the logical core size, run as --lnc N would (docs/lnc.md). Also
// nl.spmd_dim / nl.nc as functions.
#include <algorithm>

#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {

// nl.nc(n): n cores of a sharded grid axis; nl.spmd_dim(a, b, ...): one grid axis of size a * b * ...
// Both evaluate to the axis size (a plain int) since the grid runs serially on one core.
Value fn_nc(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"n", true}};
  Value v[1];
  bind_args("nc", ps, 1, a, v);
  const int64_t n = in.to_index(v[0], "nc() argument");
  if (n <= 0) raise("ValueError", "nc(): the number of cores must be positive, got " + std::to_string(n));
  return Value::integer(n);
}

Value fn_spmd_dim(Interp& in, const BuiltinObj&, CallArgs& a) {
  if (a.nkw) raise("TypeError", "spmd_dim() takes no keyword arguments");
  if (a.npos == 0) raise("TypeError", "spmd_dim() takes at least one argument");
  int64_t n = 1;
  for (size_t i = 0; i < a.npos; ++i) {
    const int64_t k = in.to_index(a.pos[i], "spmd_dim() arguments");
    if (k <= 0) raise("ValueError", "spmd_dim(): the sizes must be positive, got " + std::to_string(k));
    n *= k;
  }
  return Value::integer(n);
}

// A grid subscript evaluated statically: integer literals (negated too), tuples, `*`, nl.nc(n) and nl.spmd_dim(...).
bool static_int(const Expr* e, int64_t* out) {
  switch (e->kind) {
    case NK::Constant: {
      auto* c = static_cast<const ConstantExpr*>(e);
      if (c->ck != ConstKind::Int || c->overflow) return false;
      *out = c->ival;
      return true;
    }
    case NK::UnaryOp: {  // -k: read so that a negative size is refused at the size, not as unreadable
      auto* u = static_cast<const UnaryOpExpr*>(e);
      if (u->op != UnaryKind::Neg || !static_int(u->operand, out)) return false;
      *out = -*out;
      return true;
    }
    case NK::BinOp: {
      auto* b = static_cast<const BinOpExpr*>(e);
      int64_t x, y;
      if (b->op != BinKind::Mul || !static_int(b->left, &x) || !static_int(b->right, &y)) return false;
      *out = x * y;
      return true;
    }
    case NK::Call: {
      auto* c = static_cast<const CallExpr*>(e);
      Sym name = 0;
      if (c->func->kind == NK::Attribute) name = static_cast<const AttributeExpr*>(c->func)->attr;
      if (c->func->kind == NK::Name) name = static_cast<const NameExpr*>(c->func)->id;
      const std::string n = name ? sym_str(name) : "";
      if ((n != "nc" && n != "spmd_dim") || !c->keywords.empty() || c->args.empty() ||
          (n == "nc" && c->args.size() != 1))
        return false;
      int64_t p = 1;
      for (const Expr* x : c->args) {
        int64_t k;
        if (!static_int(x, &k)) return false;
        p *= k;
      }
      *out = p;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

std::vector<int64_t> file_launch_grid(Interp& in, ModuleObj* m, const FunctionObj* fn, const isa::TargetDesc& t) {
  std::vector<Sym> names;
  for (auto& [k, v] : m->globals)
    if (v.is(VK::Function) && v.as<FunctionObj>() == fn) names.push_back(k);
  if (names.empty() || !m->ast) return {};
  std::vector<int64_t> grid;
  const SubscriptExpr* first = nullptr;
  for (auto& node : m->ast->nodes) {
    if (node->kind != NK::Subscript) continue;
    auto* s = static_cast<const SubscriptExpr*>(node.get());
    if (s->value->kind != NK::Name ||
        std::find(names.begin(), names.end(), static_cast<const NameExpr*>(s->value)->id) == names.end())
      continue;
    const std::string kname = sym_str(static_cast<const NameExpr*>(s->value)->id);
    SourceLoc loc = in.loc_in(m, s->slice);
    std::vector<const Expr*> dims;
    if (s->slice->kind == NK::Tuple)
      for (const Expr* e : static_cast<const SeqExpr*>(s->slice)->elts) dims.push_back(e);
    else
      dims.push_back(s->slice);
    std::vector<int64_t> g;
    for (const Expr* e : dims) {
      int64_t k;
      if (!static_int(e, &k))
        throw Error("cannot read the launch grid of " + kname +
                        "[...]: nki-sim reads grids made of integer "
                        "literals, nl.spmd_dim and nl.nc; pass it with --grid N[,M...] instead",
                    in.loc_in(m, e));
      // A legacy kernel[0] is kept: compile.cpp runs it as one instance, as the Python launch (and refuses a
      // negative size there too; here the error points at the size).
      if (k < 0)
        throw Error(kname + "[...]: launch grid sizes must not be negative, got " + std::to_string(k), in.loc_in(m, e));
      if (k == 0 && !fn->legacy_jit)
        throw Error(kname + "[...]: an nki.jit launch grid size must be positive, got 0", in.loc_in(m, e));
      g.push_back(k);
    }
    if (g.size() > 4) throw Error("a launch grid has at most 4 dimensions, got " + std::to_string(g.size()), loc);
    if (!fn->legacy_jit) {  // current nki.jit: kernel[N] is the logical core size (LNC)
      if (g.size() != 1 || g[0] > 2)
        throw Error(kname +
                        "[...]: an nki.jit kernel is launched as kernel[1] or kernel[2] (the logical "
                        "NeuronCore size)",
                    loc);
      isa::check_lnc(t, g[0], loc);
      if (first && g != grid)
        throw Error("the file launches " + kname + " on " + std::to_string(grid[0]) + " core" +
                        (grid[0] == 1 ? "" : "s") + " at line " + std::to_string(first->line) + " and on " +
                        std::to_string(g[0]) + " core" + (g[0] == 1 ? "" : "s") + " here; choose one with --lnc",
                    loc);
    }
    if (first && g != grid)
      throw Error("the file launches " + kname + " with two different grids (" + shape_str(grid) + " at line " +
                      std::to_string(first->line) + " and " + shape_str(g) + " here); choose one with --grid",
                  loc);
    if (!first) {
      first = s;
      grid = std::move(g);
    }
  }
  return grid;
}

void install_nl_grid(Interp& in, ModuleObj* nl) {
  nl->globals[intern("nc")] = in.builtin("nc", fn_nc);
  nl->globals[intern("spmd_dim")] = in.builtin("spmd_dim", fn_spmd_dim);
}

}  // namespace nkisim::frontend
