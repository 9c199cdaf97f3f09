// host_args.cpp - rebuilds the Python package's host values (HostValue trees) as compile-time values.
#include "frontend/host_args.h"

#include <filesystem>

#include "frontend/interp.h"

namespace nkisim::frontend {
namespace {

namespace fs = std::filesystem;

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ec;
  return !a.empty() && !b.empty() && fs::equivalent(a, b, ec);
}

// The module a host reference names: one the kernel already loaded from that file (so classes keep their
// identity when the kernel imported it under a package-relative name), else imported by its dotted name.
Value module_of(Interp& in, const HostValue& h, const std::string& what) {
  if (!h.file.empty())
    for (const Value& mv : in.loaded_modules)
      if (same_file(mv.as<ModuleObj>()->path, h.file)) return mv;
  Value m;
  try {
    m = in.import_module(h.module, nullptr, nullptr, 0);
  } catch (PyError& e) {
    throw Error(what + ": cannot import module '" + h.module + "' in nki-sim's front end: " + e.what());
  }
  if (!m.is(VK::Module))
    throw Error(what + ": module '" + h.module + "' is not available in nki-sim's front end (host-only module)");
  return m;
}

Value resolve_attr(Interp& in, const HostValue& h, const std::string& what) {
  Value v = module_of(in, h, what);
  size_t b = 0;
  while (b <= h.s.size()) {
    size_t e = h.s.find('.', b);
    if (e == std::string::npos) e = h.s.size();
    Value next;
    if (!in.try_get_attr(v, intern(h.s.substr(b, e - b)), &next) || next.is(VK::Opaque))
      throw Error(what + ": '" + h.module + "." + h.s + "' is not available in nki-sim's front end");
    v = std::move(next);
    b = e + 1;
  }
  return v;
}

}  // namespace

Value host_to_value(Interp& in, const HostValue& h, const std::function<Value(int64_t)>& tensor,
                    const std::string& what) {
  using K = HostValue::Kind;
  switch (h.kind) {
    case K::None:
      return Value::none();
    case K::Bool:
      return Value::boolean(h.b);
    case K::Int:
      return Value::integer(h.i);
    case K::Float:
      return Value::floating(h.f);
    case K::Str:
      return make_str(h.s);
    case K::Tuple:
    case K::List: {
      std::vector<Value> items;
      for (auto& x : h.items) items.push_back(host_to_value(in, x, tensor, what));
      return h.kind == K::Tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
    }
    case K::Dict: {
      if (h.items.size() % 2) throw Error(what + ": malformed host dict");
      Value d = make<DictObj>();
      for (size_t i = 0; i + 1 < h.items.size(); i += 2)
        d.as<DictObj>()->set(host_to_value(in, h.items[i], tensor, what),
                             host_to_value(in, h.items[i + 1], tensor, what));
      return d;
    }
    case K::Tensor:
      return tensor(h.i);
    case K::Attr:
      return resolve_attr(in, h, what);
    case K::Object: {
      Value cls = resolve_attr(in, h, what);
      if (!cls.is(VK::Class)) throw Error(what + ": '" + h.module + "." + h.s + "' is not a class");
      if (h.keys.size() != h.items.size()) throw Error(what + ": malformed host object");
      // As object.__new__ plus setattr: the host already ran __init__ / __post_init__.
      Value inst = make<InstanceObj>(cls);
      for (size_t i = 0; i < h.keys.size(); ++i)
        inst.as<InstanceObj>()->attrs[intern(h.keys[i])] =
            host_to_value(in, h.items[i], tensor, what + "." + h.keys[i]);
      return inst;
    }
  }
  return Value::none();
}

void host_tensor_names(const HostValue& h, std::vector<std::string>& names) {
  if (h.kind == HostValue::Kind::Tensor) {
    if (h.i < 0) throw Error("host value refers to a negative input index");
    if (size_t(h.i) >= names.size()) names.resize(size_t(h.i) + 1);
    if (names[size_t(h.i)].empty()) names[size_t(h.i)] = h.s;
  }
  for (auto& x : h.items) host_tensor_names(x, names);
}

}  // namespace nkisim::frontend
