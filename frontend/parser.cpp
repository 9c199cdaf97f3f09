// parser.cpp - statements of the Python 3.11 grammar, blocks, def/class, imports, target checks.
#include <algorithm>

#include "frontend/parser_impl.h"

namespace nkisim::frontend {

Kw keyword_of(std::string_view s) {
  static const std::pair<const char*, Kw> table[] = {{"False", Kw::False_},
                                                     {"None", Kw::None_},
                                                     {"True", Kw::True_},
                                                     {"and", Kw::and_},
                                                     {"as", Kw::as_},
                                                     {"assert", Kw::assert_},
                                                     {"async", Kw::async_},
                                                     {"await", Kw::await_},
                                                     {"break", Kw::break_},
                                                     {"class", Kw::class_},
                                                     {"continue", Kw::continue_},
                                                     {"def", Kw::def_},
                                                     {"del", Kw::del_},
                                                     {"elif", Kw::elif_},
                                                     {"else", Kw::else_},
                                                     {"except", Kw::except_},
                                                     {"finally", Kw::finally_},
                                                     {"for", Kw::for_},
                                                     {"from", Kw::from_},
                                                     {"global", Kw::global_},
                                                     {"if", Kw::if_},
                                                     {"import", Kw::import_},
                                                     {"in", Kw::in_},
                                                     {"is", Kw::is_},
                                                     {"lambda", Kw::lambda_},
                                                     {"nonlocal", Kw::nonlocal_},
                                                     {"not", Kw::not_},
                                                     {"or", Kw::or_},
                                                     {"pass", Kw::pass_},
                                                     {"raise", Kw::raise_},
                                                     {"return", Kw::return_},
                                                     {"try", Kw::try_},
                                                     {"while", Kw::while_},
                                                     {"with", Kw::with_},
                                                     {"yield", Kw::yield_}};
  if (s.empty() || s.size() > 8) return Kw::None;
  for (auto& [t, k] : table)
    if (s == t) return k;
  return Kw::None;
}

Parser::Parser(ModuleAst& m, const std::string& file, std::vector<Token> toks, int depth)
    : m_(m), file_(file), toks_(std::move(toks)), depth_(depth) {
  kws_.reserve(toks_.size());
  for (auto& t : toks_) kws_.push_back(t.kind == Tok::Name ? keyword_of(t.text) : Kw::None);
}

void Parser::fail(const std::string& msg) const { fail_at(msg, cur().pos.line, cur().pos.col); }
void Parser::fail_at(const std::string& msg, uint32_t line, uint32_t col) const {
  throw Error(msg, SourceLoc{file_, line, col});
}

void Parser::expect_op(Op o, const char* msg) {
  if (accept_op(o)) return;
  if (msg) fail(msg);
  if (o == Op::Colon || o == Op::RPar || o == Op::RSqb || o == Op::RBrace || o == Op::Equal)
    fail("expected '" + std::string(op_text(o)) + "'");
  fail("invalid syntax");
}
void Parser::expect_kw(Kw k) {
  if (!accept_kw(k)) {
    if (k == Kw::in_) fail("expected 'in'");
    if (k == Kw::else_) fail("expected 'else' after 'if' expression");
    if (k == Kw::import_) fail("expected 'import'");
    fail("invalid syntax");
  }
}
Sym Parser::expect_name() {
  if (!at_name()) fail("invalid syntax");
  return intern(next().text);
}

void Parser::parse_file(Body& out) {
  while (cur().kind != Tok::EndMarker) {
    if (cur().kind == Tok::Newline) {
      next();
      continue;
    }
    statement(out);
  }
}

void Parser::statement(Body& out) {
  DepthGuard g(*this);
  const Token& t = cur();
  if (t.kind == Tok::Indent) fail("unexpected indent");
  if (t.kind == Tok::Dedent) fail("unindent does not match any outer indentation level");
  switch (kw()) {
    case Kw::if_:
      out.push_back(if_stmt(false));
      return;
    case Kw::for_:
      out.push_back(for_stmt());
      return;
    case Kw::while_:
      out.push_back(while_stmt());
      return;
    case Kw::with_:
      out.push_back(with_stmt());
      return;
    case Kw::try_:
      out.push_back(try_stmt());
      return;
    case Kw::def_:
      out.push_back(funcdef({}, t));
      return;
    case Kw::class_:
      out.push_back(classdef({}, t));
      return;
    case Kw::async_: {
      // async def / async for / async with: parsed like their plain forms (host code); an async function
      // is marked and cannot be called, and async for/with can only appear inside one.
      next();
      if (at_kw(Kw::def_)) {
        next_def_async_ = true;
        out.push_back(funcdef({}, t));
        return;
      }
      if (at_kw(Kw::for_)) return out.push_back(for_stmt());
      if (at_kw(Kw::with_)) return out.push_back(with_stmt());
      fail("invalid syntax");
    }
    default:
      break;
  }
  if (at_name() && t.text == "match") {
    if (Stmt* m = match_stmt()) {
      out.push_back(m);
      return;
    }
  }
  if (at_op(Op::At)) {
    const Token& start = cur();
    std::vector<Expr*> decos;
    while (accept_op(Op::At)) {
      decos.push_back(namedexpr_test());
      if (cur().kind != Tok::Newline) fail("invalid syntax");
      next();
    }
    if (at_kw(Kw::def_)) {
      out.push_back(funcdef(std::move(decos), start));
      return;
    }
    if (at_kw(Kw::class_)) {
      out.push_back(classdef(std::move(decos), start));
      return;
    }
    if (accept_kw(Kw::async_) && at_kw(Kw::def_)) {
      next_def_async_ = true;
      out.push_back(funcdef(std::move(decos), start));
      return;
    }
    fail("invalid syntax");
  }
  simple_stmts(out);
}

// `match subject:` NEWLINE INDENT (`case pattern [if guard]:` block)+ DEDENT. `match` is a soft keyword:
// when the line is not a match statement, returns null with the position restored. Patterns are checked
// only for balanced brackets; the statement is kept for its location (executing it is an error).
Stmt* Parser::match_stmt() {
  const size_t saved = p_;
  const Token& start = cur();
  try {
    next();
    if (at_op(Op::Equal) || at_op(Op::Dot) || at_op(Op::Comma) || at_op(Op::Colon) || cur().kind == Tok::Newline)
      throw Error("not a match statement");
    star_expressions();
    expect_op(Op::Colon);
    if (cur().kind != Tok::Newline) throw Error("not a match statement");
    next();
    if (cur().kind != Tok::Indent) throw Error("not a match statement");
    if (!(peek_tok().kind == Tok::Name && peek_tok().text == "case")) throw Error("not a match statement");
  } catch (Error&) {
    p_ = saved;
    return nullptr;
  }
  next();  // Indent
  auto* s = mk<MatchStmt>(start);
  while (cur().kind == Tok::Name && cur().text == "case") {
    const Token& c = next();
    int depth = 0;
    while (!(depth == 0 && (at_op(Op::Colon) || at_kw(Kw::if_)))) {
      if (cur().kind == Tok::Newline || cur().kind == Tok::EndMarker) fail("expected ':'");
      if (at_op(Op::LPar) || at_op(Op::LSqb) || at_op(Op::LBrace)) ++depth;
      if (at_op(Op::RPar) || at_op(Op::RSqb) || at_op(Op::RBrace)) --depth;
      if (depth < 0) fail("unmatched bracket in case pattern");
      next();
    }
    if (accept_kw(Kw::if_)) namedexpr_test();
    Body body;
    block(body, "'case' statement", c.pos.line);
  }
  if (cur().kind == Tok::Dedent) next();
  return fin(s);
}

void Parser::simple_stmts(Body& out) {
  while (true) {
    out.push_back(small_stmt());
    if (accept_op(Op::Semi)) {
      if (cur().kind == Tok::Newline) break;
      continue;
    }
    break;
  }
  if (cur().kind != Tok::Newline) {
    if (cur().kind == Tok::EndMarker) return;
    fail("invalid syntax");
  }
  next();
}

void Parser::block(Body& out, const std::string& what, uint32_t line) {
  expect_op(Op::Colon);
  if (cur().kind == Tok::Newline) {
    next();
    if (cur().kind != Tok::Indent)
      fail("expected an indented block after " + what + " on line " + std::to_string(line));
    next();
    while (cur().kind != Tok::Dedent && cur().kind != Tok::EndMarker) statement(out);
    if (cur().kind == Tok::Dedent) next();
    return;
  }
  if (cur().kind == Tok::EndMarker)
    fail("expected an indented block after " + what + " on line " + std::to_string(line));
  simple_stmts(out);
}

Stmt* Parser::if_stmt(bool elif) {
  const Token& start = next();
  auto* s = mk<IfStmt>(start);
  s->test = namedexpr_test();
  block(s->body, elif ? "'elif' statement" : "'if' statement", start.pos.line);
  if (at_kw(Kw::elif_)) {
    s->orelse.push_back(if_stmt(true));
  } else if (at_kw(Kw::else_)) {
    uint32_t l = next().pos.line;
    block(s->orelse, "'else' statement", l);
  }
  return fin(s);
}

Stmt* Parser::for_stmt() {
  const Token& start = next();
  auto* s = mk<ForStmt>(start);
  s->target = target_list(true);
  check_target(s->target, "for");
  expect_kw(Kw::in_);
  s->iter = star_expressions();
  ++loop_depth_;
  block(s->body, "'for' statement", start.pos.line);
  --loop_depth_;
  if (at_kw(Kw::else_)) {
    uint32_t l = next().pos.line;
    block(s->orelse, "'else' statement", l);
  }
  return fin(s);
}

Stmt* Parser::while_stmt() {
  const Token& start = next();
  auto* s = mk<WhileStmt>(start);
  s->test = namedexpr_test();
  ++loop_depth_;
  block(s->body, "'while' statement", start.pos.line);
  --loop_depth_;
  if (at_kw(Kw::else_)) {
    uint32_t l = next().pos.line;
    block(s->orelse, "'else' statement", l);
  }
  return fin(s);
}

Stmt* Parser::with_stmt() {
  const Token& start = next();
  auto* s = mk<WithStmt>(start);
  do {
    WithItem item;
    item.context = expression();
    if (accept_kw(Kw::as_)) {
      item.vars = target_list(false);
      check_target(item.vars, "assign");
    }
    s->items.push_back(item);
  } while (accept_op(Op::Comma));
  block(s->body, "'with' statement", start.pos.line);
  return fin(s);
}

Stmt* Parser::try_stmt() {
  const Token& start = next();
  auto* s = mk<TryStmt>(start);
  block(s->body, "'try' statement", start.pos.line);
  while (at_kw(Kw::except_)) {
    const Token& et = next();
    ExceptHandler h;
    h.line = et.pos.line;
    h.col = et.pos.col;
    if (at_op(Op::Star)) fail("'except*' is not supported");
    if (!at_op(Op::Colon)) {
      h.type = expression();
      if (at_op(Op::Comma)) fail("multiple exception types must be parenthesized");
      if (accept_kw(Kw::as_)) {
        const Token& nt = cur();
        h.name = mk<NameExpr>(nt, expect_name());
        fin(h.name);
      }
    }
    block(h.body, "'except' statement", et.pos.line);
    s->handlers.push_back(std::move(h));
  }
  if (at_kw(Kw::else_)) {
    if (s->handlers.empty()) fail("expected 'except' or 'finally' block");
    uint32_t l = next().pos.line;
    block(s->orelse, "'else' statement", l);
  }
  if (at_kw(Kw::finally_)) {
    uint32_t l = next().pos.line;
    block(s->finalbody, "'finally' statement", l);
  }
  if (s->handlers.empty() && s->finalbody.empty()) fail("expected 'except' or 'finally' block");
  return fin(s);
}

Stmt* Parser::funcdef(std::vector<Expr*> decorators, const Token& start) {
  const Token& def = next();
  auto* s = mk<FunctionDefStmt>(start);
  s->decorators = std::move(decorators);
  FuncCode* code = m_.make_code();
  code->is_async = next_def_async_;
  next_def_async_ = false;
  code->line = def.pos.line;
  code->col = def.pos.col;
  const Token& nt = cur();
  code->name = expect_name();
  code->qualname = sym_str(code->name);
  s->target = fin(mk<NameExpr>(nt, code->name));
  s->code = code;
  expect_op(Op::LPar, "expected '('");
  params(code, false);
  expect_op(Op::RPar);
  if (accept_op(Op::RArrow)) s->returns = expression();
  FuncCode* saved = cur_code_;
  int saved_loops = loop_depth_;
  cur_code_ = code;
  loop_depth_ = 0;
  ++func_depth_;
  block(code->body, "function definition", def.pos.line);
  --func_depth_;
  cur_code_ = saved;
  loop_depth_ = saved_loops;
  return fin(s);
}

void Parser::params(FuncCode* code, bool lambda) {
  Op end = lambda ? Op::Colon : Op::RPar;
  bool seen_default = false, seen_star = false, seen_slash = false, bare_star = false;
  while (!at_op(end)) {
    const Token& t = cur();
    if (accept_op(Op::Slash)) {
      if (seen_slash) fail("/ may appear only once");
      if (seen_star) fail("/ must be ahead of *");
      if (code->params.empty()) fail("at least one argument must precede /");
      for (auto& p : code->params) p.kind = ParamKind::PosOnly;
      seen_slash = true;
    } else if (accept_op(Op::DoubleStar)) {
      Param p;
      p.line = t.pos.line;
      p.col = t.pos.col;
      p.name = expect_name();
      p.kind = ParamKind::VarKw;
      if (!lambda && accept_op(Op::Colon)) p.annotation = expression();
      if (at_op(Op::Equal)) fail("var-keyword argument cannot have default value");
      code->params.push_back(p);
      accept_op(Op::Comma);
      if (!at_op(end)) fail("arguments cannot follow var-keyword argument");
      break;
    } else if (accept_op(Op::Star)) {
      if (seen_star) fail("* argument may appear only once");
      seen_star = true;
      if (at_op(Op::Comma) || at_op(end)) {
        bare_star = true;
        if (at_op(end) || peek_tok().kind == Tok::Op) fail("named arguments must follow bare *");
      } else {
        Param p;
        p.line = cur().pos.line;
        p.col = cur().pos.col;
        p.name = expect_name();
        p.kind = ParamKind::VarArgs;
        if (!lambda && accept_op(Op::Colon)) p.annotation = expression();
        if (at_op(Op::Equal)) fail("var-positional argument cannot have default value");
        code->params.push_back(p);
      }
    } else {
      Param p;
      p.line = t.pos.line;
      p.col = t.pos.col;
      p.name = expect_name();
      p.kind = seen_star ? ParamKind::KwOnly : ParamKind::Normal;
      if (!lambda && accept_op(Op::Colon)) p.annotation = expression();
      if (accept_op(Op::Equal)) {
        p.default_ = expression();
        if (!seen_star) seen_default = true;
      } else if (seen_default && !seen_star) {
        fail_at("non-default argument follows default argument", t.pos.line, t.pos.col);
      }
      for (auto& q : code->params)
        if (q.name == p.name)
          fail_at("duplicate argument '" + sym_str(p.name) + "' in function definition", t.pos.line, t.pos.col);
      code->params.push_back(p);
    }
    if (!accept_op(Op::Comma)) break;
  }
  (void)bare_star;
  if (!at_op(end)) fail(lambda ? "expected ':'" : "invalid syntax");
}

Stmt* Parser::classdef(std::vector<Expr*> decorators, const Token& start) {
  const Token& ct = next();
  auto* s = mk<ClassDefStmt>(start);
  s->decorators = std::move(decorators);
  const Token& nt = cur();
  s->name = expect_name();
  s->target = fin(mk<NameExpr>(nt, s->name));
  if (accept_op(Op::LPar)) {
    CallExpr tmp;
    call_args(&tmp);
    for (Expr* a : tmp.args) {
      if (a->kind == NK::Starred) fail_at("starred class bases are not supported", a->line, a->col);
      s->bases.push_back(a);
    }
    s->keywords = tmp.keywords;
  }
  FuncCode* saved = cur_code_;
  int saved_loops = loop_depth_, saved_funcs = func_depth_;
  cur_code_ = nullptr;
  loop_depth_ = func_depth_ = 0;
  block(s->body, "class definition", ct.pos.line);
  cur_code_ = saved;
  loop_depth_ = saved_loops;
  func_depth_ = saved_funcs;
  return fin(s);
}

Stmt* Parser::import_stmt() {
  const Token& start = next();
  auto* s = mk<ImportStmt>(start);
  do {
    Alias a;
    a.line = cur().pos.line;
    a.col = cur().pos.col;
    const Token& first = cur();
    a.name = sym_str(expect_name());
    while (accept_op(Op::Dot)) a.name += "." + sym_str(expect_name());
    if (accept_kw(Kw::as_)) {
      const Token& nt = cur();
      a.target = fin(mk<NameExpr>(nt, expect_name()));
    } else {
      a.target = mk<NameExpr>(first, intern(first.text));
      a.target->end_line = first.end.line;
      a.target->end_col = first.end.col;
    }
    s->names.push_back(a);
  } while (accept_op(Op::Comma));
  return fin(s);
}

Stmt* Parser::from_import_stmt() {
  const Token& start = next();
  auto* s = mk<ImportFromStmt>(start);
  while (at_op(Op::Dot) || at_op(Op::Ellipsis)) s->level += at_op(Op::Dot) ? 1 : 3, next();
  if (!at_kw(Kw::import_)) {
    s->module = sym_str(expect_name());
    while (accept_op(Op::Dot)) s->module += "." + sym_str(expect_name());
  }
  expect_kw(Kw::import_);
  if (accept_op(Op::Star)) {
    s->star = true;
    return fin(s);
  }
  bool paren = accept_op(Op::LPar);
  do {
    if (paren && at_op(Op::RPar)) break;
    Alias a;
    const Token& nt = cur();
    a.line = nt.pos.line;
    a.col = nt.pos.col;
    Sym name = expect_name();
    a.name = sym_str(name);
    if (accept_kw(Kw::as_)) {
      const Token& at = cur();
      a.target = fin(mk<NameExpr>(at, expect_name()));
    } else {
      a.target = mk<NameExpr>(nt, name);
      a.target->end_line = nt.end.line;
      a.target->end_col = nt.end.col;
    }
    s->names.push_back(a);
  } while (accept_op(Op::Comma));
  if (paren) expect_op(Op::RPar);
  if (s->names.empty()) fail("invalid syntax");
  return fin(s);
}

static const char* describe(const Expr* e) {
  switch (e->kind) {
    case NK::Call:
      return "function call";
    case NK::Constant: {
      auto* c = static_cast<const ConstantExpr*>(e);
      if (c->ck == ConstKind::None) return "None";
      if (c->ck == ConstKind::True) return "True";
      if (c->ck == ConstKind::False) return "False";
      if (c->ck == ConstKind::Ellipsis) return "ellipsis";
      return "literal";
    }
    case NK::JoinedStr:
      return "f-string expression";
    case NK::BinOp:
    case NK::UnaryOp:
      return "expression";
    case NK::BoolOp:
      return "expression";
    case NK::Compare:
      return "comparison";
    case NK::Lambda:
      return "lambda";
    case NK::IfExp:
      return "conditional expression";
    case NK::Dict:
      return "dict literal";
    case NK::Set:
      return "set display";
    case NK::ListComp:
      return "list comprehension";
    case NK::SetComp:
      return "set comprehension";
    case NK::DictComp:
      return "dict comprehension";
    case NK::GeneratorExp:
      return "generator expression";
    case NK::NamedExpr:
      return "named expression";
    case NK::Yield:
      return "yield expression";
    default:
      return "expression";
  }
}

void Parser::check_target(Expr* e, const char* ctx) {
  std::string c = ctx;
  switch (e->kind) {
    case NK::Name:
    case NK::Attribute:
    case NK::Subscript:
      return;
    case NK::Tuple:
    case NK::List:
      if (c == "augmented")
        fail_at(std::string("'") + (e->kind == NK::Tuple ? "tuple" : "list") +
                    "' is an illegal expression for augmented assignment",
                e->line, e->col);
      {
        int stars = 0;
        for (Expr* x : static_cast<SeqExpr*>(e)->elts) {
          if (x->kind == NK::Starred) {
            if (c == "del") fail_at("cannot delete starred", x->line, x->col);
            if (++stars > 1) fail_at("multiple starred expressions in assignment", x->line, x->col);
            check_target(static_cast<StarredExpr*>(x)->value, ctx);
          } else {
            check_target(x, ctx);
          }
        }
      }
      return;
    case NK::Starred:
      if (c == "augmented") fail_at("'starred' is an illegal expression for augmented assignment", e->line, e->col);
      fail_at("starred assignment target must be in a list or tuple", e->line, e->col);
    default:
      break;
  }
  if (c == "augmented")
    fail_at(std::string("'") + describe(e) + "' is an illegal expression for augmented assignment", e->line, e->col);
  if (c == "del") fail_at(std::string("cannot delete ") + describe(e), e->line, e->col);
  std::string msg = std::string("cannot assign to ") + describe(e);
  if (e->kind == NK::Call || e->kind == NK::Compare) msg += " here. Maybe you meant '==' instead of '='?";
  fail_at(msg, e->line, e->col);
}

static bool aug_op(Op o, BinKind* k) {
  switch (o) {
    case Op::PlusEqual:
      *k = BinKind::Add;
      return true;
    case Op::MinEqual:
      *k = BinKind::Sub;
      return true;
    case Op::StarEqual:
      *k = BinKind::Mul;
      return true;
    case Op::AtEqual:
      *k = BinKind::MatMul;
      return true;
    case Op::SlashEqual:
      *k = BinKind::Div;
      return true;
    case Op::DoubleSlashEqual:
      *k = BinKind::FloorDiv;
      return true;
    case Op::PercentEqual:
      *k = BinKind::Mod;
      return true;
    case Op::DoubleStarEqual:
      *k = BinKind::Pow;
      return true;
    case Op::LeftShiftEqual:
      *k = BinKind::LShift;
      return true;
    case Op::RightShiftEqual:
      *k = BinKind::RShift;
      return true;
    case Op::VBarEqual:
      *k = BinKind::BitOr;
      return true;
    case Op::CircumflexEqual:
      *k = BinKind::BitXor;
      return true;
    case Op::AmperEqual:
      *k = BinKind::BitAnd;
      return true;
    default:
      return false;
  }
}

Stmt* Parser::small_stmt() {
  const Token& start = cur();
  switch (kw()) {
    case Kw::pass_:
      next();
      return fin(mk<SimpleStmt>(start, NK::Pass));
    case Kw::break_:
      if (!loop_depth_) fail("'break' outside loop");
      next();
      return fin(mk<SimpleStmt>(start, NK::Break));
    case Kw::continue_:
      if (!loop_depth_) fail("'continue' not properly in loop");
      next();
      return fin(mk<SimpleStmt>(start, NK::Continue));
    case Kw::return_: {
      if (!func_depth_) fail("'return' outside function");
      next();
      auto* s = mk<ReturnStmt>(start);
      if (starts_expression()) s->value = star_expressions();
      return fin(s);
    }
    case Kw::raise_: {
      next();
      auto* s = mk<RaiseStmt>(start);
      if (starts_expression()) {
        s->exc = expression();
        if (accept_kw(Kw::from_)) s->cause = expression();
      }
      return fin(s);
    }
    case Kw::global_:
    case Kw::nonlocal_: {
      next();
      auto* s = mk<NamesStmt>(start, start.text == "global" ? NK::Global : NK::Nonlocal);
      do s->names.push_back(expect_name());
      while (accept_op(Op::Comma));
      return fin(s);
    }
    case Kw::del_: {
      next();
      auto* s = mk<DeleteStmt>(start);
      do {
        Expr* t = target_list(false);
        check_target(t, "del");
        s->targets.push_back(t);
      } while (accept_op(Op::Comma) && starts_expression());
      return fin(s);
    }
    case Kw::assert_: {
      next();
      auto* s = mk<AssertStmt>(start);
      s->test = expression();
      if (accept_op(Op::Comma)) s->msg = expression();
      return fin(s);
    }
    case Kw::import_:
      return import_stmt();
    case Kw::from_:
      return from_import_stmt();
    default:
      break;
  }
  Expr* e = at_kw(Kw::yield_) ? yield_expr() : star_expressions();
  if (at_op(Op::Equal)) {
    auto* s = mk<AssignStmt>(start);
    s->targets.push_back(e);
    while (accept_op(Op::Equal)) {
      Expr* v = at_kw(Kw::yield_) ? yield_expr() : star_expressions();
      if (at_op(Op::Equal))
        s->targets.push_back(v);
      else
        s->value = v;
    }
    for (Expr* t : s->targets) check_target(t, "assign");
    return fin(s);
  }
  BinKind bk;
  if (cur().kind == Tok::Op && aug_op(cur().op, &bk)) {
    check_target(e, "augmented");
    next();
    Expr* v = at_kw(Kw::yield_) ? yield_expr() : star_expressions();
    return fin(mk<AugAssignStmt>(start, e, bk, v));
  }
  if (at_op(Op::Colon)) {
    if (e->kind != NK::Name && e->kind != NK::Attribute && e->kind != NK::Subscript) {
      if (e->kind == NK::Tuple) fail_at("only single target (not tuple) can be annotated", e->line, e->col);
      if (e->kind == NK::List) fail_at("only single target (not list) can be annotated", e->line, e->col);
      fail_at("illegal target for annotation", e->line, e->col);
    }
    next();
    auto* s = mk<AnnAssignStmt>(start);
    s->target = e;
    s->annotation = expression();
    if (accept_op(Op::Equal)) s->value = at_kw(Kw::yield_) ? yield_expr() : star_expressions();
    return fin(s);
  }
  return fin(mk<ExprStmt>(start, e));
}

std::unique_ptr<ModuleAst> parse_module(std::string source, const std::string& file) {
  auto m = std::make_unique<ModuleAst>();
  m->file = file;
  m->source = std::move(source);
  std::vector<Token> toks, partial;
  try {
    toks = tokenize(m->source, m->file, {}, &partial);
  } catch (Error& lex_error) {
    // CPython tokenises as it parses: a syntax error before the tokeniser's error is the one it reports
    // (e.g. an unexpected indent above an unterminated string).
    if (partial.empty() || !lex_error.loc) throw;
    const SourceLoc at = *lex_error.loc;
    Token end;
    end.pos = end.end = Pos{at.line, at.col};
    partial.push_back(end);
    try {
      ModuleAst scratch;
      scratch.file = m->file;
      scratch.source = m->source;
      Parser ps(scratch, scratch.file, std::move(partial));
      ps.parse_file(scratch.body);
    } catch (Error& e) {
      if (e.loc && e.loc->line < at.line) throw;  // an earlier line (within one line the tokeniser's limits win)
    }
    throw;
  }
  Parser ps(*m, m->file, std::move(toks));
  ps.parse_file(m->body);
  return m;
}

Expr* parse_expression(ModuleAst& m, std::string_view src, const std::string& file, Pos start) {
  LexOptions o;
  o.start = start;
  o.implicit_paren = true;
  Parser ps(m, file, tokenize(src, file, o));
  return ps.parse_lone_expression();
}

}  // namespace nkisim::frontend
