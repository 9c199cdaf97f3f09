// interp.h - the compile-time evaluator: runs the kernel's meta-program (DESIGN decision 6).
// Loops are unrolled, calls inlined, ifs resolved; nki.isa calls append ops to the Kernel IR.
#pragma once
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/value.h"
#include "ir/kernel.h"

namespace nkisim::frontend {

class Interp;

struct ModuleObj : Object {
  std::string name;  // dotted module name
  std::string path;  // source file ("" for built-in modules)
  SymMap globals;
  std::unique_ptr<ModuleAst> ast;
  bool initialized = false;
  bool legacy = false;  // neuronxcc.nki.*: rejected inside current-API (nki.jit) kernels
  bool open = false;    // missing attributes are opaque host values (numpy's unsupported parts)
  explicit ModuleObj(std::string n) : Object(VK::Module), name(std::move(n)) {}
  ~ModuleObj() override;
  std::string repr() const override { return "<module '" + name + "'>"; }
};

struct ClassObj;
struct FrameObj : Object {
  Value parent;  // lexically enclosing function frame (class bodies are skipped), or None
  std::vector<Value> slots;
  ModuleObj* module = nullptr;
  ClassObj* cls = nullptr;  // class body frames: the class being defined
  Object* func = nullptr;   // the FunctionObj being run (for super())
  bool is_module = false;   // module-level code
  FrameObj() : Object(VK::Frame) {}
};

struct FunctionObj : Object {
  const FuncCode* code;
  Value closure;                // defining frame (Frame) or None
  std::vector<Value> defaults;  // per parameter; Unbound = no default
  Value module;                 // ModuleObj
  Value owner_class;            // class whose body defined it (for super())
  bool jit = false;             // decorated with @nki.jit
  bool legacy_jit = false;      // ... with the legacy neuronxcc.nki.jit
  std::string platform_target;  // the decorator's platform_target= (trn1|trn2|trn3), empty if none
  FunctionObj(const FuncCode* c) : Object(VK::Function), code(c) {}
  std::string repr() const override { return "<function " + code->qualname + ">"; }
};

struct CallArgs {
  Value* pos = nullptr;
  size_t npos = 0;
  std::pair<Sym, Value>* kw = nullptr;
  size_t nkw = 0;
  const Node* site = nullptr;  // the call expression (for error locations)
};

struct BuiltinObj;
using BuiltinFn = Value (*)(Interp&, const BuiltinObj&, CallArgs&);
struct BuiltinObj : Object {
  std::string name;
  BuiltinFn fn;
  Value self;        // bound receiver (methods of built-in types, nki callables)
  int64_t data = 0;  // extra selector
  BuiltinObj(std::string n, BuiltinFn f, Value s = Value(), int64_t d = 0)
      : Object(VK::Builtin), name(std::move(n)), fn(f), self(std::move(s)), data(d) {}
  std::string repr() const override { return "<built-in function " + name + ">"; }
};

struct BoundMethodObj : Object {
  Value self, func;
  BoundMethodObj(Value s, Value f) : Object(VK::BoundMethod), self(std::move(s)), func(std::move(f)) {}
  std::string repr() const override { return "<bound method>"; }
};

struct ClassObj : Object {
  std::string name;
  std::vector<Value> bases;
  std::vector<ClassObj*> mro;  // self first
  SymMap attrs;
  std::vector<Sym> order;   // attribute definition order (enum members)
  std::vector<Sym> fields;  // annotated class-body names in order (dataclass fields)
  Value module;
  bool is_exception = false;
  bool dataclass = false;
  bool frozen = false;
  bool host_base = false;  // a base class is a host value (unittest.TestCase, torch.nn.Module): its attributes are too
  bool is_enum = false;
  bool is_nkiobject = false;
  bool builtin = false;  // defined by the front end itself (no_reorder, enum.auto, ...)
  // Instances usable in kernel code: NKIObject subclasses, Enums, exceptions and built-in classes.
  bool kernel_ok() const { return is_nkiobject || is_enum || is_exception || builtin; }
  explicit ClassObj(std::string n) : Object(VK::Class), name(std::move(n)) {}
  std::string repr() const override { return "<class '" + name + "'>"; }
  void set(Sym s, Value v) {
    auto [it, fresh] = attrs.try_emplace(s);
    if (fresh) order.push_back(s);
    it->second = std::move(v);
  }
  const Value* lookup(Sym s) const {
    for (ClassObj* c : mro) {
      auto it = c->attrs.find(s);
      if (it != c->attrs.end()) return &it->second;
    }
    return nullptr;
  }
  bool is_subclass_of(const ClassObj* other) const {
    for (ClassObj* c : mro)
      if (c == other) return true;
    return false;
  }
};

struct InstanceObj : Object {
  Value cls;
  SymMap attrs;
  explicit InstanceObj(Value c) : Object(VK::Instance), cls(std::move(c)) {}
  std::string type_name() const override { return cls.as<ClassObj>()->name; }
  std::string repr() const override { return "<" + cls.as<ClassObj>()->name + " object>"; }
};

// super(): attribute lookup continues in the MRO of type(self) after `cls`.
struct SuperObj : Object {
  Value cls, self;
  SuperObj(Value c, Value s) : Object(VK::Other), cls(std::move(c)), self(std::move(s)) {}
  std::string repr() const override { return "<super>"; }
};

// Compile-time limits: every one is a located error, never a hang or a stack overflow.
inline constexpr uint64_t kDefaultStepBudget = 100'000'000;       // ~1-2 s of evaluation
inline constexpr uint64_t kDefaultInstructionBudget = 2'000'000;  // emitted instructions (~2 KB each)
inline constexpr int kDefaultMaxFrames = 1000;                    // Python's default recursion limit
inline constexpr uint64_t kDefaultMemoryBudget = uint64_t(1) << 30;  // bytes of live compile-time values

struct InterpOptions {
  uint64_t step_budget = kDefaultStepBudget;                // statements, loop iterations and calls
  uint64_t instruction_budget = kDefaultInstructionBudget;  // ops appended to `kernel`
  int max_frames = kDefaultMaxFrames;                       // Python call depth
  uint64_t memory_budget = kDefaultMemoryBudget;            // Heap::budget: live strings, lists, dicts, arrays
  std::vector<std::string> include_dirs;
  // Top-level packages importable by name only: a package folder (`.../src/nkilib`) or a module file
  // (`.../util.py`); nothing else in their parent folders becomes importable.
  std::vector<std::string> import_packages;
  std::string* print_sink = nullptr;  // print() output goes here instead of stderr (tests)
  // Set by another thread (the Python package on Ctrl-C): evaluation stops with Error("interrupted").
  const std::atomic<bool>* interrupt = nullptr;
  // Bytes of C++ stack the evaluator may use (0: half the thread's RLIMIT_STACK, at most 32 MiB). Deeper
  // nesting is a located error, never a stack overflow.
  size_t stack_bytes = 0;
};

enum class Flow : uint8_t { Normal, Break, Continue, Return };

struct NkiState;  // nki.* namespaces and the kernel under construction (nki_*.cpp)

class Interp {
 public:
  explicit Interp(InterpOptions opts);
  ~Interp();

