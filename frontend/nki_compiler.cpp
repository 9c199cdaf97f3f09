// nki_compiler.cpp - neuronxcc.nki.compiler: the legacy direct-allocation API and compiler directives.
// sbuf.mod_alloc(base_addr, base_partition=0, num_par_tiles=(), num_free_tiles=()) and
// psum.mod_alloc(base_bank, base_addr=0, base_partition=0, num_bank_tiles=(), ...) are `buffer=` values of
// nl.ndarray placing the tensor at a fixed address; sbuf.alloc(func) / psum.alloc(func) place it where a Python
// function of (block index, partition size, free size in bytes) says. skip_middle_end_transformations is a
// decorator with no effect here; no_reorder() is a loop directive (nl.sequential_range(..., directives=)).
#include <tuple>

#include "frontend/nl_ops.h"

namespace nkisim::frontend {
namespace {
using isa_binding::present;

constexpr int64_t kMaxAllocBlocks = 65536;  // blocks of one alloc(func) tensor (each is a tensor of its own)

int64_t int_arg(Interp& in, const Value& v, int64_t dflt, const char* what) {
  return present(v) && !v.is_none() ? in.to_index(v, what) : dflt;
}
std::vector<int64_t> tiles_arg(Interp& in, const Value& v, const char* what) {
  std::vector<int64_t> out;
  if (present(v) && !v.is_none())
    for (auto& e : in.to_vector(v)) out.push_back(in.to_index(e, what));
  return out;
}

Value make_directive(Interp& in, ir::Buffer buf, int64_t bank, int64_t partition, int64_t addr,
                     std::vector<int64_t> tiles, Value func) {
  Value d = make<InstanceObj>(in.nki->alloc_directive_class);
  auto& at = d.as<InstanceObj>()->attrs;
  at[intern("buffer")] = Value::buffer(buf);
  at[intern("base_bank")] = Value::integer(bank);
  at[intern("base_partition")] = Value::integer(partition);
  at[intern("base_addr")] = Value::integer(addr);
  std::vector<Value> t;
  for (int64_t x : tiles) t.push_back(Value::integer(x));
  at[intern("tiles")] = make_tuple(std::move(t));
  at[intern("func")] = std::move(func);
  return d;
}

// sbuf.mod_alloc(base_addr, *, base_partition=0, num_par_tiles=(), num_free_tiles=())
Value sbuf_mod_alloc(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"base_addr", true}, {"base_partition"}, {"num_par_tiles"}, {"num_free_tiles"}};
  Value v[4];
  bind_args("mod_alloc", ps, 4, a, v);
  std::vector<int64_t> tiles = tiles_arg(in, v[3], "mod_alloc() num_free_tiles");
  return make_directive(in, ir::Buffer::sbuf, 0, int_arg(in, v[1], 0, "mod_alloc() base_partition"),
                        in.to_index(v[0], "mod_alloc() base_addr"), std::move(tiles), Value());
}

// psum.mod_alloc(base_bank, *, base_addr=0, base_partition=0, num_bank_tiles=(), num_par_tiles=(), num_free_tiles=())
Value psum_mod_alloc(Interp& in, const BuiltinObj&, CallArgs& a) {
  static const ParamSpec ps[] = {{"base_bank", true}, {"base_addr"}, {"base_partition"}, {"num_bank_tiles"},
                                 {"num_par_tiles"}, {"num_free_tiles"}};
  Value v[6];
  bind_args("mod_alloc", ps, 6, a, v);
  std::vector<int64_t> tiles = tiles_arg(in, v[3], "mod_alloc() num_bank_tiles");
  return make_directive(in, ir::Buffer::psum, in.to_index(v[0], "mod_alloc() base_bank"),
                        int_arg(in, v[2], 0, "mod_alloc() base_partition"), int_arg(in, v[1], 0, "mod_alloc() base_addr"),
                        std::move(tiles), Value());
}

// sbuf.alloc(func) / psum.alloc(func): func(idx=block index tuple, pdim_size=partition size, fdim_size=free size
// in bytes) returns
// (start partition, byte address) for SBUF and (bank, start partition, byte address) for PSUM.
Value mem_alloc(Interp& in, const BuiltinObj& b, CallArgs& a) {
  static const ParamSpec ps[] = {{"func", true}};
  Value v[1];
  bind_args("alloc", ps, 1, a, v);
  return make_directive(in, b.data ? ir::Buffer::psum : ir::Buffer::sbuf, 0, 0, 0, {}, v[0]);
}

Value identity_decorator(Interp&, const BuiltinObj&, CallArgs& a) {
  if (a.npos != 1 || a.nkw) raise("TypeError", "skip_middle_end_transformations expects the kernel function");
  return a.pos[0];
}

// The directive value: nl_range recognises it in directives= (the loop's ops keep their order).
Value no_reorder_directive(Interp&, const BuiltinObj&, CallArgs& a) {
  if (a.npos || a.nkw) raise("TypeError", "no_reorder() takes no arguments");
  return make_str(kNoReorderDirective);
}

bool is_directive(Interp& in, const Value& v) {
  return v.is(VK::Instance) && v.as<InstanceObj>()->cls.obj() == in.nki->alloc_directive_class.obj();
}

}  // namespace

