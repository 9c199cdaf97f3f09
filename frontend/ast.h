// ast.h - the Python abstract syntax tree (with 1-based source spans) and scope annotations.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "frontend/sym.h"
#include "frontend/value.h"

namespace nkisim::frontend {

enum class NK : uint8_t {
  // expressions
  Name,
  Constant,
  JoinedStr,
  FormattedValue,
  Tuple,
  List,
  Set,
  Dict,
  BinOp,
  UnaryOp,
  BoolOp,
  Compare,
  Call,
  Attribute,
  Subscript,
  Slice,
  IfExp,
  Lambda,
  ListComp,
  SetComp,
  GeneratorExp,
  DictComp,
  Starred,
  NamedExpr,
  Yield,
  // statements
  FunctionDef,
  ClassDef,
  Return,
  Delete,
  Assign,
  AugAssign,
  AnnAssign,
  For,
  While,
  If,
  With,
  Raise,
  Try,
  Assert,
  Import,
  ImportFrom,
  Global,
  Nonlocal,
  ExprStmt,
  Pass,
  Break,
  Continue,
  Match  // parsed (host code); executing it is an error
};

struct Node {
  NK kind;
  uint32_t line = 0, col = 0, end_line = 0, end_col = 0;
  explicit Node(NK k) : kind(k) {}
  virtual ~Node() = default;
};
using Expr = Node;
using Stmt = Node;
using Body = std::vector<Stmt*>;

enum class BinKind : uint8_t { Add, Sub, Mul, MatMul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd };
enum class UnaryKind : uint8_t { Not, Neg, Pos, Invert };
enum class CmpKind : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
const char* bin_symbol(BinKind k);

// Where a Name lives, decided by the resolver (scope.cpp).
enum class Where : uint8_t { Unresolved, Local, Free, Global, ClassNs };

struct NameExpr : Node {
  Sym id;
  Where where = Where::Unresolved;
  Where fallback = Where::Global;  // ClassNs loads that miss the class namespace
  uint16_t depth = 0;              // Free: frames to walk up
  uint32_t slot = 0;
  NameExpr(Sym s) : Node(NK::Name), id(s) {}
};

enum class ConstKind : uint8_t { None, True, False, Ellipsis, Int, Float, Imag, Str, Bytes };
struct ConstantExpr : Node {
  ConstKind ck = ConstKind::None;
  bool overflow = false;  // integer literal beyond 64 bits
  int64_t ival = 0;
  double fval = 0;
  std::string sval;  // Str/Bytes value; Int overflow: the literal text
  mutable Value cache;
  ConstantExpr() : Node(NK::Constant) {}
};
struct JoinedStrExpr : Node {  // f-string: Constant(Str) and FormattedValue parts
  std::vector<Expr*> parts;
  JoinedStrExpr() : Node(NK::JoinedStr) {}
};
struct FormattedValueExpr : Node {
  Expr* value = nullptr;
  char conversion = 0;          // 0, 's', 'r', 'a'
  Expr* format_spec = nullptr;  // JoinedStr or null
  FormattedValueExpr() : Node(NK::FormattedValue) {}
};
struct SeqExpr : Node {  // Tuple, List, Set
  std::vector<Expr*> elts;
  explicit SeqExpr(NK k) : Node(k) {}
};
struct DictExpr : Node {
  std::vector<Expr*> keys;  // null key = `**value`
  std::vector<Expr*> values;
  DictExpr() : Node(NK::Dict) {}
};
struct BinOpExpr : Node {
  BinKind op;
  Expr *left, *right;
  BinOpExpr(BinKind o, Expr* l, Expr* r) : Node(NK::BinOp), op(o), left(l), right(r) {}
};
struct UnaryOpExpr : Node {
  UnaryKind op;
  Expr* operand;
  UnaryOpExpr(UnaryKind o, Expr* e) : Node(NK::UnaryOp), op(o), operand(e) {}
};
struct BoolOpExpr : Node {
  bool is_and;
  std::vector<Expr*> values;
  explicit BoolOpExpr(bool a) : Node(NK::BoolOp), is_and(a) {}
};
struct CompareExpr : Node {
  Expr* left = nullptr;
  std::vector<CmpKind> ops;
  std::vector<Expr*> comparators;
  CompareExpr() : Node(NK::Compare) {}
};
struct Keyword {
  Sym arg = 0;  // 0 = `**value`
  Expr* value = nullptr;
  uint32_t line = 0, col = 0;
};
struct CallExpr : Node {
  Expr* func = nullptr;
  std::vector<Expr*> args;  // may contain Starred
  std::vector<Keyword> keywords;
  bool simple = true;  // no *args / **kwargs
  CallExpr() : Node(NK::Call) {}
};
struct AttributeExpr : Node {
  Expr* value;
  Sym attr;
  AttributeExpr(Expr* v, Sym a) : Node(NK::Attribute), value(v), attr(a) {}
};
struct SubscriptExpr : Node {
  Expr *value, *slice;
  SubscriptExpr(Expr* v, Expr* s) : Node(NK::Subscript), value(v), slice(s) {}
};
struct SliceExpr : Node {
  Expr *lower = nullptr, *upper = nullptr, *step = nullptr;
  SliceExpr() : Node(NK::Slice) {}
};
struct IfExpExpr : Node {
  Expr *test, *body, *orelse;
  IfExpExpr(Expr* t, Expr* b, Expr* o) : Node(NK::IfExp), test(t), body(b), orelse(o) {}
};
struct StarredExpr : Node {
  Expr* value;
  explicit StarredExpr(Expr* v) : Node(NK::Starred), value(v) {}
};
struct NamedExprExpr : Node {
  NameExpr* target;
  Expr* value;
  NamedExprExpr(NameExpr* t, Expr* v) : Node(NK::NamedExpr), target(t), value(v) {}
};
struct YieldExpr : Node {
  Expr* value = nullptr;
  bool from = false;
  YieldExpr() : Node(NK::Yield) {}
};

// Scope data shared by functions, lambdas and comprehensions (filled by the resolver).
struct ScopeData {
  uint32_t num_slots = 0;
  std::vector<Sym> slot_names;
  const Node* global_decl = nullptr;  // the first `global` statement of a function (rejected in kernels)
};

enum class ParamKind : uint8_t { PosOnly, Normal, VarArgs, KwOnly, VarKw };
struct Param {
  Sym name = 0;
  ParamKind kind = ParamKind::Normal;
  Expr* default_ = nullptr;
  Expr* annotation = nullptr;
  uint32_t line = 0, col = 0;
};
struct FuncCode {  // a def or lambda body; params occupy slots 0..params.size()-1
  Sym name = 0;
  std::string qualname;
  std::vector<Param> params;
  Body body;                    // def
  Expr* lambda_body = nullptr;  // lambda
  ScopeData scope;
  bool has_yield = false;
  bool is_async = false;  // async def (parsed for host code; calling it is an error)
  uint32_t line = 0, col = 0;
};
struct LambdaExpr : Node {
  FuncCode* code;
  explicit LambdaExpr(FuncCode* c) : Node(NK::Lambda), code(c) {}
};
struct Comprehension {
  Expr* target = nullptr;
  Expr* iter = nullptr;
  std::vector<Expr*> ifs;
};
struct CompExpr : Node {  // ListComp, SetComp, GeneratorExp, DictComp
  Expr* elt = nullptr;    // DictComp: key
  Expr* value = nullptr;  // DictComp only
  std::vector<Comprehension> gens;
  ScopeData scope;
  explicit CompExpr(NK k) : Node(k) {}
};

// Statements.
struct FunctionDefStmt : Node {
  NameExpr* target = nullptr;  // the bound name
  std::vector<Expr*> decorators;
  FuncCode* code = nullptr;
  Expr* returns = nullptr;
  FunctionDefStmt() : Node(NK::FunctionDef) {}
};
struct ClassDefStmt : Node {
  Sym name = 0;
  NameExpr* target = nullptr;  // the bound name
  std::vector<Expr*> decorators;
  std::vector<Expr*> bases;
  std::vector<Keyword> keywords;
  Body body;
  ClassDefStmt() : Node(NK::ClassDef) {}
};
struct ReturnStmt : Node {
  Expr* value = nullptr;
  ReturnStmt() : Node(NK::Return) {}
};
struct DeleteStmt : Node {
  std::vector<Expr*> targets;
  DeleteStmt() : Node(NK::Delete) {}
};
struct AssignStmt : Node {
  std::vector<Expr*> targets;
  Expr* value = nullptr;
  AssignStmt() : Node(NK::Assign) {}
};
struct AugAssignStmt : Node {
  Expr* target;
  BinKind op;
  Expr* value;
  AugAssignStmt(Expr* t, BinKind o, Expr* v) : Node(NK::AugAssign), target(t), op(o), value(v) {}
};
struct AnnAssignStmt : Node {
  Expr* target = nullptr;
  Expr* annotation = nullptr;
  Expr* value = nullptr;
  AnnAssignStmt() : Node(NK::AnnAssign) {}
};
struct ForStmt : Node {
  Expr* target = nullptr;
  Expr* iter = nullptr;
  Body body, orelse;
  ForStmt() : Node(NK::For) {}
};
struct WhileStmt : Node {
  Expr* test = nullptr;
  Body body, orelse;
  WhileStmt() : Node(NK::While) {}
};
struct IfStmt : Node {
  Expr* test = nullptr;
  Body body, orelse;
  IfStmt() : Node(NK::If) {}
};
struct WithItem {
  Expr* context = nullptr;
  Expr* vars = nullptr;
};
struct WithStmt : Node {
  std::vector<WithItem> items;
  Body body;
  WithStmt() : Node(NK::With) {}
};
struct RaiseStmt : Node {
  Expr* exc = nullptr;
  Expr* cause = nullptr;
  RaiseStmt() : Node(NK::Raise) {}
};
struct ExceptHandler {
  Expr* type = nullptr;
  NameExpr* name = nullptr;
  Body body;
  uint32_t line = 0, col = 0;
};
struct TryStmt : Node {
  Body body;
  std::vector<ExceptHandler> handlers;
  Body orelse, finalbody;
  TryStmt() : Node(NK::Try) {}
};
struct AssertStmt : Node {
  Expr* test = nullptr;
  Expr* msg = nullptr;
  AssertStmt() : Node(NK::Assert) {}
};
struct Alias {
  std::string name;            // dotted module name (import) or attribute name (from-import)
  NameExpr* target = nullptr;  // the bound name (asname or first component)
  uint32_t line = 0, col = 0;
};
struct ImportStmt : Node {
  std::vector<Alias> names;
  ImportStmt() : Node(NK::Import) {}
};
struct ImportFromStmt : Node {
  std::string module;  // may be empty for `from . import x`
  int level = 0;
  bool star = false;
  std::vector<Alias> names;
  ImportFromStmt() : Node(NK::ImportFrom) {}
};
struct NamesStmt : Node {  // Global, Nonlocal
  std::vector<Sym> names;
  explicit NamesStmt(NK k) : Node(k) {}
};
struct ExprStmt : Node {
  Expr* value;
  explicit ExprStmt(Expr* v) : Node(NK::ExprStmt), value(v) {}
};
struct MatchStmt : Node {  // `match subject:` with its case blocks, kept only for their locations
  MatchStmt() : Node(NK::Match) {}
};
struct SimpleStmt : Node {  // Pass, Break, Continue
  explicit SimpleStmt(NK k) : Node(k) {}
};

// A parsed source file: owns every node.
struct ModuleAst {
  std::string file;
  std::string source;
  Body body;
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<std::unique_ptr<FuncCode>> codes;
  template <class T, class... A>
  T* make(A&&... a) {
    auto p = std::make_unique<T>(std::forward<A>(a)...);
    T* r = p.get();
    nodes.push_back(std::move(p));
    return r;
  }
  FuncCode* make_code() {
    codes.push_back(std::make_unique<FuncCode>());
    return codes.back().get();
  }
};

}  // namespace nkisim::frontend
