// interp_call.cpp - calling (user functions with Python argument binding, built-ins, classes, methods),
// attribute access and subscription.
#include "frontend/interp.h"
#include "frontend/ndarray.h"
#include "frontend/nki.h"
#include "frontend/small_vec.h"
#include "frontend/utf8.h"

namespace nkisim::frontend {

static std::string fname(const FuncCode* c) { return c->qualname + "()"; }

static std::string quote_list(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
    s += "'" + names[i] + "'";
  }
  return s;
}

static void bind_params(FunctionObj* fn, CallArgs& a, std::vector<Value>& slots) {
  const FuncCode* code = fn->code;
  const auto& ps = code->params;
  size_t npos = 0;
  int varargs = -1, varkw = -1;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].kind == ParamKind::PosOnly || ps[i].kind == ParamKind::Normal) ++npos;
    if (ps[i].kind == ParamKind::VarArgs) varargs = int(i);
    if (ps[i].kind == ParamKind::VarKw) varkw = int(i);
  }
  std::vector<Value> extra;
  for (size_t i = 0; i < a.npos; ++i) {
    if (i < npos)
      slots[i] = a.pos[i];
    else if (varargs >= 0)
      extra.push_back(a.pos[i]);
    else
      raise("TypeError", fname(code) + " takes " + std::to_string(npos) + " positional argument" +
                             (npos == 1 ? "" : "s") + " but " + std::to_string(a.npos) +
                             (a.npos == 1 ? " was" : " were") + " given");
  }
  Value kwdict;
  for (size_t k = 0; k < a.nkw; ++k) {
    Sym name = a.kw[k].first;
    int idx = -1;
    for (size_t i = 0; i < ps.size(); ++i)
      if (ps[i].name == name && (ps[i].kind == ParamKind::Normal || ps[i].kind == ParamKind::KwOnly)) {
        idx = int(i);
        break;
      }
    if (idx >= 0) {
      if (!slots[idx].is_unbound())
        raise("TypeError", fname(code) + " got multiple values for argument '" + sym_str(name) + "'");
      slots[idx] = a.kw[k].second;
    } else if (varkw >= 0) {
      if (kwdict.is_none()) kwdict = make<DictObj>();
      kwdict.as<DictObj>()->set(make_str(sym_str(name)), a.kw[k].second);
    } else {
      raise("TypeError", fname(code) + " got an unexpected keyword argument '" + sym_str(name) + "'");
    }
  }
  std::vector<std::string> missing_pos, missing_kw;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (!slots[i].is_unbound() || ps[i].kind == ParamKind::VarArgs || ps[i].kind == ParamKind::VarKw) continue;
    if (!fn->defaults[i].is_unbound())
      slots[i] = fn->defaults[i];
    else
      (ps[i].kind == ParamKind::KwOnly ? missing_kw : missing_pos).push_back(sym_str(ps[i].name));
  }
  if (!missing_pos.empty())
    raise("TypeError", fname(code) + " missing " + std::to_string(missing_pos.size()) +
                           " required positional argument" + (missing_pos.size() == 1 ? "" : "s") + ": " +
                           quote_list(missing_pos));
  if (!missing_kw.empty())
    raise("TypeError", fname(code) + " missing " + std::to_string(missing_kw.size()) +
                           " required keyword-only argument" + (missing_kw.size() == 1 ? "" : "s") + ": " +
                           quote_list(missing_kw));
  if (varargs >= 0) slots[varargs] = make_tuple(std::move(extra));
  if (varkw >= 0) slots[varkw] = kwdict.is_none() ? make<DictObj>() : kwdict;
}

