// nl_blocks.cpp - legacy block tensors: nl.ndarray((B, nl.par_dim(P), F), buffer=nl.sbuf) is a tensor whose
// partition axis is not dim 0 (nki-language.md §1.2). The SBUF allocation keeps the partition dim first and
// puts the leading block dims into the free dims (block b of (B, par_dim(P), F) lives at free offset b * F);
// the user's view lists the block dims first. Integers on the block dims give ordinary tiles. A block tensor
// placed by alloc(func) is one tensor per block (TensorObj::blocks): an index picks that block's tensor.
#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {

Value block_get_item(Interp& in, const TensorObj* t, const Value& key) {
  std::vector<Value> keys = subscript_keys(key);
  ir::View v = t->view;
  int lead = t->lead;
  size_t used = 0;
  std::vector<int64_t> logical;  // the block indices given, before modulo folding
  size_t first = 0;              // alloc(func) blocks: the first of the selected blocks in t->blocks
  while (lead > 0 && used < keys.size()) {
    const Value& k = keys[used];
    if (k.is(VK::Ellipsis)) break;
    if (k.is(VK::Slice)) {
      auto* s = k.as<SliceObj>();
      if (s->start.is_none() && s->stop.is_none() && s->step.is_none()) break;  // ':' keeps the block dims
    }
    if (!k.is_int_like())
      raise("NotImplementedError", "the block dimensions before nl.par_dim of tensor '" + t->base().name +
                                       "' must be indexed with integers (e.g. t[i] or t[i, i_p, i_f]), got '" +
                                       type_name(k) + "'; nki-sim does not support index tiles or slices on them");
    const int64_t n = v.dims[0].count;
    int64_t i = k.i();
    if (i < 0) i += n;
    if (i < 0 || i >= n)
      raise("IndexError", "index " + std::to_string(k.i()) + " is out of bounds for block dimension " +
                              std::to_string(used) + " of size " + std::to_string(n) + " of tensor '" + t->base().name +
                              "'");
    logical.push_back(i);
    if (t->blocks) {  // separate tensors: the selected ones are a contiguous run of t->blocks
      size_t inner = 1;
      for (size_t d = 1; d < size_t(lead); ++d) inner *= size_t(v.dims[d].count);
      first += size_t(i) * inner;
      v.dims.erase(v.dims.begin());
      --lead;
      ++used;
      continue;
    }
    if (!t->fold.empty()) i %= t->fold[size_t(t->lead - lead)];  // modulo allocation (nki_compiler.cpp)
    v.offset += i * v.dims[0].stride;
    v.dims.erase(v.dims.begin());
    --lead;
    ++used;
  }
  if (lead > 0) {
    // Only full slices / '...' on block dims remain: t[:] or t[...] is the whole block tensor.
    for (size_t k = used; k < keys.size(); ++k) {
      const Value& x = keys[k];
      const bool full = x.is(VK::Ellipsis) || (x.is(VK::Slice) && x.as<SliceObj>()->start.is_none() &&
                                               x.as<SliceObj>()->stop.is_none() && x.as<SliceObj>()->step.is_none());
      if (!full)
        raise("NotImplementedError", "the block dimensions before nl.par_dim of tensor '" + t->base().name +
                                         "' must be indexed with integers first (e.g. t[i] or t[i, i_p, i_f]); "
                                         "nki-sim does not support slicing the tile dims of several blocks at once");
    }
    if (t->blocks) {
      size_t n = 1;
      for (size_t d = 0; d < size_t(lead); ++d) n *= size_t(v.dims[d].count);
      auto sub = std::make_shared<std::vector<int>>(t->blocks->begin() + long(first),
                                                    t->blocks->begin() + long(first + n));
      Value r = make<TensorObj>(sub->front(), v, t->kernel);
      const_cast<TensorObj*>(r.as<TensorObj>())->lead = lead;
      const_cast<TensorObj*>(r.as<TensorObj>())->blocks = std::move(sub);
      return r;
    }
    Value r = nl::view_value(t, v);
    const_cast<TensorObj*>(r.as<TensorObj>())->lead = lead;
    if (!t->fold.empty())
      const_cast<TensorObj*>(r.as<TensorObj>())->fold.assign(t->fold.end() - lead, t->fold.end());
    return r;
  }
  Value tile = t->blocks ? Value(make<TensorObj>((*t->blocks)[first],
                                                  ir::full_view(t->kernel->tensors[size_t((*t->blocks)[first])],
                                                                (*t->blocks)[first]),
                                                  t->kernel))
                         : nl::view_value(t, v);
  if (!t->fold.empty() && t->base().buffer == ir::Buffer::psum) {
    // Another logical block now owns this PSUM bank: it starts empty, so the first `+= nc_matmul` into it
    // overwrites (a memset ends the previous block's accumulation) instead of adding to the previous block.
    auto& owner = nl_state(in).fold_owner[{t->id, v.offset}];
    if (!owner.empty() && owner != logical) {
      nl::call_isa(in, "memset", {{"dst", tile}, {"value", Value::floating(0.0)}});
      in.kernel.ops.back().group_end = true;  // (ir/forward.cpp drops it when nothing reads the zeros)
    }
    owner = logical;
  }
  if (used == keys.size()) return tile;
  std::vector<Value> rest(keys.begin() + long(used), keys.end());
  return nki_get_item(in, tile, rest.size() == 1 ? rest[0] : make_tuple(std::move(rest)));
}

}  // namespace nkisim::frontend
