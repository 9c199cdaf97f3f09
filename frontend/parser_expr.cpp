// parser_expr.cpp - expressions: precedence climbing, atoms, calls, slices, displays, comprehensions,
// lambdas and f-strings (replacement fields are re-tokenised and parsed with their own positions).
#include "frontend/parser_impl.h"

namespace nkisim::frontend {

bool Parser::starts_expression() const {
  const Token& t = cur();
  switch (t.kind) {
    case Tok::Name: {
      Kw k = kw();
      return k == Kw::None || k == Kw::None_ || k == Kw::True_ || k == Kw::False_ || k == Kw::not_ ||
             k == Kw::lambda_ || k == Kw::await_ || k == Kw::yield_;
    }
    case Tok::Int:
    case Tok::Float:
    case Tok::Imag:
    case Tok::String:
      return true;
    case Tok::Op:
      return t.op == Op::LPar || t.op == Op::LSqb || t.op == Op::LBrace || t.op == Op::Minus || t.op == Op::Plus ||
             t.op == Op::Tilde || t.op == Op::Ellipsis || t.op == Op::Star;
    default:
      return false;
  }
}

Expr* Parser::parse_lone_expression() {
  Expr* e = star_expressions();
  if (cur().kind != Tok::EndMarker) fail("invalid syntax");
  return e;
}

Expr* Parser::star_expressions() {
  Expr* first = star_expression();
  if (!at_op(Op::Comma)) return first;
  auto* t = m_.make<SeqExpr>(NK::Tuple);
  t->elts.push_back(first);
  while (accept_op(Op::Comma)) {
    if (!starts_expression()) break;
    t->elts.push_back(star_expression());
  }
  return span_from(t, first);
}

Expr* Parser::star_expression() {
  if (at_op(Op::Star)) {
    const Token& t = next();
    Expr* v = binary(0);
    return fin(mk<StarredExpr>(t, v));
  }
  return expression();
}

Expr* Parser::expression() {
  DepthGuard g(*this);
  if (at_kw(Kw::lambda_)) return lambda_expr();
  Expr* body = disjunction();
  if (!at_kw(Kw::if_)) return body;
  next();
  Expr* test = disjunction();
  expect_kw(Kw::else_);
  Expr* orelse = expression();
  return span_from(m_.make<IfExpExpr>(test, body, orelse), body);
}

Expr* Parser::namedexpr_test() {
  if (at_name() && peek_tok().kind == Tok::Op && peek_tok().op == Op::ColonEqual) {
    const Token& t = next();
    auto* target = fin(mk<NameExpr>(t, intern(t.text)));
    next();
    Expr* v = expression();
    return fin(mk<NamedExprExpr>(t, target, v));
  }
  return expression();
}

Expr* Parser::disjunction() {
  Expr* first = conjunction();
  if (!at_kw(Kw::or_)) return first;
  auto* b = m_.make<BoolOpExpr>(false);
  b->values.push_back(first);
  while (accept_kw(Kw::or_)) b->values.push_back(conjunction());
  return span_from(b, first);
}

Expr* Parser::conjunction() {
  Expr* first = inversion();
  if (!at_kw(Kw::and_)) return first;
  auto* b = m_.make<BoolOpExpr>(true);
  b->values.push_back(first);
  while (accept_kw(Kw::and_)) b->values.push_back(inversion());
  return span_from(b, first);
}

Expr* Parser::inversion() {
  if (at_kw(Kw::not_)) {
    DepthGuard g(*this);
    const Token& t = next();
    Expr* e = inversion();
    return fin(mk<UnaryOpExpr>(t, UnaryKind::Not, e));
  }
  return comparison();
}

Expr* Parser::comparison() {
  Expr* first = binary(0);
  CompareExpr* c = nullptr;
  while (true) {
    CmpKind k;
    const Token& t = cur();
    if (t.kind == Tok::Op) {
      switch (t.op) {
        case Op::Less:
          k = CmpKind::Lt;
          break;
        case Op::Greater:
          k = CmpKind::Gt;
          break;
        case Op::EqEqual:
          k = CmpKind::Eq;
          break;
        case Op::NotEqual:
          k = CmpKind::NotEq;
          break;
        case Op::LessEqual:
          k = CmpKind::LtE;
          break;
        case Op::GreaterEqual:
          k = CmpKind::GtE;
          break;
        default:
          goto done;
      }
      next();
    } else if (at_kw(Kw::in_)) {
      k = CmpKind::In;
      next();
    } else if (at_kw(Kw::not_) && kw_at(1) == Kw::in_) {
      k = CmpKind::NotIn;
      next();
      next();
    } else if (at_kw(Kw::is_)) {
      next();
      k = accept_kw(Kw::not_) ? CmpKind::IsNot : CmpKind::Is;
    } else {
      break;
    }
    if (!c) {
      c = m_.make<CompareExpr>();
      c->left = first;
    }
    c->ops.push_back(k);
    c->comparators.push_back(binary(0));
  }
done:
  return c ? span_from(c, first) : first;
}

static bool bin_at_level(int level, Op op, BinKind* k) {
  switch (level) {
    case 0:
      if (op == Op::VBar) {
        *k = BinKind::BitOr;
        return true;
      }
      return false;
    case 1:
      if (op == Op::Circumflex) {
        *k = BinKind::BitXor;
        return true;
      }
      return false;
    case 2:
      if (op == Op::Amper) {
        *k = BinKind::BitAnd;
        return true;
      }
      return false;
    case 3:
      if (op == Op::LeftShift) {
        *k = BinKind::LShift;
        return true;
      }
      if (op == Op::RightShift) {
        *k = BinKind::RShift;
        return true;
      }
      return false;
    case 4:
      if (op == Op::Plus) {
        *k = BinKind::Add;
        return true;
      }
      if (op == Op::Minus) {
        *k = BinKind::Sub;
        return true;
      }
      return false;
    case 5:
      switch (op) {
        case Op::Star:
          *k = BinKind::Mul;
          return true;
        case Op::Slash:
          *k = BinKind::Div;
          return true;
        case Op::DoubleSlash:
          *k = BinKind::FloorDiv;
          return true;
        case Op::Percent:
          *k = BinKind::Mod;
          return true;
        case Op::At:
          *k = BinKind::MatMul;
          return true;
        default:
          return false;
      }
    default:
      return false;
  }
}

Expr* Parser::binary(int level) {
  if (level == 6) return factor();
  Expr* left = binary(level + 1);
  BinKind k;
  while (cur().kind == Tok::Op && bin_at_level(level, cur().op, &k)) {
    next();
    Expr* right = binary(level + 1);
    left = span_from(m_.make<BinOpExpr>(k, left, right), left);
  }
  return left;
}

Expr* Parser::factor() {
  if (cur().kind == Tok::Op && (cur().op == Op::Minus || cur().op == Op::Plus || cur().op == Op::Tilde)) {
    DepthGuard g(*this);
    const Token& t = next();
    UnaryKind k = t.op == Op::Minus ? UnaryKind::Neg : t.op == Op::Plus ? UnaryKind::Pos : UnaryKind::Invert;
    Expr* e = factor();
    // -9223372036854775808 is the one literal that only fits after negation.
    if (k == UnaryKind::Neg && e->kind == NK::Constant) {
      auto* c = static_cast<ConstantExpr*>(e);
      if (c->ck == ConstKind::Int && c->overflow && c->sval == "9223372036854775808") {
        c->overflow = false;
        c->ival = INT64_MIN;
        c->line = t.pos.line;
        c->col = t.pos.col;
        return c;
      }
    }
    return fin(mk<UnaryOpExpr>(t, k, e));
  }
  return power();
}

Expr* Parser::power() {
  if (at_kw(Kw::await_)) {  // only valid in async functions, which are never run: parsed as a yield
    if (!cur_code_ || !cur_code_->is_async) fail("'await' outside async function");
    const Token& t = next();
    auto* y = mk<YieldExpr>(t);
    y->value = primary();
    return fin(y);
  }
  Expr* base = primary();
  if (accept_op(Op::DoubleStar)) {
    DepthGuard g(*this);
    Expr* exp = factor();
    return span_from(m_.make<BinOpExpr>(BinKind::Pow, base, exp), base);
  }
  return base;
}

Expr* Parser::primary() {
  Expr* e = atom();
  while (true) {
    if (accept_op(Op::Dot)) {
      Sym a = expect_name();
      e = span_from(m_.make<AttributeExpr>(e, a), e);
    } else if (at_op(Op::LPar)) {
      next();
      auto* c = m_.make<CallExpr>();
      c->func = e;
      call_args(c);
      e = span_from(c, e);
    } else if (at_op(Op::LSqb)) {
      next();
      Expr* s = slices();
      expect_op(Op::RSqb);
      e = span_from(m_.make<SubscriptExpr>(e, s), e);
    } else {
      return e;
    }
  }
}

void Parser::call_args(CallExpr* call) {
  bool seen_kw = false, seen_kwunpack = false;
  while (!at_op(Op::RPar)) {
    const Token& t = cur();
    if (accept_op(Op::Star)) {
      if (seen_kwunpack)
        fail_at("iterable argument unpacking follows keyword argument unpacking", t.pos.line, t.pos.col);
      Expr* v = expression();
      call->args.push_back(fin(mk<StarredExpr>(t, v)));
      call->simple = false;
    } else if (accept_op(Op::DoubleStar)) {
      Keyword k;
      k.line = t.pos.line;
      k.col = t.pos.col;
      k.value = expression();
      call->keywords.push_back(k);
      call->simple = false;
      seen_kwunpack = true;
    } else if (at_name() && peek_tok().kind == Tok::Op && peek_tok().op == Op::Equal) {
      Keyword k;
      k.line = t.pos.line;
      k.col = t.pos.col;
      k.arg = intern(next().text);
      next();
      k.value = expression();
      for (auto& o : call->keywords)
        if (o.arg == k.arg) fail_at("keyword argument repeated: " + sym_str(k.arg), t.pos.line, t.pos.col);
      call->keywords.push_back(k);
      seen_kw = true;
    } else {
      Expr* e = namedexpr_test();
      if (at_kw(Kw::for_)) {
        auto* g = m_.make<CompExpr>(NK::GeneratorExp);
        g->elt = e;
        comprehension(g->gens);
        span_from(g, e);
        if (!call->args.empty() || !call->keywords.empty() || !at_op(Op::RPar))
          fail_at("Generator expression must be parenthesized", e->line, e->col);
        e = g;
      }
      if (seen_kwunpack) fail_at("positional argument follows keyword argument unpacking", e->line, e->col);
      if (seen_kw) fail_at("positional argument follows keyword argument", e->line, e->col);
      call->args.push_back(e);
    }
    if (!accept_op(Op::Comma)) break;
  }
  expect_op(Op::RPar);
}

Expr* Parser::slices() {
  Expr* first = one_slice();
  if (!at_op(Op::Comma)) return first;
  auto* t = m_.make<SeqExpr>(NK::Tuple);
  t->elts.push_back(first);
  while (accept_op(Op::Comma)) {
    if (at_op(Op::RSqb)) break;
    t->elts.push_back(one_slice());
  }
  return span_from(t, first);
}

Expr* Parser::one_slice() {
  const Token& t = cur();
  Expr* lower = nullptr;
  if (!at_op(Op::Colon)) {
    if (at_op(Op::Star)) return star_expression();
    lower = namedexpr_test();
    if (!at_op(Op::Colon)) return lower;
  }
  auto* s = mk<SliceExpr>(t);
  s->lower = lower;
  next();  // ':'
  auto ends = [&] { return at_op(Op::Colon) || at_op(Op::Comma) || at_op(Op::RSqb); };
  if (!ends()) s->upper = expression();
  if (accept_op(Op::Colon)) {
    if (!at_op(Op::Comma) && !at_op(Op::RSqb)) s->step = expression();
  }
  return fin(s);
}

void Parser::comprehension(std::vector<Comprehension>& gens) {
  while (at_kw(Kw::for_) || at_kw(Kw::async_)) {
    accept_kw(Kw::async_);  // async comprehensions only occur in async functions, which never run
    if (!at_kw(Kw::for_)) fail("invalid syntax");
    next();
    Comprehension c;
    c.target = target_list(true);
    check_target(c.target, "for");
    expect_kw(Kw::in_);
    c.iter = disjunction();
    while (accept_kw(Kw::if_)) c.ifs.push_back(disjunction());
    gens.push_back(c);
  }
}

Expr* Parser::target_atom() {
  if (at_op(Op::Star)) {
    const Token& t = next();
    Expr* v = primary();
    return fin(mk<StarredExpr>(t, v));
  }
  return primary();
}

Expr* Parser::target_list(bool allow_tuple) {
  Expr* first = target_atom();
  if (!allow_tuple || !at_op(Op::Comma)) return first;
  auto* t = m_.make<SeqExpr>(NK::Tuple);
  t->elts.push_back(first);
  while (accept_op(Op::Comma)) {
    if (!(at_name() || at_op(Op::LPar) || at_op(Op::LSqb) || at_op(Op::Star))) break;
    t->elts.push_back(target_atom());
  }
  return span_from(t, first);
}

Expr* Parser::lambda_expr() {
  const Token& t = next();
  FuncCode* code = m_.make_code();
  code->name = intern("<lambda>");
  code->qualname = "<lambda>";
  code->line = t.pos.line;
  code->col = t.pos.col;
  params(code, true);
  expect_op(Op::Colon);
  FuncCode* saved = cur_code_;  // a yield in the body makes the lambda (not its definer) a generator
  cur_code_ = code;
  ++func_depth_;
  code->lambda_body = expression();
  --func_depth_;
  cur_code_ = saved;
  return fin(mk<LambdaExpr>(t, code));
}

Expr* Parser::yield_expr() {
  if (!func_depth_) fail("'yield' outside function");
  const Token& t = next();
  auto* y = mk<YieldExpr>(t);
  if (cur_code_) cur_code_->has_yield = true;
  if (accept_kw(Kw::from_)) {
    y->from = true;
    y->value = expression();
  } else if (starts_expression()) {
    y->value = star_expressions();
  }
  return fin(y);
}

Expr* Parser::atom() {
  const Token& t = cur();
  switch (t.kind) {
    case Tok::Name: {
      Kw k = kw();
      if (k == Kw::None) {
        next();
        return fin(mk<NameExpr>(t, intern(t.text)));
      }
      auto* c = mk<ConstantExpr>(t);
      if (k == Kw::None_)
        c->ck = ConstKind::None;
      else if (k == Kw::True_)
        c->ck = ConstKind::True;
      else if (k == Kw::False_)
        c->ck = ConstKind::False;
      else
        fail("invalid syntax");
      next();
      return fin(c);
    }
    case Tok::Int:
    case Tok::Float:
    case Tok::Imag: {
      auto* c = mk<ConstantExpr>(t);
      c->ck = t.kind == Tok::Int ? ConstKind::Int : t.kind == Tok::Float ? ConstKind::Float : ConstKind::Imag;
      c->ival = t.ival;
      c->fval = t.fval;
      c->overflow = t.overflow;
      if (t.overflow) c->sval = t.text;
      next();
      return fin(c);
    }
    case Tok::String:
      return strings();
    case Tok::Op:
      break;
    default:
      fail("invalid syntax");
  }
  switch (t.op) {
    case Op::Ellipsis: {
      next();
      auto* c = mk<ConstantExpr>(t);
      c->ck = ConstKind::Ellipsis;
      return fin(c);
    }
    case Op::LPar: {
      next();
      if (accept_op(Op::RPar)) return fin(mk<SeqExpr>(t, NK::Tuple));
      if (at_kw(Kw::yield_)) {
        Expr* y = yield_expr();
        expect_op(Op::RPar);
        return y;
      }
      Expr* first = at_op(Op::Star) ? star_expression() : namedexpr_test();
      if (at_kw(Kw::for_) || at_kw(Kw::async_)) {
        auto* gx = mk<CompExpr>(t, NK::GeneratorExp);
        gx->elt = first;
        comprehension(gx->gens);
        expect_op(Op::RPar);
        return fin(gx);
      }
      if (accept_op(Op::RPar)) {
        if (first->kind == NK::Starred) fail_at("cannot use starred expression here", first->line, first->col);
        return first;
      }
      auto* tup = mk<SeqExpr>(t, NK::Tuple);
      tup->elts.push_back(first);
      while (accept_op(Op::Comma)) {
        if (at_op(Op::RPar)) break;
        tup->elts.push_back(at_op(Op::Star) ? star_expression() : namedexpr_test());
      }
      expect_op(Op::RPar);
      return fin(tup);
    }
    case Op::LSqb: {
      next();
      if (accept_op(Op::RSqb)) return fin(mk<SeqExpr>(t, NK::List));
      Expr* first = at_op(Op::Star) ? star_expression() : namedexpr_test();
      if (at_kw(Kw::for_) || at_kw(Kw::async_)) {
        auto* lc = mk<CompExpr>(t, NK::ListComp);
        lc->elt = first;
        comprehension(lc->gens);
        expect_op(Op::RSqb);
        return fin(lc);
      }
      auto* l = mk<SeqExpr>(t, NK::List);
      l->elts.push_back(first);
      while (accept_op(Op::Comma)) {
        if (at_op(Op::RSqb)) break;
        l->elts.push_back(at_op(Op::Star) ? star_expression() : namedexpr_test());
      }
      expect_op(Op::RSqb);
      return fin(l);
    }
    case Op::LBrace: {
      next();
      if (accept_op(Op::RBrace)) return fin(mk<DictExpr>(t));
      Expr* first = nullptr;
      bool is_dict = false;
      DictExpr* d = nullptr;
      if (accept_op(Op::DoubleStar)) {
        d = mk<DictExpr>(t);
        d->keys.push_back(nullptr);
        d->values.push_back(binary(0));
        is_dict = true;
      } else {
        first = at_op(Op::Star) ? star_expression() : namedexpr_test();
        if (accept_op(Op::Colon)) {
          Expr* v = expression();
          if (at_kw(Kw::for_) || at_kw(Kw::async_)) {
            auto* dc = mk<CompExpr>(t, NK::DictComp);
            dc->elt = first;
            dc->value = v;
            comprehension(dc->gens);
            expect_op(Op::RBrace);
            return fin(dc);
          }
          d = mk<DictExpr>(t);
          d->keys.push_back(first);
          d->values.push_back(v);
          is_dict = true;
        }
      }
      if (is_dict) {
        while (accept_op(Op::Comma)) {
          if (at_op(Op::RBrace)) break;
          if (accept_op(Op::DoubleStar)) {
            d->keys.push_back(nullptr);
            d->values.push_back(binary(0));
          } else {
            d->keys.push_back(expression());
            expect_op(Op::Colon);
            d->values.push_back(expression());
          }
        }
        expect_op(Op::RBrace);
        return fin(d);
      }
      if (at_kw(Kw::for_) || at_kw(Kw::async_)) {
        auto* sc = mk<CompExpr>(t, NK::SetComp);
        sc->elt = first;
        comprehension(sc->gens);
        expect_op(Op::RBrace);
        return fin(sc);
      }
      auto* s = mk<SeqExpr>(t, NK::Set);
      s->elts.push_back(first);
      while (accept_op(Op::Comma)) {
        if (at_op(Op::RBrace)) break;
        s->elts.push_back(at_op(Op::Star) ? star_expression() : namedexpr_test());
      }
      expect_op(Op::RBrace);
      return fin(s);
    }
    default:
      fail("invalid syntax");
  }
}

Expr* Parser::strings() {
  const Token& first = cur();
  bool bytes = first.str_flags & SF_Bytes;
  bool any_f = false;
  size_t b = p_;
  while (cur().kind == Tok::String) {
    const Token& t = next();
    if (bool(t.str_flags & SF_Bytes) != bytes) fail_at("cannot mix bytes and nonbytes literals", t.pos.line, t.pos.col);
    any_f |= bool(t.str_flags & SF_FString);
  }
  size_t e = p_;
  if (!any_f) {
    auto* c = mk<ConstantExpr>(first);
    c->ck = bytes ? ConstKind::Bytes : ConstKind::Str;
    for (size_t k = b; k < e; ++k) c->sval += toks_[k].text;
    return fin(c);
  }
  auto* js = mk<JoinedStrExpr>(first);
  for (size_t k = b; k < e; ++k) {
    const Token& t = toks_[k];
    if (t.str_flags & SF_FString) {
      Expr* part = fstring(t);
      for (Expr* x : static_cast<JoinedStrExpr*>(part)->parts) js->parts.push_back(x);
    } else if (!t.text.empty()) {
      auto* c = mk<ConstantExpr>(t);
      c->ck = ConstKind::Str;
      c->sval = t.text;
      c->end_line = t.end.line;
      c->end_col = t.end.col;
      js->parts.push_back(c);
    }
  }
  // Merge adjacent constant parts.
  std::vector<Expr*> merged;
  for (Expr* x : js->parts) {
    if (x->kind == NK::Constant && !merged.empty() && merged.back()->kind == NK::Constant) {
      static_cast<ConstantExpr*>(merged.back())->sval += static_cast<ConstantExpr*>(x)->sval;
      continue;
    }
    merged.push_back(x);
  }
  js->parts = std::move(merged);
  return fin(js);
}

Expr* Parser::fstring(const Token& tok) {
  size_t i = 0;
  Pos pos = tok.body;
  JoinedStrExpr* js = fstring_parts(tok, tok.text, i, pos, false, 0);
  return js;
}

JoinedStrExpr* Parser::fstring_parts(const Token& tok, std::string_view body, size_t& i, Pos& pos, bool in_spec,
                                     int nesting) {
  DepthGuard dg(*this);
  const bool raw = tok.str_flags & SF_Raw;
  auto* js = m_.make<JoinedStrExpr>();
  js->line = pos.line;
  js->col = pos.col;
  auto step = [&] {
    unsigned char c = body[i++];
    if (c == '\n' || (c == '\r' && (i >= body.size() || body[i] != '\n'))) {
      ++pos.line;
      pos.col = 1;
    } else if (c != '\r')
      ++pos.col;
  };
  std::string lit;
  Pos lit_pos = pos;
  size_t seg = i;
  Pos seg_pos = pos;
  auto flush_seg = [&] {
    if (i > seg) {
      std::string_view raw_seg = body.substr(seg, i - seg);
      lit += raw ? std::string(raw_seg) : decode_escapes(raw_seg, false, file_, seg_pos);
    }
  };
  auto flush_lit = [&] {
    if (!lit.empty()) {
      auto* c = m_.make<ConstantExpr>();
      c->ck = ConstKind::Str;
      c->sval = std::move(lit);
      c->line = lit_pos.line;
      c->col = lit_pos.col;
      js->parts.push_back(c);
    }
    lit.clear();
  };
  auto restart = [&] {
    seg = i;
    seg_pos = pos;
    if (lit.empty()) lit_pos = pos;
  };
  auto fail_here = [&](const std::string& msg, Pos p) { fail_at(msg, p.line, p.col); };
  while (i < body.size()) {
    char c = body[i];
    if (c == '\\' && !raw && i + 1 < body.size()) {
      step();
      step();
      continue;
    }
    if (c == '{') {
      if (!in_spec && i + 1 < body.size() && body[i + 1] == '{') {
        step();
        flush_seg();
        step();
        restart();
        continue;
      }
      flush_seg();
      flush_lit();
      if (nesting >= 2) fail_here("f-string: expressions nested too deeply", pos);
      Pos field_pos = pos;
      step();
      Pos expr_pos = pos;
      size_t eb = i;
      int depth = 0;
      while (true) {
        if (i >= body.size()) fail_here("f-string: expecting '}'", field_pos);
        char d = body[i];
        char nx = i + 1 < body.size() ? body[i + 1] : '\0';
        if (d == '\'' || d == '"') {
          bool triple = i + 2 < body.size() && body[i + 1] == d && body[i + 2] == d;
          Pos sp = pos;
          for (int k = 0; k < (triple ? 3 : 1); ++k) step();
          while (true) {
            if (i >= body.size()) fail_here("f-string: unterminated string", sp);
            if (body[i] == '\\') fail_here("f-string expression part cannot include a backslash", pos);
            if (body[i] == d && (!triple || (i + 2 < body.size() && body[i + 1] == d && body[i + 2] == d))) {
              for (int k = 0; k < (triple ? 3 : 1); ++k) step();
              break;
            }
            step();
          }
          continue;
        }
        if (d == '(' || d == '[' || d == '{')
          ++depth;
        else if (d == ')' || d == ']')
          --depth;
        else if (d == '}') {
          if (depth == 0) break;
          --depth;
        } else if (depth == 0 && d == '!' && nx != '=')
          break;
        else if (depth == 0 && d == ':')
          break;
        else if (depth == 0 && d == '=' && nx != '=' && i > eb &&
                 std::string_view("=!<>").find(body[i - 1]) == std::string_view::npos)
          break;
        else if (d == '\\')
          fail_here("f-string expression part cannot include a backslash", pos);
        else if (d == '#')
          fail_here("f-string expression part cannot include '#'", pos);
        step();
      }
      std::string_view etext = body.substr(eb, i - eb);
      if (etext.find_first_not_of(" \t\r\n\f") == std::string_view::npos)
        fail_here("f-string: empty expression not allowed", expr_pos);
      LexOptions lo;
      lo.start = expr_pos;
      lo.implicit_paren = true;
      Parser sub(m_, file_, tokenize(etext, file_, lo), depth_);
      sub.cur_code_ = cur_code_;
      Expr* value = sub.parse_lone_expression();
      auto* fv = m_.make<FormattedValueExpr>();
      fv->line = field_pos.line;
      fv->col = field_pos.col;
      fv->value = value;
      bool self_doc = false;
      if (body[i] == '=') {
        step();
        while (i < body.size() && (body[i] == ' ' || body[i] == '\t')) step();
        auto* c = m_.make<ConstantExpr>();
        c->ck = ConstKind::Str;
        c->sval = std::string(body.substr(eb, i - eb));
        c->line = expr_pos.line;
        c->col = expr_pos.col;
        js->parts.push_back(c);
        self_doc = true;
      }
      if (i < body.size() && body[i] == '!') {
        step();
        char conv = i < body.size() ? body[i] : '\0';
        if (conv != 's' && conv != 'r' && conv != 'a')
          fail_here("f-string: invalid conversion character: expected 's', 'r', or 'a'", pos);
        fv->conversion = conv;
        step();
      }
      if (i < body.size() && body[i] == ':') {
        step();
        fv->format_spec = fstring_parts(tok, body, i, pos, true, nesting + 1);
      }
      if (self_doc && !fv->conversion && !fv->format_spec) fv->conversion = 'r';
      if (i >= body.size() || body[i] != '}') fail_here("f-string: expecting '}'", field_pos);
      step();
      js->parts.push_back(fv);
      restart();
      continue;
    }
    if (c == '}') {
      if (in_spec) break;
      if (i + 1 < body.size() && body[i + 1] == '}') {
        step();
        flush_seg();
        step();
        restart();
        continue;
      }
      fail_here("f-string: single '}' is not allowed", pos);
    }
    step();
  }
  flush_seg();
  flush_lit();
  return js;
}

}  // namespace nkisim::frontend
