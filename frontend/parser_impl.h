// parser_impl.h - the recursive-descent parser shared by parser.cpp (statements) and parser_expr.cpp.
#pragma once
#include "frontend/parser.h"

namespace nkisim::frontend {

enum class Kw : uint8_t {
  None,
  False_,
  None_,
  True_,
  and_,
  as_,
  assert_,
  async_,
  await_,
  break_,
  class_,
  continue_,
  def_,
  del_,
  elif_,
  else_,
  except_,
  finally_,
  for_,
  from_,
  global_,
  if_,
  import_,
  in_,
  is_,
  lambda_,
  nonlocal_,
  not_,
  or_,
  pass_,
  raise_,
  return_,
  try_,
  while_,
  with_,
  yield_
};
Kw keyword_of(std::string_view s);

class Parser {
 public:
  Parser(ModuleAst& m, const std::string& file, std::vector<Token> toks, int depth = 0);
  void parse_file(Body& out);
  Expr* parse_lone_expression();  // star_expressions then EndMarker

  // --- statements (parser.cpp)
  void statement(Body& out);
  void simple_stmts(Body& out);
  Stmt* small_stmt();
  void block(Body& out, const std::string& what, uint32_t line);
  Stmt* if_stmt(bool elif);
  Stmt* for_stmt();
  Stmt* while_stmt();
  Stmt* with_stmt();
  Stmt* match_stmt();
  Stmt* try_stmt();
  Stmt* funcdef(std::vector<Expr*> decorators, const Token& start);
  Stmt* classdef(std::vector<Expr*> decorators, const Token& start);
  Stmt* import_stmt();
  Stmt* from_import_stmt();
  void params(FuncCode* code, bool lambda);
  void check_target(Expr* e, const char* ctx);  // ctx: "assign", "del", "for", "augmented"

  // --- expressions (parser_expr.cpp)
  Expr* star_expressions();
  Expr* star_expression();
  Expr* expression();
  Expr* namedexpr_test();
  Expr* disjunction();
  Expr* conjunction();
  Expr* inversion();
  Expr* comparison();
  Expr* binary(int level);
  Expr* factor();
  Expr* power();
  Expr* primary();
  Expr* atom();
  Expr* lambda_expr();
  Expr* yield_expr();
  Expr* target_list(bool allow_tuple);  // for-loop / comprehension targets
  Expr* target_atom();
  void call_args(CallExpr* call);
  Expr* slices();
  Expr* one_slice();
  void comprehension(std::vector<Comprehension>& gens);
  Expr* strings();
  Expr* fstring(const Token& tok);
  JoinedStrExpr* fstring_parts(const Token& tok, std::string_view body, size_t& i, Pos& pos, bool in_spec, int nesting);

  // --- helpers
  const Token& cur() const { return toks_[p_]; }
  const Token& peek_tok(size_t k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  Kw kw() const { return kws_[p_]; }
  Kw kw_at(size_t k) const { return kws_[std::min(p_ + k, kws_.size() - 1)]; }
  bool at_op(Op o) const { return cur().kind == Tok::Op && cur().op == o; }
  bool at_kw(Kw k) const { return kws_[p_] == k; }
  const Token& next() { return toks_[p_ < toks_.size() - 1 ? p_++ : p_]; }
  bool accept_op(Op o) {
    if (at_op(o)) {
      next();
      return true;
    }
    return false;
  }
  bool accept_kw(Kw k) {
    if (at_kw(k)) {
      next();
      return true;
    }
    return false;
  }
  void expect_op(Op o, const char* msg = nullptr);
  void expect_kw(Kw k);
  Sym expect_name();
  bool at_name() const { return cur().kind == Tok::Name && kws_[p_] == Kw::None; }
  bool starts_expression() const;
  [[noreturn]] void fail(const std::string& msg) const;
  [[noreturn]] void fail_at(const std::string& msg, uint32_t line, uint32_t col) const;
  template <class T, class... A>
  T* mk(const Token& start, A&&... a) {
    T* n = m_.make<T>(std::forward<A>(a)...);
    n->line = start.pos.line;
    n->col = start.pos.col;
    return n;
  }
  template <class T>
  T* fin(T* n) {  // sets the end of the span to the end of the last consumed token
    const Token& last = toks_[p_ > 0 ? p_ - 1 : 0];
    n->end_line = last.end.line;
    n->end_col = last.end.col;
    return n;
  }
  template <class T>
  T* span_from(T* n, const Node* first) {
    n->line = first->line;
    n->col = first->col;
    return fin(n);
  }
  struct DepthGuard {
    Parser& ps;
    explicit DepthGuard(Parser& p) : ps(p) {
      if (++ps.depth_ > kMaxNesting)
        ps.fail("too deeply nested (more than " + std::to_string(kMaxNesting) + " levels)");
    }
    ~DepthGuard() { --ps.depth_; }
  };

  ModuleAst& m_;
  const std::string& file_;
  std::vector<Token> toks_;
  std::vector<Kw> kws_;
  size_t p_ = 0;
  int depth_ = 0;
  int func_depth_ = 0;  // inside a def (for `yield` bookkeeping)
  int loop_depth_ = 0;  // loops enclosing the current statement within the current function
  FuncCode* cur_code_ = nullptr;
  bool next_def_async_ = false;  // the def being parsed follows `async`
};

}  // namespace nkisim::frontend