  // Loads (parses, resolves, executes) a module from a file or from source text.
  Value load_main(const std::string& path, std::string source, const std::string& module_name);
  Value import_module(const std::string& dotted, const Node* at, ModuleObj* from, int level);

  // Virtual files (ndarray.h): what np.save wrote, by name; never host files.
  std::unordered_map<std::string, Value> virtual_files;
  int virtual_file_count = 0;

  // --- evaluation
  Value eval(const Expr* e, FrameObj* f);
  Flow exec_body(const Body& body, FrameObj* f);
  bool condition(const Expr* test, FrameObj* f);  // truthy(eval(test)), errors located at the test
  Flow exec(const Stmt* s, FrameObj* f);
  void assign(const Expr* target, Value v, FrameObj* f);

  // --- protocols
  Value call(const Value& fn, CallArgs& a);
  Value call0(const Value& fn, const Node* site);
  Value call_function(FunctionObj* fn, CallArgs& a);
  Value get_attr(const Value& obj, Sym name);
  bool try_get_attr(const Value& obj, Sym name, Value* out);
  void set_attr(const Value& obj, Sym name, Value v);
  Value get_item(const Value& obj, const Value& key);
  void set_item(const Value& obj, const Value& key, Value v);
  void del_item(const Value& obj, const Value& key);
  Value binop(BinKind k, const Value& a, const Value& b);
  Value unary(UnaryKind k, const Value& v);
  bool compare(CmpKind k, const Value& a, const Value& b);
  bool equal(const Value& a, const Value& b);
  bool contains(const Value& container, const Value& item);
  bool truthy(const Value& v);
  std::string repr(const Value& v);
  std::string str(const Value& v);
  std::string format(const Value& v, const std::string& spec);
  std::vector<Value> to_vector(const Value& iterable);  // materialises any iterable
  int64_t to_index(const Value& v, const char* what);
  bool isinstance(const Value& v, const Value& cls);
  Value make_instance(ClassObj* cls, CallArgs& a);
  // A host-only (opaque) value was used where a compile-time value is needed: HostValueError. Module-level
  // statements that fail this way leave their names bound to opaque values instead of stopping the import.
  [[noreturn]] void opaque_used(const Value& v);
  [[noreturn]] void reject_legacy(const std::string& what);  // neuronxcc.nki.* inside a current-API kernel
  [[noreturn]] void reject_class(const ClassObj* cls, const char* what);  // "classes must inherit NKIObject"