Value Interp::call_function(FunctionObj* fn, CallArgs& a) {
  const FuncCode* code = fn->code;
  if (code->is_async) raise("TypeError", "async function " + fname(code) + " is not supported in NKI kernels");
  if (code->has_yield) raise("TypeError", "generator function " + fname(code) + " is not supported in NKI kernels");
  if (frames_ >= opts.max_frames)
    throw Error("maximum recursion depth exceeded (" + std::to_string(opts.max_frames) +
                " Python frames; raise the limit with --max-recursion N)");
  step();
  // A kernel called from module-level host code (`kernel(a, b)`, a unittest method run at import time) is a
  // launch on the device, not part of the meta-program: the host statement is skipped (run_module).
  if (fn->jit && !in_kernel)
    throw PyError("HostValueError", "a call of kernel " + fname(code) + " from host code is a launch that the NKI "
                                    "front end does not evaluate");
  if (in_kernel && code->scope.global_decl) {
    ModuleObj* m = fn->module.as<ModuleObj>();
    Error e("the 'global' statement is not supported in NKI kernels (in " + fname(code) +
                "); pass the value as an argument or return it",
            loc_in(m, code->scope.global_decl));
    if (a.site) e.notes.push_back({loc_of(a.site), "called from here"});
    throw e;
  }
  Value frame = make<FrameObj>();
  auto* fr = frame.as<FrameObj>();
  fr->parent = fn->closure;
  fr->module = fn->module.as<ModuleObj>();
  fr->func = fn;
  fr->slots.assign(code->scope.num_slots, Value::unbound());
  bind_params(fn, a, fr->slots);

  ModuleObj* caller = cur_module_;
  sites_.push_back({a.site, caller});
  ++frames_;
  struct Pop {
    Interp& in;
    ~Pop() {
      in.sites_.pop_back();
      --in.frames_;
    }
  } pop{*this};
  ModuleScope ms(*this, fr->module);
  struct FrameRestore {
    FrameObj*& r;
    FrameObj* v;
    ~FrameRestore() { r = v; }
  } frame_restore{current_frame, current_frame};
  current_frame = fr;
  try {
    if (code->lambda_body) return eval(code->lambda_body, fr);
    Flow fl = exec_body(code->body, fr);
    if (fl == Flow::Return) return std::move(ret_value);
    return Value();
  } catch (Error& e) {
    if (a.site && e.loc) add_call_note(e, loc_in(caller, a.site));
    throw;
  }
}

// Adds "called from here" to an error leaving a call; recursion through one call site becomes one note
// "called from here (N times)"; at most 50 notes.
void add_call_note(Error& e, const SourceLoc& site) {
  static const std::string kNote = "called from here";
  if (!e.notes.empty() && e.notes.back().first == site && e.notes.back().second.rfind(kNote, 0) == 0) {
    std::string& text = e.notes.back().second;
    long n = text.size() > kNote.size() ? std::stol(text.substr(kNote.size() + 2)) : 1;
    text = kNote + " (" + std::to_string(n + 1) + " times)";
    return;
  }
  if (e.notes.size() < 50) e.notes.push_back({site, kNote});
}

void bind_args(const char* fname, const ParamSpec* params, size_t n, CallArgs& a, Value* out) {
  for (size_t i = 0; i < n; ++i) out[i] = Value::unbound();
  if (a.npos > n)
    raise("TypeError", std::string(fname) + "() takes at most " + std::to_string(n) + " arguments (" +
                           std::to_string(a.npos) + " given)");
  for (size_t i = 0; i < a.npos; ++i) out[i] = a.pos[i];
  for (size_t k = 0; k < a.nkw; ++k) {
    Sym name = a.kw[k].first;
    size_t i = 0;
    for (; i < n; ++i) {
      if (!params[i].sym) params[i].sym = intern(params[i].name);
      if (name == params[i].sym) break;
    }
    if (i == n)
      raise("TypeError", std::string(fname) + "() got an unexpected keyword argument '" + sym_str(name) + "'");
    if (!out[i].is_unbound())
      raise("TypeError", std::string(fname) + "() got multiple values for argument '" + sym_str(name) + "'");
    out[i] = a.kw[k].second;
  }
  for (size_t i = 0; i < n; ++i)
    if (params[i].required && out[i].is_unbound())
      raise("TypeError", std::string(fname) + "() missing required argument '" + params[i].name + "'");
}

Value Interp::call0(const Value& fn, const Node* site) {
  CallArgs a;
  a.site = site;
  return call(fn, a);
}

