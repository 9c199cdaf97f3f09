// host_args.cpp - rebuilds the Python package's host values (HostValue trees) as compile-time values.
#include "frontend/host_args.h"

#include <filesystem>

#include "frontend/interp.h"
#include "frontend/nki.h"

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

Value nki_attr(Interp& in, const char* module, const std::string& name) {
  return in.get_attr(in.import_module(module, nullptr, nullptr, 0), intern(name));
}

// nl.ndarray(shape, dtype, buffer=nl.<buffer>), as the kernel would write it.
Value ndarray(Interp& in, const std::vector<int64_t>& shape, const Value& dtype, const char* buffer) {
  std::vector<Value> dims;
  for (int64_t d : shape) dims.push_back(Value::integer(d));
  Value pos[2] = {make_tuple(std::move(dims)), dtype};
  std::pair<Sym, Value> kw[1] = {{intern("buffer"), nki_attr(in, "nki.language", buffer)}};
  CallArgs a{pos, 2, kw, 1, nullptr};
  return in.call(nki_attr(in, "nki.language", "ndarray"), a);
}

void dma_copy(Interp& in, const Value& dst, const Value& src) {
  std::pair<Sym, Value> kw[2] = {{intern("dst"), dst}, {intern("src"), src}};
  CallArgs a{nullptr, 0, kw, 2, nullptr};
  in.call(nki_attr(in, "nki.isa", "dma_copy"), a);
}

std::vector<int64_t> shape_of(const Value& t, Interp& in) {
  return in.kernel.tensors[t.as<TensorObj>()->id].shape;
}

// Errors of the built-ins called for an SBUF argument, reworded for the argument (located by the caller).
template <class F>
Value sbuf_step(const std::string& what, const char* doing, F&& f) {
  try {
    return f();
  } catch (Error& e) {
    throw Error(what + ": " + doing + ": " + e.what());
  }
}

}  // namespace

std::vector<Value> host_sbuf_outputs(Interp& in, const HostSbuf& sbuf) {
  std::vector<Value> outs;
  const int lnc = in.nki->lnc, core = in.nki->lnc_core;
  for (auto& entry : sbuf.outputs) {
    auto& tile = entry.first;  // named, not a structured binding: clang 14 cannot capture those in lambdas
    auto& h = entry.second;
    const std::string what = "SBUF output '" + h->s + "'";
    Value dtype = in.get_attr(tile, intern("dtype"));
    Value out = sbuf_step(what, "allocating its HBM copy",
                          [&] { return ndarray(in, h->shape, dtype, "shared_hbm"); });
    if (h->i >= 0 && lnc > 1) {  // each core copies out its share of the split axis
      const int64_t n = h->shape[size_t(h->i)] / lnc;
      std::vector<Value> idx;
      for (size_t d = 0; d < h->shape.size(); ++d)
        idx.push_back(int64_t(d) == h->i ? make<SliceObj>(Value::integer(core * n), Value::integer((core + 1) * n),
                                                          Value::none())
                                         : make<SliceObj>(Value::none(), Value::none(), Value::none()));
      Value key = make_tuple(std::move(idx));
      sbuf_step(what, "copying it out", [&] {
        dma_copy(in, in.get_item(out, key), in.get_item(tile, key));
        return Value::none();
      });
    } else if (core == 0) {
      sbuf_step(what, "copying it out", [&] {
        dma_copy(in, out, tile);
        return Value::none();
      });
    }
    outs.push_back(out);
  }
  return outs;
}

Value host_to_value(Interp& in, const HostValue& h, const std::function<Value(int64_t)>& tensor,
                    const std::string& what, HostSbuf* sbuf) {
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
      for (auto& x : h.items) items.push_back(host_to_value(in, x, tensor, what, sbuf));
      return h.kind == K::Tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
    }
    case K::Dict: {
      if (h.items.size() % 2) throw Error(what + ": malformed host dict");
      Value d = make<DictObj>();
      for (size_t i = 0; i + 1 < h.items.size(); i += 2)
        d.as<DictObj>()->set(host_to_value(in, h.items[i], tensor, what, sbuf),
                             host_to_value(in, h.items[i + 1], tensor, what, sbuf));
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
            host_to_value(in, h.items[i], tensor, what + "." + h.keys[i], sbuf);
      return inst;
    }
    case K::SbufIn:
    case K::SbufOut: {
      if (!sbuf) throw Error(what + ": SBUF arguments (nkisim.sbuf, nkisim.sbuf_output) are not accepted here");
      if (h.kind == K::SbufIn) {
        Value hbm = tensor(h.i);
        return sbuf_step(what, "placing it in SBUF", [&] {
          Value tile = ndarray(in, shape_of(hbm, in), in.get_attr(hbm, intern("dtype")), "sbuf");
          dma_copy(in, tile, hbm);
          return tile;
        });
      }
      Value dtype;
      if (!in.try_get_attr(in.import_module("nki.language", nullptr, nullptr, 0), intern(h.dtype), &dtype))
        throw Error(what + ": unknown NKI dtype '" + h.dtype + "'");
      if (h.i >= 0 && size_t(h.i) >= h.shape.size())
        throw Error(what + ": split axis " + std::to_string(h.i) + " is out of range for shape " +
                    shape_str(h.shape));
      const int lnc = in.nki->lnc;
      if (h.i >= 0 && h.shape[size_t(h.i)] % lnc)
        throw Error(what + ": split axis " + std::to_string(h.i) + " (size " + std::to_string(h.shape[size_t(h.i)]) +
                    ") does not divide among " + std::to_string(lnc) + " cores");
      Value tile = sbuf_step(what, "allocating it in SBUF", [&] { return ndarray(in, h.shape, dtype, "sbuf"); });
      sbuf->outputs.push_back({tile, &h});
      return tile;
    }
  }
  return Value::none();
}

void host_tensor_names(const HostValue& h, std::vector<std::string>& names) {
  if (h.kind == HostValue::Kind::Tensor || h.kind == HostValue::Kind::SbufIn) {
    if (h.i < 0) throw Error("host value refers to a negative input index");
    if (size_t(h.i) >= names.size()) names.resize(size_t(h.i) + 1);
    if (names[size_t(h.i)].empty()) names[size_t(h.i)] = h.s;
  }
  for (auto& x : h.items) host_tensor_names(x, names);
}

}  // namespace nkisim::frontend