  // --- locations and diagnostics
  SourceLoc loc_of(const Node* n) const;  // in the module currently executing
  SourceLoc loc_in(const ModuleObj* m, const Node* n) const;
  std::vector<SourceLoc> call_chain() const;  // enclosing call sites, innermost first
  const Node* current_site() const { return cur_site_; }
  // While it lives, instructions are located at `n`: Python operators on tiles (`t * 2.0 + t`, `acc += ...`,
  // `x[k] = v`) emit at their own expression, not at the enclosing call.
  struct SiteScope {
    SiteScope(Interp& in, const Node* n) : in_(in), saved_(in.cur_site_) { in.cur_site_ = n; }
    ~SiteScope() { in_.cur_site_ = saved_; }
    SiteScope(const SiteScope&) = delete;
    SiteScope& operator=(const SiteScope&) = delete;
    Interp& in_;
    const Node* saved_;
  };
  void step();  // counts one evaluation step against the budget
  // Checks the emitted-instruction budget (after every built-in call, which is where ops are emitted).
  void check_instruction_budget() {
    if (kernel.ops.size() > opts.instruction_budget) instruction_budget_exceeded();
  }
  void print_line(const std::string& text, const Node* site);
  [[noreturn]] void fail(const std::string& msg, const Node* at);

  // --- helpers for built-ins
  Value builtin(const char* name, BuiltinFn fn, Value self = Value(), int64_t data = 0);
  Value new_module(const std::string& name);
  void set_global(ModuleObj* m, const char* name, Value v);
  ClassObj* exception_class(const std::string& name);
  Value exception_value(const PyError& e);  // the exception instance (made for errors raised by built-ins)
  Value parse_literal(const std::string& text, const std::string& what);  // --arg values

  InterpOptions opts;
  FrameObj* current_frame = nullptr;  // the innermost Python function frame (for super())
  Value builtins;                     // ModuleObj of built-in names
  Value ret_value;                    // set by `return`
  std::unique_ptr<NkiState> nki;
  ir::Kernel kernel;
  // True while the kernel function runs (not while modules are imported): NKI's restrictions on kernel code
  // (no `global`, classes must inherit NKIObject, `is` only with None, ...) apply.
  bool in_kernel = false;
  std::vector<Value> loaded_modules;  // source modules (keep ASTs alive)
  std::vector<Value> raised;          // exception instances thrown by `raise` (see PyError::exc)
  SymMap module_cache;                // dotted name (interned) -> module

 private:
  friend struct ModuleScope;
  Value eval_inner(const Expr* e, FrameObj* f);
  Value eval_call(const CallExpr* c, FrameObj* f);
  Value eval_comp(const CompExpr* c, FrameObj* f);
  Value eval_fstring(const JoinedStrExpr* js, FrameObj* f);
  Value load_name(const NameExpr* n, FrameObj* f);
  void store_name(const NameExpr* n, Value v, FrameObj* f);
  void delete_name(const NameExpr* n, FrameObj* f);
  Value make_function(const FuncCode* code, FrameObj* f, const std::vector<Value>& defaults);
  Flow exec_try(const struct TryStmt* t, FrameObj* f);
  Flow exec_with(const struct WithStmt* w, FrameObj* f);
  Flow exec_with_items(const struct WithStmt* w, size_t i, FrameObj* f);
  void exec_class(const struct ClassDefStmt* c, FrameObj* f);
  void exec_import(const Stmt* s, FrameObj* f);
  void check_stack() {  // a located error instead of a C++ stack overflow
    char probe;
    size_t used = size_t(stack_base_ > &probe ? stack_base_ - &probe : &probe - stack_base_);
    if (used > stack_limit_) stack_exhausted();
  }
  [[noreturn]] void stack_exhausted();
  [[noreturn]] void instruction_budget_exceeded();
  Value run_module(ModuleObj* m);
  Value load_source_module(const std::string& name, const std::filesystem::path& file, std::string source,
                           const Value& parent, const std::string& part);