Value Interp::call(const Value& fn, CallArgs& a) {
  switch (fn.kind()) {
    case VK::Function:
      return call_function(fn.as<FunctionObj>(), a);
    case VK::Builtin: {
      auto* b = fn.as<BuiltinObj>();
      // Host-only (opaque) arguments: HostValueError (module-level host statements are then skipped).
      for (size_t i = 0; i < a.npos + a.nkw; ++i) {
        const Value& v = i < a.npos ? a.pos[i] : a.kw[i - a.npos].second;
        if (v.is(VK::Opaque) && typeid(*v.obj()) == typeid(OpaqueObj)) opaque_used(v);
      }
      Value r = b->fn(*this, *b, a);
      check_instruction_budget();
      return r;
    }
    case VK::BoundMethod: {
      auto* m = fn.as<BoundMethodObj>();
      SmallVec<Value, 8> pos;
      pos.push_back(m->self);
      for (size_t i = 0; i < a.npos; ++i) pos.push_back(a.pos[i]);
      CallArgs b{pos.data(), pos.size(), a.kw, a.nkw, a.site};
      return call(m->func, b);
    }
    case VK::Class:
      return make_instance(fn.as<ClassObj>(), a);
    case VK::StaticMethod:
      return call(fn.as<WrapperObj>()->fn, a);
    case VK::Instance: {
      Value m;
      if (!try_get_attr(fn, S::__call__, &m)) raise("TypeError", "'" + type_name(fn) + "' object is not callable");
      return call(m, a);
    }
    case VK::Opaque:
      if (in_kernel) opaque_used(fn);
      return make<OpaqueObj>(fn.as<OpaqueObj>()->what + "()");
    case VK::DType:
      return convert_to_dtype(*this, fn.dtype_v(), a);
    case VK::NkiOp: {
      Value r = nl_call_op(*this, fn.nki_op_index(), a);
      check_instruction_budget();
      return r;
    }
    default:
      raise("TypeError", "'" + type_name(fn) + "' object is not callable");
  }
}

// Synthesised __init__ of dataclasses: fields in order (those of the @dataclass classes in the MRO, base
// first, as CPython collects them), defaults from the class.
std::vector<Sym> dataclass_fields(const ClassObj* cls) {
  std::vector<Sym> fields;
  for (auto it = cls->mro.rbegin(); it != cls->mro.rend(); ++it)
    if ((*it)->dataclass || *it == cls)
      for (Sym s : (*it)->fields)
      if (std::find(fields.begin(), fields.end(), s) == fields.end()) fields.push_back(s);
  return fields;
}

// `dc` is the @dataclass class whose generated __init__ runs; `cls` the instance's class.
static void dataclass_init(Interp& in, ClassObj* cls, ClassObj* dc, const Value& self, CallArgs& a) {
  std::vector<Sym> fields = dataclass_fields(dc);
  if (a.npos > fields.size())
    raise("TypeError", cls->name + "() takes " + std::to_string(fields.size()) + " positional arguments but " +
                           std::to_string(a.npos) + " were given");
  auto* inst = self.as<InstanceObj>();
  for (size_t i = 0; i < a.npos; ++i) inst->attrs[fields[i]] = a.pos[i];
  for (size_t k = 0; k < a.nkw; ++k) {
    Sym s = a.kw[k].first;
    // An NKIObject dataclass also takes keywords that are not fields and sets them, as NKIObject.__init__
    // does (nki-library passes class attributes without annotations: docs/compatibility.md).
    if (std::find(fields.begin(), fields.end(), s) == fields.end() && !cls->is_nkiobject)
      raise("TypeError", cls->name + "() got an unexpected keyword argument '" + sym_str(s) + "'");
    if (inst->attrs.count(s))
      raise("TypeError", cls->name + "() got multiple values for argument '" + sym_str(s) + "'");
    inst->attrs[s] = a.kw[k].second;
  }
  for (Sym s : fields) {
    if (inst->attrs.count(s)) continue;
    const Value* d = dc->lookup(s);
    if (!d || d->is_unbound()) {
      // An NKIObject dataclass leaves a field without a value unset (reading it is a located AttributeError):
      // nki-library constructs configs without some declared fields (docs/compatibility.md).
      if (cls->is_nkiobject) continue;
      raise("TypeError", cls->name + "() missing required argument '" + sym_str(s) + "'");
    }
    if (d->is(VK::Builtin) && d->as<BuiltinObj>()->name == kDefaultFactory)
      inst->attrs[s] = in.call0(d->as<BuiltinObj>()->self, a.site);
    else
      inst->attrs[s] = *d;
  }
  if (const Value* post = cls->lookup(S::__post_init__)) {
    Value selfv = self;
    CallArgs b{&selfv, 1, nullptr, 0, a.site};
    in.call(*post, b);
  }
}