// The buffer of an nl.ndarray(buffer=...) value and, for an allocation directive, the placement: `shape` is the
// user's shape with `lead` block dims before the partition dim. mod_alloc folds block (i0, i1, ...) onto tile
// (i0 mod t0, i1 mod t1, ...) of its tile counts (a dim without a count has one tile), as the SDK's reference
// modulo_allocate_func does: SBUF tiles follow each other, PSUM tiles take one bank each.
Value resolve_allocation(Interp& in, const Value& buffer, const std::vector<int64_t>& shape, int lead, isa::DType dt,
                         std::optional<std::pair<int64_t, int64_t>>* address, std::vector<int64_t>* fold,
                         int64_t* block_elems, std::vector<std::pair<int64_t, int64_t>>* block_addrs) {
  if (!is_directive(in, buffer)) return buffer;
  auto& at = buffer.as<InstanceObj>()->attrs;
  const ir::Buffer buf = at[intern("buffer")].buffer_v();
  const int64_t bank_bytes = in.get_attr(in.nki->tile_size, intern("psum_bank_fmax_bytes")).i();
  const Value& func = at[intern("func")];
  // The placement func gives block `idx` (a tuple over the block dims) of this tensor.
  auto place = [&](std::vector<Value> idx) {
    int64_t free_bytes = int64_t(isa::dtype_size(dt));
    for (size_t i = size_t(lead) + 1; i < shape.size(); ++i) free_bytes *= shape[i];
    // By keyword, with the documented names: kernels bind other parameters first with functools.partial
    // (`partial(f, bank_map=...)` of `def f(bank_map, idx, pdim_size, fdim_size)`).
    std::pair<Sym, Value> kw[3] = {{intern("idx"), make_tuple(std::move(idx))},
                                   {intern("pdim_size"), Value::integer(shape.empty() ? 1 : shape[size_t(lead)])},
                                   {intern("fdim_size"), Value::integer(free_bytes)}};
    CallArgs ca{nullptr, 0, kw, 3, in.current_site()};
    std::vector<Value> r = in.to_vector(in.call(func, ca));
    if (r.size() != (buf == ir::Buffer::psum ? 3u : 2u))
      raise("ValueError", std::string("alloc(): the allocation function must return ") +
                              (buf == ir::Buffer::psum ? "(bank, partition, address)" : "(partition, address)"));
    size_t k = 0;
    const int64_t bank = buf == ir::Buffer::psum ? in.to_index(r[k++], "alloc() bank") : 0;
    const int64_t part = in.to_index(r[k++], "alloc() partition");
    return std::make_pair(part, in.to_index(r[k], "alloc() address") + bank * bank_bytes);
  };
  if (lead > 0 && !func.is_none()) {
    // alloc(func) of a block tensor: func places every block, each becomes a tensor of its own (make_ndarray).
    int64_t blocks = 1;
    for (int d = 0; d < lead; ++d) {
      blocks *= shape[size_t(d)];
      if (blocks > kMaxAllocBlocks)
        raise("NotImplementedError", "alloc(func): more than " + std::to_string(kMaxAllocBlocks) +
                                         " blocks are not supported by nki-sim");
    }
    std::vector<int64_t> idx(size_t(lead), 0);
    for (int64_t b = 0; b < blocks; ++b) {
      std::vector<Value> iv;
      for (int64_t x : idx) iv.push_back(Value::integer(x));
      block_addrs->push_back(place(std::move(iv)));
      for (int d = lead - 1; d >= 0; --d) {  // row-major: the last block dim runs fastest
        if (++idx[size_t(d)] < shape[size_t(d)]) break;
        idx[size_t(d)] = 0;
      }
    }
    *address = block_addrs->front();
    return at[intern("buffer")];
  }
  if (lead > 0) {
    const std::vector<Value>& tiles = items_of(at[intern("tiles")]);
    for (int d = 0; d < lead; ++d)
      fold->push_back(std::min(shape[size_t(d)], size_t(d) < tiles.size() ? std::max<int64_t>(tiles[size_t(d)].i(), 1)
                                                                          : int64_t(1)));
    if (buf == ir::Buffer::psum) {
      int64_t tile_bytes = int64_t(isa::dtype_size(dt));
      for (size_t i = size_t(lead) + 1; i < shape.size(); ++i) tile_bytes *= shape[i];
      if (shape.size() != size_t(lead) + 2 || tile_bytes > bank_bytes)
        raise("NotImplementedError", "psum.mod_alloc: nki-sim places one block per PSUM bank; a block must have one "
                                     "free dimension of at most " + std::to_string(bank_bytes) + " bytes");
      *block_elems = bank_bytes / int64_t(isa::dtype_size(dt));
    }
  }
  int64_t part = at[intern("base_partition")].i();
  int64_t addr = at[intern("base_addr")].i() + (buf == ir::Buffer::psum ? at[intern("base_bank")].i() * bank_bytes : 0);
  if (!func.is_none()) std::tie(part, addr) = place({});  // a tensor without block dims: func(())
  *address = std::make_pair(part, addr);
  return at[intern("buffer")];
}

void install_nki_compiler(Interp& in) {
  Value cls = make<ClassObj>("AllocationDirective");
  cls.as<ClassObj>()->mro.push_back(cls.as<ClassObj>());
  cls.as<ClassObj>()->builtin = true;
  in.nki->alloc_directive_class = cls;
  ModuleObj* m = in.new_module("neuronxcc.nki.compiler").as<ModuleObj>();
  m->legacy = true;
  for (int which = 0; which < 2; ++which) {
    Value ns = make<ModuleObj>(which ? "psum" : "sbuf");
    ns.as<ModuleObj>()->initialized = true;
    in.set_global(ns.as<ModuleObj>(), "mod_alloc", in.builtin("mod_alloc", which ? psum_mod_alloc : sbuf_mod_alloc));
    in.set_global(ns.as<ModuleObj>(), "alloc", in.builtin("alloc", mem_alloc, Value(), which));
    in.set_global(m, which ? "psum" : "sbuf", ns);
  }
  in.set_global(m, "skip_middle_end_transformations", in.builtin("skip_middle_end_transformations", identity_decorator));
  in.set_global(m, "no_reorder", in.builtin("no_reorder", no_reorder_directive));
}

}  // namespace nkisim::frontend