  Interp* saved_interp_ = nullptr;  // the thread's previous interpreter (see instance_hash)
  std::vector<PyError> handling_;  // exceptions whose except blocks are running (innermost last)
  uint64_t steps_ = 0;
  int frames_ = 0;
  char* stack_base_ = nullptr;
  size_t stack_limit_ = 0;
  const Node* cur_site_ = nullptr;
  ModuleObj* cur_module_ = nullptr;
  struct Site {
    const Node* node;
    ModuleObj* module;
  };
  std::vector<Site> sites_;
  Heap heap_;
  HeapScope heap_scope_;
};

// RAII: marks `m` as the module whose nodes are being evaluated.
struct ModuleScope {
  Interp& in;
  ModuleObj* saved;
  ModuleScope(Interp& i, ModuleObj* m);
  ~ModuleScope();
};

// Binding arguments of built-in functions: names in order; `npos_only` leading names are positional-only;
// required names without a value raise "f() missing required argument 'x'". Unknown keywords raise
// "f() got an unexpected keyword argument 'x'".
struct ParamSpec {
  const char* name;
  bool required = false;
  mutable Sym sym = 0;  // interned lazily
};
void bind_args(const char* fname, const ParamSpec* params, size_t n, CallArgs& a, Value* out);
void add_call_note(Error& e, const SourceLoc& site);
Value constant_value(const ConstantExpr* c);  // the value of a literal (interp_expr.cpp)
// Dataclasses: the fields of `cls` and its bases in definition order; the name of the marker value that
// dataclasses.field(default_factory=f) leaves as a field's default (its `self` is f).
std::vector<Sym> dataclass_fields(const ClassObj* cls);
inline constexpr const char* kDefaultFactory = "<default_factory>";  // the call-chain note of an error leaving a call

// The names statement `s` binds (assignment and loop targets, def, class, import, with ... as), nested
// blocks included.
void bound_names(const Stmt* s, std::vector<const NameExpr*>& out);

// Scope resolution (scope.cpp): annotates every Name of the module with its storage.
void resolve_module(ModuleAst& m);

void install_builtins(Interp& in);  // builtins.cpp: Python built-ins, math, typing, dataclasses, enum
void install_numpy(Interp& in);     // numpy_lite.cpp: numpy's dtypes and compile-time helpers
void install_nki(Interp& in);       // nki_lang.cpp: nki, nki.language, nki.isa (+ neuronxcc aliases)
// Attributes of built-in types (str/list/dict/... methods), methods.cpp. False if there is none.
bool builtin_type_attr(Interp& in, const Value& obj, Sym name, Value* out);
// Attributes of NKI values (tensors, dtypes, buffers, enums), nki_tensor.cpp. False if there is none.
bool nki_attr(Interp& in, const Value& obj, Sym name, Value* out);
Value nki_get_item(Interp& in, const Value& obj, const Value& key);  // tensor indexing
// Operators and calls on tiles and index tiles (nl_ops_fns.cpp): nl_operand(v) says whether v takes part.
bool nl_operand(const Value& v);
Value nl_binop(Interp& in, BinKind k, const Value& a, const Value& b);
Value nl_unary(Interp& in, UnaryKind k, const Value& v);
Value nl_compare(Interp& in, CmpKind k, const Value& a, const Value& b);
Value nl_augmented(Interp& in, BinKind k, const Value& cur, const Value& rhs);  // `tile op= rhs`, in place
void nl_set_item(Interp& in, const Value& tensor, const Value& key, Value v);   // `t[key] = v`
// `name = v`: v unchanged, or (nl.loop_reduce) the tile `old` after reducing into it (nl_ops_fns.cpp).
Value nl_assign_name(Interp& in, const Value& old, const std::string& name, Value v);
Value nl_call_op(Interp& in, int op, CallArgs& a);                             // nl.add(x, y), nl.exp(x), ...
Value index_get_item(Interp& in, const Value& obj, const Value& key);            // nl.arange(n)[:, None]
bool is_index(const Value& v);
// Fast path for `tensor[a:b, i, ...]` written literally: indexes without building slice objects.
Value nki_index_literal(Interp& in, const Value& tensor, const Expr* key, FrameObj* f);
// Python slice semantics: clamps to [0, len) and returns the element count.
int64_t slice_indices(Interp& in, const SliceObj* s, int64_t len, int64_t* start, int64_t* stop, int64_t* step);

}  // namespace nkisim::frontend