void Interp::opaque_used(const Value& v) {
  const OpaqueObj* o = v.as<OpaqueObj>();
  if (!o->reason.empty()) {
    PyError e("HostValueError",
              "'" + o->what + "' has no compile-time value: its module-level statement failed (" + o->reason + ")");
    if (o->where.known()) e.notes.push_back({o->where, "the statement that failed"});
    throw e;
  }
  std::string mod = o->what.substr(0, o->what.find('.'));
  throw PyError("HostValueError", "'" + o->what + "' is not available at kernel compile time (module '" + mod +
                                      "' is host-side code that the NKI front end does not evaluate)");
}

void Interp::reject_legacy(const std::string& what) {
  raise("ImportError", "'" + what +
                           "': the legacy neuronxcc.nki API cannot be used inside an nki.jit kernel (NKI 0.4+); use "
                           "nki, nki.language and nki.isa instead");
}

void Interp::reject_class(const ClassObj* cls, const char* what) {
  raise("TypeError", std::string(what) + " '" + cls->name +
                         "' cannot be used in an NKI kernel: classes must inherit NKIObject (class " + cls->name +
                         "(nl.NKIObject): ...)");
}

Value Interp::make_instance(ClassObj* cls, CallArgs& a) {
  if (cls->is_enum) {
    if (a.npos != 1) raise("TypeError", cls->name + "() takes exactly one argument");
    for (Sym s : cls->order) {
      const Value& m = cls->attrs[s];
      if (m.is(VK::Instance) && m.as<InstanceObj>()->cls.obj() == cls &&
          equal(m.as<InstanceObj>()->attrs[S::value], a.pos[0]))
        return m;
    }
    raise("ValueError", repr(a.pos[0]) + " is not a valid " + cls->name);
  }
  if (in_kernel && nki->current_api && !cls->kernel_ok()) reject_class(cls, "class");
  Value inst = make<InstanceObj>(Value(cls));
  // The constructor is the first class in the MRO that defines __init__ or is a @dataclass (which generates
  // one, as in CPython); NKIObject's own __init__(**kwargs) sets the attributes it is given.
  const Value* init = nullptr;
  for (ClassObj* c : cls->mro) {
    if (auto it = c->attrs.find(S::__init__); it != c->attrs.end()) {  // @dataclass keeps a written __init__
      init = &it->second;
      break;
    }
    if (c->dataclass) {
      dataclass_init(*this, cls, c, inst, a);
      return inst;
    }
    if (c->is_nkiobject && c->mro.size() == 1) {  // nl.NKIObject itself
      if (a.npos) raise("TypeError", cls->name + "() takes keyword arguments only (NKIObject.__init__(**kwargs))");
      for (size_t k = 0; k < a.nkw; ++k) inst.as<InstanceObj>()->attrs[a.kw[k].first] = a.kw[k].second;
      return inst;
    }
  }
  if (init && !(init->is(VK::Builtin) && init->as<BuiltinObj>()->name == "object.__init__")) {
    SmallVec<Value, 8> pos;
    pos.push_back(inst);
    for (size_t i = 0; i < a.npos; ++i) pos.push_back(a.pos[i]);
    CallArgs b{pos.data(), pos.size(), a.kw, a.nkw, a.site};
    Value r = call(*init, b);
    if (!r.is_none()) raise("TypeError", "__init__() should return None, not '" + type_name(r) + "'");
    return inst;
  }
  if (cls->is_exception) {
    std::vector<Value> args(a.pos, a.pos + a.npos);
    inst.as<InstanceObj>()->attrs[S::args] = make_tuple(std::move(args));
    return inst;
  }
  bool synth = false;
  for (ClassObj* c : cls->mro) synth |= c->dataclass || c->is_nkiobject || !c->fields.empty();
  if (synth) {
    dataclass_init(*this, cls, cls, inst, a);
    return inst;
  }
  if (a.npos || a.nkw) raise("TypeError", cls->name + "() takes no arguments");
  return inst;
}

