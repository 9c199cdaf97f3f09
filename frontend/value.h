// value.h - the compile-time Python value model: tagged values, refcounted heap objects, containers.
// Ints are 64-bit (overflow raises OverflowError); floats are doubles. Heap objects are refcounted and
// also tracked by the current Heap so reference cycles (closures <-> frames) are freed at teardown.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/sym.h"
#include "ir/kernel.h"
#include "isa/diagnostic.h"
#include "isa/dtype.h"

namespace nkisim::frontend {

enum class VK : uint8_t {
  Unbound,
  None,
  Bool,
  Int,
  Float,
  Ellipsis,
  DType,
  Buffer,
  NkiOp,
  Enum,  // inline values
  Str,
  Tuple,
  List,
  Dict,
  Set,
  Slice,
  Range,
  Function,
  Builtin,
  BoundMethod,
  Module,
  Class,
  Instance,
  Tensor,
  Opaque,
  Property,
  StaticMethod,
  ClassMethod,
  Frame,
  Other
};
const char* vk_type_name(VK k);  // Python type name: "int", "list", ...

struct Heap;
struct Object {
  uint32_t rc = 0;
  VK kind;
  Object* prev = nullptr;
  Object* next = nullptr;
  Heap* heap = nullptr;
  uint64_t charged = 0;  // bytes counted against the heap's compile-time memory budget (Heap::bytes)
  explicit Object(VK k);
  virtual ~Object();
  // Sets this object's share of Heap::bytes to `bytes` (its own size plus its payload's capacity); growing
  // past Heap::budget throws the budget error (check_heap_budget) and changes nothing.
  void account(uint64_t bytes);
  virtual std::string repr() const;       // repr() of kinds that value.cpp does not format itself
  virtual std::string type_name() const;  // Python type name (instances: their class name)
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
};

// Owns every object created while it is the current heap (see HeapScope); frees survivors (cycles) at
// destruction. Values must not outlive their heap.
struct Heap {
  Object* head = nullptr;
  size_t live = 0;
  // Compile-time memory (--max-compile-memory): the bytes the live objects account for (strings, lists,
  // tuples, dicts, sets, iterators and host ndarrays by their payload, every object by a fixed size), and the
  // most they may take.
  uint64_t bytes = 0;
  uint64_t budget = UINT64_MAX;
  ~Heap();  // frees every object still alive (sets tl_teardown while doing so)
};
// While alive, Value destructors do not free objects (use when destroying Value holders at teardown).
struct TeardownGuard {
  TeardownGuard();
  ~TeardownGuard();
  bool saved;
};
// Before an operation makes a value of `more` bytes: throws Error (unlocated; the evaluator locates it at the
// expression) when the current heap's live bytes plus `more` exceed its budget, naming --max-compile-memory.
void check_heap_budget(uint64_t more);
// a * b saturated at UINT64_MAX (sizes predicted from user-controlled counts).
inline uint64_t mul_sat(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
// Makes `h` the current thread's heap for its lifetime.
struct HeapScope {
  explicit HeapScope(Heap& h);
  ~HeapScope();
  Heap* saved;
};
extern thread_local Heap* tl_heap;
extern thread_local bool tl_teardown;

class Value {
 public:
  Value() : k_(VK::None) { u_.i = 0; }
  explicit Value(Object* o) : k_(o->kind) {
    u_.o = o;
    ++o->rc;
  }
  Value(const Value& v) : k_(v.k_), u_(v.u_) {
    if (is_heap()) ++u_.o->rc;
  }
  Value(Value&& v) noexcept : k_(v.k_), u_(v.u_) { v.k_ = VK::None; }
  Value& operator=(const Value& v) {
    if (v.is_heap()) ++v.u_.o->rc;
    release();
    k_ = v.k_;
    u_ = v.u_;
    return *this;
  }
  Value& operator=(Value&& v) noexcept {
    if (this != &v) {
      release();
      k_ = v.k_;
      u_ = v.u_;
      v.k_ = VK::None;
    }
    return *this;
  }
  ~Value() { release(); }

  static Value unbound() { return immediate(VK::Unbound, 0); }
  static Value none() { return Value(); }
  static Value boolean(bool b) { return immediate(VK::Bool, b); }
  static Value integer(int64_t i) { return immediate(VK::Int, i); }
  static Value floating(double f) {
    Value v;
    v.k_ = VK::Float;
    v.u_.f = f;
    return v;
  }
  static Value ellipsis() { return immediate(VK::Ellipsis, 0); }
  static Value dtype(isa::DType t) { return immediate(VK::DType, int64_t(t)); }
  static Value buffer(ir::Buffer b) { return immediate(VK::Buffer, int64_t(b)); }
  static Value nki_op(int index) { return immediate(VK::NkiOp, index); }
  static Value enum_val(int type, int value) { return immediate(VK::Enum, (int64_t(type) << 32) | uint32_t(value)); }

  VK kind() const { return k_; }
  bool is_heap() const { return k_ >= VK::Str; }
  bool is(VK k) const { return k_ == k; }
  bool is_none() const { return k_ == VK::None; }
  bool is_unbound() const { return k_ == VK::Unbound; }
  bool is_int_like() const { return k_ == VK::Int || k_ == VK::Bool; }  // bool is an int subtype
  bool is_number() const { return k_ == VK::Int || k_ == VK::Bool || k_ == VK::Float; }
  int64_t i() const { return u_.i; }
  double f() const { return u_.f; }
  bool b() const { return u_.i != 0; }
  double num() const { return k_ == VK::Float ? u_.f : double(u_.i); }  // for numbers
  isa::DType dtype_v() const { return isa::DType(u_.i); }
  ir::Buffer buffer_v() const { return ir::Buffer(u_.i); }
  int nki_op_index() const { return int(u_.i); }
  int enum_type() const { return int(u_.i >> 32); }
  int enum_value() const { return int32_t(uint32_t(u_.i)); }
  Object* obj() const { return u_.o; }
  template <class T>
  T* as() const {
    return static_cast<T*>(u_.o);
  }
  int64_t raw_bits() const { return u_.i; }

 private:
  static Value immediate(VK k, int64_t i) {  // a value held in the union's integer
    Value v;
    v.k_ = k;
    v.u_.i = i;
    return v;
  }
  void release() {
    if (is_heap() && !tl_teardown && --u_.o->rc == 0) delete u_.o;
  }
  VK k_;
  union {
    int64_t i;
    double f;
    Object* o;
  } u_;
};

// Creates a heap object owned by the current heap.
template <class T, class... A>
Value make(A&&... a) {
  return Value(new T(std::forward<A>(a)...));
}

using SymMap = std::unordered_map<Sym, Value>;

struct StrObj : Object {
  std::string s;
  bool bytes = false;
  mutable size_t hash = 0;
  explicit StrObj(std::string v, bool is_bytes = false) : Object(VK::Str), s(std::move(v)), bytes(is_bytes) {
    account(sizeof(StrObj) + s.capacity());
  }
};
struct SeqObj : Object {  // tuple or list
  std::vector<Value> items;
  SeqObj(VK k, std::vector<Value> v) : Object(k), items(std::move(v)) { account_items(); }
  // After items grew in place (append, extend, +=, insert): checks and records the new size.
  void account_items() { account(sizeof(SeqObj) + items.capacity() * sizeof(Value)); }
};
struct DictObj : Object {  // dict (and set, whose values are None); insertion-ordered
  struct Entry {
    Value key, value;
    size_t hash = 0;
    bool live = true;
  };
  std::vector<Entry> entries;
  size_t live_count = 0;
  std::vector<int32_t> table;  // -1 empty, -2 deleted, else index into entries
  explicit DictObj(VK k = VK::Dict) : Object(k) {}
  Value* find(const Value& key);  // throws TypeError for unhashable keys
  void set(const Value& key, Value v);
  bool erase(const Value& key, Value* out = nullptr);
  void clear();
  std::vector<Value> keys() const;

 private:
  int32_t lookup(const Value& key, size_t h) const;
  void rebuild();
};
struct SliceObj : Object {
  Value start, stop, step;
  SliceObj(Value a, Value b, Value c)
      : Object(VK::Slice), start(std::move(a)), stop(std::move(b)), step(std::move(c)) {}
};
struct RangeObj : Object {
  int64_t start, stop, step;
  bool keep_order = false;  // directives=no_reorder(): the body's ops keep program order (ir::Op::keep_order)
  // A legacy (neuronxcc) nl.affine_range / sequential_range: the legacy tracer runs the body once, so every
  // iteration starts from the numbers the frame's locals held at loop entry (interp_stmt.cpp).
  bool traced = false;
  RangeObj(int64_t a, int64_t b, int64_t c) : Object(VK::Range), start(a), stop(b), step(c) {}
  int64_t length() const;
};
// A host value the front end cannot evaluate: from a module that is not available at compile time (torch,
// numpy.random, ...), or a module-level global whose statement failed on such a value (`reason`, `where`).
// Host code may pass it around; kernel code that uses it gets a located error (Interp::opaque_used).
struct OpaqueObj : Object {
  std::string what;
  std::string reason;  // why a poisoned global has no value
  SourceLoc where;     // the module-level statement that failed
  explicit OpaqueObj(std::string w) : Object(VK::Opaque), what(std::move(w)) {}
};
struct IteratorObj : Object {  // iter(x): the items, materialised, and the position of next()
  std::vector<Value> items;
  size_t pos = 0;
  explicit IteratorObj(std::vector<Value> v) : Object(VK::Other), items(std::move(v)) {
    account(sizeof(IteratorObj) + items.capacity() * sizeof(Value));
  }
  std::string type_name() const override { return "iterator"; }
  std::string repr() const override { return "<iterator>"; }
};
struct WrapperObj : Object {  // property / staticmethod / classmethod
  Value fn, setter;
  WrapperObj(VK k, Value f) : Object(k), fn(std::move(f)) {}
};

// Value constructors.
Value make_str(std::string s);
Value make_tuple(std::vector<Value> v);
Value make_list(std::vector<Value> v);

// Python-level error with an exception type name ("TypeError", ...). Catchable by try/except.
struct PyError : Error {
  std::string type;
  // The raised exception instance, if any. Not owning: errors may outlive the interpreter, which keeps
  // raised instances alive itself (Interp::raised).
  Object* exc = nullptr;
  PyError(std::string t, std::string msg) : Error(std::move(msg)), type(std::move(t)) {}
};
[[noreturn]] void raise(const char* type, const std::string& msg);

// Instances as dict keys and in `==` of containers: user __hash__ / __eq__, run by the interpreter of the
// current thread (identity when none is running). Implemented in interp_call.cpp.
size_t instance_hash(const Value& v);
bool instance_equal(const Value& a, const Value& b);

// Basic protocol helpers that need no interpreter.
std::string type_name(const Value& v);
size_t hash_value(const Value& v);                  // throws TypeError if unhashable
bool basic_equal(const Value& a, const Value& b);   // Python == for built-in types, identity otherwise
bool is_truthy_basic(const Value& v, bool* known);  // *known=false for values needing __bool__/__len__
std::string repr_basic(const Value& v);             // repr() for built-in types
// repr() of a tuple, list, dict or set with `elem` for the items (repr_basic and Interp::repr share it).
std::string repr_container(const Value& v, std::string (*elem)(const Value&, void*), void* ctx);
std::string float_repr(double d);                   // Python's shortest round-trip repr
std::string nki_repr(const Value& v);               // Buffer/NkiOp/Enum values (nki_lang.cpp)
const std::string& str_of(const Value& v);          // the text of a Str value
std::vector<Value>& items_of(const Value& v);       // the items of a Tuple or List
std::vector<Value> subscript_keys(const Value& key);  // t[a, b] -> {a, b}; t[a] -> {a}

}  // namespace nkisim::frontend