// ---------------------------------------------------------------- attributes

static Value bind_class_attr(const Value& v, const Value& self, const Value& cls) {
  switch (v.kind()) {
    case VK::Function:
      return self.is_none() ? v : make<BoundMethodObj>(self, v);
    case VK::StaticMethod:
      return v.as<WrapperObj>()->fn;
    case VK::ClassMethod:
      return make<BoundMethodObj>(cls, v.as<WrapperObj>()->fn);
    default:
      return v;
  }
}

bool Interp::try_get_attr(const Value& obj, Sym name, Value* out) {
  switch (obj.kind()) {
    case VK::Module: {
      auto* m = obj.as<ModuleObj>();
      if (m->legacy && in_kernel && nki->current_api) reject_legacy(m->name + "." + sym_str(name));
      auto it = m->globals.find(name);
      if (it == m->globals.end()) {
        if (!m->open) return false;
        *out = make<OpaqueObj>(m->name + "." + sym_str(name));
        return true;
      }
      *out = it->second;
      return true;
    }
    case VK::Instance: {
      auto* inst = obj.as<InstanceObj>();
      // Legacy kernels were traced as plain Python: any class works there.
      if (in_kernel && nki->current_api && !inst->cls.as<ClassObj>()->kernel_ok())
        reject_class(inst->cls.as<ClassObj>(), "an instance of");
      auto it = inst->attrs.find(name);
      if (it != inst->attrs.end()) {
        *out = it->second;
        return true;
      }
      auto* cls = inst->cls.as<ClassObj>();
      if (const Value* v = cls->lookup(name)) {
        if (v->is(VK::Property)) {
          Value self = obj;
          CallArgs a{&self, 1, nullptr, 0, cur_site_};
          *out = call(v->as<WrapperObj>()->fn, a);
        } else {
          *out = bind_class_attr(*v, obj, inst->cls);
        }
        return true;
      }
      if (name == S::__class__) {
        *out = inst->cls;
        return true;
      }
      if (name == S::__dict__) {
        Value d = make<DictObj>();
        for (auto& [k, v] : inst->attrs) d.as<DictObj>()->set(make_str(sym_str(k)), v);
        *out = d;
        return true;
      }
      return false;
    }
    case VK::Class: {
      auto* cls = obj.as<ClassObj>();
      if (const Value* v = cls->lookup(name)) {
        *out = bind_class_attr(*v, Value(), obj);
        return true;
      }
      if (name == S::__name__ || name == S::__qualname__) {
        *out = make_str(cls->name);
        return true;
      }
      return false;
    }
    case VK::Function: {
      auto* fn = obj.as<FunctionObj>();
      if (name == S::__name__) {
        *out = make_str(sym_str(fn->code->name));
        return true;
      }
      if (name == S::__qualname__) {
        *out = make_str(fn->code->qualname);
        return true;
      }
      if (name == S::__doc__) {
        *out = Value();
        return true;
      }
      return false;
    }
    case VK::Opaque:
      *out = make<OpaqueObj>(obj.as<OpaqueObj>()->what + "." + sym_str(name));
      return true;
    case VK::Tensor:
    case VK::DType:
    case VK::Buffer:
    case VK::Enum:
    case VK::NkiOp:
      return nki_attr(*this, obj, name, out);
    default:
      return builtin_type_attr(*this, obj, name, out);
  }
}

Value Interp::get_attr(const Value& obj, Sym name) {
  Value out;
  if (try_get_attr(obj, name, &out)) return out;
  if (obj.is(VK::Module))
    raise("AttributeError", "module '" + obj.as<ModuleObj>()->name + "' has no attribute '" + sym_str(name) + "'");
  if (obj.is(VK::Class))
    raise("AttributeError", "type object '" + obj.as<ClassObj>()->name + "' has no attribute '" + sym_str(name) + "'");
  // An attribute a host base class provides (self.assertTrue of a unittest.TestCase): a host value.
  if (obj.is(VK::Instance) && obj.as<InstanceObj>()->cls.as<ClassObj>()->host_base)
    return make<OpaqueObj>(type_name(obj) + "." + sym_str(name));
  raise("AttributeError", "'" + type_name(obj) + "' object has no attribute '" + sym_str(name) + "'");
}

void Interp::set_attr(const Value& obj, Sym name, Value v) {
  switch (obj.kind()) {
    case VK::Instance: {
      auto* inst = obj.as<InstanceObj>();
      auto* cls = inst->cls.as<ClassObj>();
      if (const Value* p = cls->lookup(name); p && p->is(VK::Property)) {
        auto* w = p->as<WrapperObj>();
        if (w->setter.is_none()) raise("AttributeError", "can't set attribute '" + sym_str(name) + "'");
        Value args[2] = {obj, std::move(v)};
        CallArgs a{args, 2, nullptr, 0, cur_site_};
        call(w->setter, a);
        return;
      }
      bool frozen = false;
      for (ClassObj* c : cls->mro) frozen |= c->frozen;
      if (frozen && inst->attrs.count(name))
        raise("FrozenInstanceError", "cannot assign to field '" + sym_str(name) + "'");
      inst->attrs[name] = std::move(v);
      return;
    }
    case VK::Class:
      obj.as<ClassObj>()->set(name, std::move(v));
      return;
    case VK::Module:
      obj.as<ModuleObj>()->globals[name] = std::move(v);
      return;
    case VK::Function:
      return;  // function attributes are ignored
    default:
      raise("AttributeError", "'" + type_name(obj) + "' object has no attribute '" + sym_str(name) + "' to set");
  }
}

// ---------------------------------------------------------------- subscription

int64_t slice_indices(Interp& in, const SliceObj* s, int64_t len, int64_t* start, int64_t* stop, int64_t* step) {
  *step = s->step.is_none() ? 1 : in.to_index(s->step, "slice step");
  if (*step == 0) raise("ValueError", "slice step cannot be zero");
  auto norm = [&](const Value& v, int64_t dflt, bool is_start) {
    if (v.is_none()) return dflt;
    int64_t x = in.to_index(v, "slice indices");
    if (x < 0) {
      x += len;
      if (x < 0) x = *step < 0 ? -1 : 0;
    } else if (x >= len) {
      x = *step < 0 ? len - 1 : len;
    }
    (void)is_start;
    return x;
  };
  *start = norm(s->start, *step < 0 ? len - 1 : 0, true);
  *stop = norm(s->stop, *step < 0 ? -1 : len, false);
  if (*step > 0) return *stop > *start ? (*stop - *start - 1) / *step + 1 : 0;
  return *start > *stop ? (*start - *stop - 1) / (-*step) + 1 : 0;
}

static int64_t norm_index(Interp& in, const Value& key, int64_t len, const char* what) {
  int64_t i = in.to_index(key, (std::string(what) + " indices").c_str());
  if (i < 0) i += len;
  if (i < 0 || i >= len) raise("IndexError", std::string(what) + " index out of range");
  return i;
}

Value Interp::get_item(const Value& obj, const Value& key) {
  switch (obj.kind()) {
    case VK::List:
    case VK::Tuple: {
      auto& items = items_of(obj);
      const char* what = obj.is(VK::List) ? "list" : "tuple";
      if (key.is(VK::Slice)) {
        int64_t start, stop, stp;
        int64_t n = slice_indices(*this, key.as<SliceObj>(), int64_t(items.size()), &start, &stop, &stp);
        std::vector<Value> out;
        out.reserve(n);
        for (int64_t k = 0, i = start; k < n; ++k, i += stp) out.push_back(items[i]);
        return obj.is(VK::List) ? make_list(std::move(out)) : make_tuple(std::move(out));
      }
      if (!key.is_int_like())
        raise("TypeError", std::string(what) + " indices must be integers or slices, not " + type_name(key));
      return items[norm_index(*this, key, int64_t(items.size()), what)];
    }
    case VK::Str: {
      const std::string& s = str_of(obj);
      if (!obj.as<StrObj>()->bytes && !utf8::is_ascii(s)) {  // index by code point
        std::vector<size_t> off = utf8::offsets(s);
        const int64_t len = int64_t(off.size()) - 1;
        auto cp = [&](int64_t i) { return s.substr(off[i], off[i + 1] - off[i]); };
        if (key.is(VK::Slice)) {
          int64_t start, stop, stp;
          int64_t n = slice_indices(*this, key.as<SliceObj>(), len, &start, &stop, &stp);
          std::string out;
          for (int64_t k = 0, i = start; k < n; ++k, i += stp) out += cp(i);
          return make_str(std::move(out));
        }
        if (!key.is_int_like()) raise("TypeError", "string indices must be integers, not '" + type_name(key) + "'");
        return make_str(cp(norm_index(*this, key, len, "string")));
      }
      if (key.is(VK::Slice)) {
        int64_t start, stop, stp;
        int64_t n = slice_indices(*this, key.as<SliceObj>(), int64_t(s.size()), &start, &stop, &stp);
        std::string out;
        for (int64_t k = 0, i = start; k < n; ++k, i += stp) out += s[i];
        return make<StrObj>(std::move(out), obj.as<StrObj>()->bytes);
      }
      if (!key.is_int_like()) raise("TypeError", "string indices must be integers, not '" + type_name(key) + "'");
      int64_t i = norm_index(*this, key, int64_t(s.size()), "string");
      if (obj.as<StrObj>()->bytes) return Value::integer(uint8_t(s[i]));
      return make_str(std::string(1, s[i]));
    }
    case VK::Dict: {
      if (Value* v = obj.as<DictObj>()->find(key)) return *v;
      raise("KeyError", repr(key));
    }
    case VK::Range: {
      auto* r = obj.as<RangeObj>();
      int64_t len = r->length();
      if (key.is(VK::Slice)) {
        int64_t start, stop, stp;
        int64_t n = slice_indices(*this, key.as<SliceObj>(), len, &start, &stop, &stp);
        int64_t b = r->start + start * r->step;
        return make<RangeObj>(b, b + n * stp * r->step, stp * r->step);
      }
      return Value::integer(r->start + norm_index(*this, key, len, "range object") * r->step);
    }
    case VK::Tensor:
      return nki_get_item(*this, obj, key);
    case VK::Instance: {
      Value m;
      if (!try_get_attr(obj, S::__getitem__, &m))
        raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
      Value k = key;
      CallArgs a{&k, 1, nullptr, 0, cur_site_};
      return call(m, a);
    }
    case VK::Class: {
      auto* cls = obj.as<ClassObj>();
      if (cls->is_enum && key.is(VK::Str)) {
        auto it = cls->attrs.find(intern(str_of(key)));
        if (it != cls->attrs.end()) return it->second;
        raise("KeyError", repr(key));
      }
      return obj;  // typing generics: Foo[int]
    }
    case VK::Opaque:
      return make<OpaqueObj>(obj.as<OpaqueObj>()->what + "[...]");
    case VK::Other:
      if (is_index(obj)) return index_get_item(*this, obj, key);
      if (as_ndarray(obj)) return ndarray_get_item(*this, obj, key);
      raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
    case VK::Builtin:
      return obj;  // typing: list[int], tuple[int, ...]
    case VK::Function:
      // `kernel[2](a, b)` in module-level host code: a launch on a grid, skipped like `kernel(a, b)` (run_module).
      if (obj.as<FunctionObj>()->jit && !in_kernel)
        throw PyError("HostValueError", "a launch of kernel " + obj.as<FunctionObj>()->code->qualname +
                                            "[...] from host code is not evaluated by the NKI front end");
      raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
    default:
      raise("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
  }
}

void Interp::set_item(const Value& obj, const Value& key, Value v) {
  switch (obj.kind()) {
    case VK::List: {
      auto& items = items_of(obj);
      if (key.is(VK::Slice)) {
        int64_t start, stop, stp;
        int64_t n = slice_indices(*this, key.as<SliceObj>(), int64_t(items.size()), &start, &stop, &stp);
        std::vector<Value> src = to_vector(v);
        if (stp != 1) {
          if (int64_t(src.size()) != n)
            raise("ValueError", "attempt to assign sequence of size " + std::to_string(src.size()) +
                                    " to extended slice of size " + std::to_string(n));
          for (int64_t k = 0, i = start; k < n; ++k, i += stp) items[i] = src[k];
          return;
        }
        if (stop < start) stop = start;
        items.erase(items.begin() + start, items.begin() + stop);
        items.insert(items.begin() + start, src.begin(), src.end());
        return;
      }
      if (!key.is_int_like()) raise("TypeError", "list indices must be integers or slices, not " + type_name(key));
      items[norm_index(*this, key, int64_t(items.size()), "list assignment")] = std::move(v);
      return;
    }
    case VK::Dict:
      obj.as<DictObj>()->set(key, std::move(v));
      return;
    case VK::Instance: {
      Value m;
      if (!try_get_attr(obj, S::__setitem__, &m))
        raise("TypeError", "'" + type_name(obj) + "' object does not support item assignment");
      Value args[2] = {key, std::move(v)};
      CallArgs a{args, 2, nullptr, 0, cur_site_};
      call(m, a);
      return;
    }
    case VK::Tensor:
      nl_set_item(*this, obj, key, std::move(v));
      return;
    case VK::Other:
      if (as_ndarray(obj)) return ndarray_set_item(*this, obj, key, v);
      raise("TypeError", "'" + type_name(obj) + "' object does not support item assignment");
    default:
      raise("TypeError", "'" + type_name(obj) + "' object does not support item assignment");
  }
}

void Interp::del_item(const Value& obj, const Value& key) {
  switch (obj.kind()) {
    case VK::List: {
      auto& items = items_of(obj);
      if (key.is(VK::Slice)) {
        int64_t start, stop, stp;
        int64_t n = slice_indices(*this, key.as<SliceObj>(), int64_t(items.size()), &start, &stop, &stp);
        std::vector<bool> del(items.size(), false);
        for (int64_t k = 0, i = start; k < n; ++k, i += stp) del[i] = true;
        std::vector<Value> keep;
        for (size_t i = 0; i < items.size(); ++i)
          if (!del[i]) keep.push_back(items[i]);
        items = std::move(keep);
        return;
      }
      items.erase(items.begin() + norm_index(*this, key, int64_t(items.size()), "list assignment"));
      return;
    }
    case VK::Dict:
      if (!obj.as<DictObj>()->erase(key)) raise("KeyError", repr(key));
      return;
    default:
      raise("TypeError", "'" + type_name(obj) + "' object does not support item deletion");
  }
}

bool Interp::isinstance(const Value& v, const Value& cls) {
  if (cls.is(VK::Tuple)) {
    for (auto& c : items_of(cls))
      if (isinstance(v, c)) return true;
    return false;
  }
  if (cls.is(VK::Class)) {
    if (!v.is(VK::Instance)) return false;
    return v.as<InstanceObj>()->cls.as<ClassObj>()->is_subclass_of(cls.as<ClassObj>());
  }
  if (cls.is(VK::Builtin)) {  // int, float, str, ... are built-in functions here; `data` holds the VK
    auto* b = cls.as<BuiltinObj>();
    if (b->data <= 0) raise("TypeError", "isinstance() arg 2 must be a type or tuple of types");
    VK k = VK(b->data);
    if (k == VK::Int) return v.is_int_like();
    if (k == VK::Float) return v.is(VK::Float);
    if (k == VK::Tensor) return v.is(VK::Tensor);
    return v.kind() == k;
  }
  if (cls.is(VK::Opaque)) return false;
  raise("TypeError", "isinstance() arg 2 must be a type or tuple of types");
}

}  // namespace nkisim::frontend
