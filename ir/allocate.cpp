// allocate.cpp - memory allocation: HBM tensors, and SBUF/PSUM with liveness-based reuse.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <sstream>

#include "ir/passes.h"

namespace nkisim::ir {
namespace {

constexpr int64_t kHbmAlign = 64;  // byte alignment of HBM tensors (a cache line; our choice)

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

int64_t per_partition_bytes(const Tensor& t) {
  int64_t n = 1;
  for (size_t i = 1; i < t.shape.size(); ++i) n *= t.shape[i];
  return n * isa::dtype_size(t.dtype);
}

std::string where(const SourceLoc& l) {
  if (!l.known()) return "";
  return " (" + l.file + ":" + std::to_string(l.line) + ")";
}

struct Live {
  int tensor;
  int64_t first = -1, last = -1;  // op indices
};

// One on-chip memory: per-partition byte space [0, capacity), next-fit placement with a rotating cursor
// so a freed block is not reused immediately (which would serialise producer and consumer).
class OnChipAllocator {
 public:
  // Automatic placement stays below `limit` (the compiler keeps the rest); address= may use all of `capacity`.
  OnChipAllocator(std::string name, int64_t capacity, int64_t align, int64_t limit)
      : name_(std::move(name)), cap_(capacity), limit_(limit), align_(align) {}

  void release_before(int64_t op_index, const std::vector<Live>& live) {
    for (auto it = blocks_.begin(); it != blocks_.end();)
      if (live[size_t(it->second.tensor)].last < op_index) it = blocks_.erase(it);
      else ++it;
  }

  // A tensor the kernel places itself (address=): automatic placement keeps out of its bytes over its whole live
  // range, not only once allocation reaches its first use (an automatic tile placed earlier and still live then
  // would share its bytes: two tensors in one place).
  void pin(int tensor, int64_t off, int64_t bytes, int64_t first_partition) {
    pinned_.push_back(Pinned{tensor, off, bytes, first_partition});
  }

  // Returns the byte offset, or -1 when nothing fits. The tile takes partitions [0, parts).
  int64_t place(int tensor, int64_t bytes, int64_t parts, const std::vector<Live>& live) {
    bytes = align_up(std::max<int64_t>(bytes, 1), align_);
    std::vector<std::pair<int64_t, int64_t>> taken;  // (offset, bytes): the live blocks and the pinned tensors
    for (auto& [off, b] : blocks_) taken.emplace_back(off, b.bytes);
    const Live& me = live[size_t(tensor)];
    for (const Pinned& q : pinned_) {
      const Live& l = live[size_t(q.tensor)];
      if (l.first >= 0 && l.first <= me.last && me.first <= l.last && q.p0 < parts) taken.emplace_back(q.off, q.bytes);
    }
    if (!pinned_.empty()) std::sort(taken.begin(), taken.end());
    auto try_from = [&](int64_t start, int64_t limit) -> int64_t {
      int64_t pos = align_up(start, align_);
      for (auto& [off, n] : taken) {
        if (off + n <= pos) continue;
        if (off >= pos + bytes) break;
        pos = align_up(off + n, align_);
      }
      return pos + bytes <= limit ? pos : -1;
    };
    int64_t pos = try_from(cursor_, limit_);
    if (pos < 0) pos = try_from(0, limit_);
    if (pos < 0) return -1;
    blocks_[pos] = Block{tensor, bytes};
    cursor_ = pos + bytes;
    return pos;
  }

  void reserve(int tensor, int64_t off, int64_t bytes) { blocks_[off] = Block{tensor, bytes}; }
  // Takes the tensor's block out; returns its (offset, bytes), or (-1, 0) when it had none.
  std::pair<int64_t, int64_t> remove(int tensor) {
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
      if (it->second.tensor == tensor) {
        const std::pair<int64_t, int64_t> was{it->first, it->second.bytes};
        blocks_.erase(it);
        return was;
      }
    return {-1, 0};
  }
  // The live tensors filling the cheapest window of `bytes` below the limit (only the failing one when spilling
  // it is cheaper); empty when no window can be freed.
  std::vector<int> cheapest_window(int failing, int64_t bytes, const std::function<double(int, int)>& price) const {
    const int64_t need = align_up(std::max<int64_t>(bytes, 1), align_);
    double best = price(failing, failing);
    std::vector<int> out;
    if (best < std::numeric_limits<double>::infinity()) out = {failing};
    std::vector<int64_t> starts{0, limit_ - need};  // windows after a block or before one
    for (auto& [off, b] : blocks_) {
      starts.push_back(align_up(off + b.bytes, align_));
      starts.push_back(off - need);
    }
    for (int64_t s : starts) {
      if (s < 0 || s % align_ != 0 || s + need > limit_) continue;
      double sum = 0;
      std::vector<int> set;
      for (auto& [off, b] : blocks_) {
        if (off + b.bytes <= s || off >= s + need) continue;
        sum += price(b.tensor, failing);
        set.push_back(b.tensor);
      }
      if (sum < best) best = sum, out = std::move(set);
    }
    return out;
  }
  // Whether [off, off + bytes) is free and below the automatic-placement limit.
  bool free_at(int64_t off, int64_t bytes) const {
    if (off < 0 || off + bytes > limit_) return false;
    auto it = blocks_.lower_bound(off + bytes);
    if (it == blocks_.begin()) return true;
    --it;
    return it->first + it->second.bytes <= off;
  }

  std::string describe_live(const Kernel& k) const {
    std::ostringstream os;
    int64_t used = 0;
    for (auto& [off, b] : blocks_) used += b.bytes;
    os << used << " of " << limit_ << " bytes per partition";
    if (limit_ < cap_) os << " (" << cap_ << " less " << cap_ - limit_ << " the compiler keeps)";
    os << " are in use by " << blocks_.size() << " live allocation(s)";
    int shown = 0;
    for (auto& [off, b] : blocks_) {
      if (shown++ == 8) {
        os << "; ...";
        break;
      }
      const Tensor& t = k.tensors[size_t(b.tensor)];
      os << (shown == 1 ? ": " : ", ") << "'" << t.name << "' " << b.bytes << " B" << where(t.loc);
    }
    return os.str();
  }
  std::vector<std::pair<int, int64_t>> live_tensors(int failing, int64_t bytes) const {
    std::vector<std::pair<int, int64_t>> out{{failing, bytes}};
    for (auto& [off, b] : blocks_) out.emplace_back(b.tensor, b.bytes);
    return out;
  }
  const std::string& name() const { return name_; }
  int64_t capacity() const { return cap_; }

 private:
  struct Block {
    int tensor;
    int64_t bytes;
  };
  struct Pinned {
    int tensor;
    int64_t off, bytes, p0;  // bytes [off, off + bytes) of partitions from p0 on
  };
  std::vector<Pinned> pinned_;
  std::string name_;
  int64_t cap_, limit_, align_;
  int64_t cursor_ = 0;
  std::map<int64_t, Block> blocks_;
};

}  // namespace

std::vector<Placement> allocate(const Kernel& k, const isa::TargetDesc& t, isa::Program& p, SpillChoice* spill) {
  std::vector<Placement> pl(k.tensors.size());

  // Live ranges from first to last op that touches a tensor.
  std::vector<Live> live(k.tensors.size());
  for (size_t i = 0; i < k.tensors.size(); ++i) live[i].tensor = int(i);
  auto touch = [&](int tensor, size_t oi) {
    Live& l = live[size_t(tensor)];
    if (l.first < 0) l.first = int64_t(oi);
    l.last = int64_t(oi);
  };
  for (size_t oi = 0; oi < k.ops.size(); ++oi) {
    for (auto& v : k.ops[oi].operands)
      if (v) touch(v->tensor, oi);
    for (const DynOperand& d : k.ops[oi].dynamic)  // the offset a dynamic operand reads at run time
      if (d.offsets) touch(d.offsets->tensor, oi);
  }
  // Dynamic loops (docs/dynamic-loops.md): the body runs again after its last op, and a tensor the body
  // touches may carry a value from one iteration to the next, so every tensor a loop touches is live for the
  // whole loop (innermost first, so enclosing loops see the result). Conservative: body temporaries do not
  // share memory with each other.
  {
    std::vector<int64_t> open;
    for (size_t oi = 0; oi < k.ops.size(); ++oi) {
      if (k.ops[oi].ctl == Ctl::loop_begin) open.push_back(int64_t(oi));
      if (k.ops[oi].ctl != Ctl::loop_end || open.empty()) continue;
      const int64_t b = open.back(), e = int64_t(oi);
      open.pop_back();
      for (Live& l : live)
        if (l.first >= 0 && l.first <= e && l.last >= b) {
          l.first = std::min(l.first, b);
          l.last = std::max(l.last, e);
        }
    }
  }

  // HBM: parameters in order, then every other HBM tensor in creation order.
  int64_t hbm = 0;
  std::vector<int> hbm_index(k.tensors.size(), -1);
  auto place_hbm = [&](int ti) {
    const Tensor& tt = k.tensors[size_t(ti)];
    isa::HbmTensor h;
    h.name = tt.name;
    h.dtype = tt.dtype;
    h.shape = tt.shape;
    h.bytes = uint64_t(tt.num_elements()) * isa::dtype_size(tt.dtype);
    h.address = uint64_t(hbm);
    h.kind = tt.role == Tensor::Role::Param ? isa::HbmTensor::Kind::Input : isa::HbmTensor::Kind::Internal;
    h.param_index = tt.param_index;
    h.init = tt.init;
    hbm = align_up(hbm + int64_t(h.bytes), kHbmAlign);
    pl[size_t(ti)] = Placement{isa::Memory::HBM, 0, int64_t(h.address), true};
    hbm_index[size_t(ti)] = int(p.hbm_tensors.size());
    p.hbm_tensors.push_back(std::move(h));
  };
  // Parameters, then shared HBM tensors (the same on every core of an LNC=2 kernel), then private ones from
  // Kernel::private_hbm_base (after the previous core's space: private HBM is per core).
  for (int ti : k.params) place_hbm(ti);
  for (size_t ti = 0; ti < k.tensors.size(); ++ti)
    if (k.tensors[ti].buffer == Buffer::shared_hbm && !pl[ti].allocated) place_hbm(int(ti));
  hbm = std::max(hbm, align_up(k.private_hbm_base, kHbmAlign));
  for (size_t ti = 0; ti < k.tensors.size(); ++ti)
    if (!is_on_chip(k.tensors[ti].buffer) && !pl[ti].allocated) place_hbm(int(ti));
  for (size_t oi = 0; oi < k.outputs.size(); ++oi) {
    int ti = k.outputs[oi];
    const Tensor& tt = k.tensors[size_t(ti)];
    if (is_on_chip(tt.buffer) || (tt.role != Tensor::Role::Param && tt.buffer != Buffer::shared_hbm))
      throw Error("kernel output '" + tt.name + "' is in " + std::string(buffer_name(tt.buffer)) +
                      "; outputs must be allocated with buffer=nl.shared_hbm",
                  tt.loc.known() ? std::optional<SourceLoc>(tt.loc) : std::nullopt);
    isa::HbmTensor& h = p.hbm_tensors[size_t(hbm_index[size_t(ti)])];
    if (h.output_index >= 0)
      throw Error("kernel returns '" + tt.name + "' more than once", tt.loc.known() ? std::optional<SourceLoc>(tt.loc) : std::nullopt);
    h.output_index = int32_t(oi);
    if (h.kind == isa::HbmTensor::Kind::Internal) h.kind = isa::HbmTensor::Kind::Output;
  }
  p.hbm_bytes = uint64_t(std::max<int64_t>(hbm, kHbmAlign));

  // On-chip: walk tensors in order of first use; free those whose last use is before it.
  // PSUM allocations are bank-aligned (nki-language.md §3.2).
  const int64_t bank_bytes = int64_t(t.psum_partition_bytes / t.psum_banks);
  const int64_t sbuf_bytes = int64_t(t.sbuf_partition_bytes);
  OnChipAllocator sbuf("SBUF", sbuf_bytes, 64, std::max<int64_t>(64, sbuf_bytes - int64_t(t.sbuf_reserved_bytes)));
  OnChipAllocator psum("PSUM", int64_t(t.psum_partition_bytes), bank_bytes, int64_t(t.psum_partition_bytes));
  std::vector<int> order;
  for (size_t ti = 0; ti < k.tensors.size(); ++ti)
    if (is_on_chip(k.tensors[ti].buffer) && live[ti].first >= 0) order.push_back(int(ti));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return live[size_t(a)].first < live[size_t(b)].first; });
  for (int ti : order)
    if (const Tensor& tt = k.tensors[size_t(ti)]; tt.address)
      (tt.buffer == Buffer::psum ? psum : sbuf).pin(ti, tt.address->second, per_partition_bytes(tt), tt.address->first);
  for (int ti : order) {
    const Tensor& tt = k.tensors[size_t(ti)];
    OnChipAllocator& a = tt.buffer == Buffer::psum ? psum : sbuf;
    isa::Memory mem = tt.buffer == Buffer::psum ? isa::Memory::PSUM : isa::Memory::SBUF;
    std::optional<SourceLoc> loc = tt.loc.known() ? std::optional<SourceLoc>(tt.loc) : std::nullopt;
    a.release_before(live[size_t(ti)].first, live);
    int64_t bytes = per_partition_bytes(tt);
    int64_t parts = tt.shape.empty() ? 1 : tt.shape[0];
    if (parts > int64_t(t.partitions))
      throw Error("tensor '" + tt.name + "': Size of partition dimension " + std::to_string(parts) +
                      " exceeds architecture limitation of " + std::to_string(int64_t(t.partitions)), loc);
    if (tt.address) {
      auto [p0, off] = *tt.address;
      if (p0 < 0 || p0 + parts > int64_t(t.partitions) || off < 0 || off + bytes > a.capacity())
        throw Error("tensor '" + tt.name + "': address=(" + std::to_string(p0) + ", " + std::to_string(off) +
                        ") does not fit in " + a.name(), loc);
      a.reserve(ti, off, bytes);
      pl[size_t(ti)] = Placement{mem, p0, off, true};
      continue;
    }
    int64_t off = a.place(ti, bytes, parts, live);
    // Spilling (lower()): the chosen tensor leaves the allocator (its block freed if placed) until this one fits.
    std::vector<std::tuple<int, int64_t, int64_t>> removed;  // (victim, offset, bytes) taken out for this tensor
    bool windowed = false;
    while (off < 0 && spill) {
      if (!spill->error)
        spill->error = Error(a.name() + " capacity exceeded: tensor '" + tt.name + "' needs " + std::to_string(bytes) +
                                 " bytes per partition; " + a.describe_live(k), loc);
      if (spill->price && !removed.empty() && !windowed) {  // one victim was not enough: the cheapest window
        windowed = true;
        for (const auto& [v, was, was_bytes] : removed) {
          a.reserve(v, was, was_bytes);
          pl[size_t(v)] = Placement{mem, 0, was, true};
          spill->spilled.erase(std::find(spill->spilled.begin(), spill->spilled.end(), v));
        }
        removed.clear();
        const std::vector<int> window = a.cheapest_window(ti, bytes, spill->price);
        if (window.empty()) throw *spill->error;
        if (window.front() == ti) {
          spill->spilled.push_back(ti);
          break;
        }
        for (int v : window) {
          spill->spilled.push_back(v);
          const auto [was, was_bytes] = a.remove(v);
          if (was >= 0) removed.emplace_back(v, was, was_bytes);
          pl[size_t(v)] = Placement{};
        }
        off = a.place(ti, bytes, parts, live);
        continue;
      }
      const int victim = spill->choose(a.live_tensors(ti, bytes));
      if (victim < 0) throw *spill->error;
      spill->spilled.push_back(victim);
      if (victim == ti) break;
      const auto [was, was_bytes] = a.remove(victim);
      if (was >= 0) removed.emplace_back(victim, was, was_bytes);
      pl[size_t(victim)] = Placement{};
      off = a.place(ti, bytes, parts, live);
    }
    if (spill && !spill->spilled.empty() && spill->spilled.back() == ti) continue;
    if (off < 0)
      throw Error(a.name() + " capacity exceeded: tensor '" + tt.name + "' needs " + std::to_string(bytes) +
                      " bytes per partition; " + a.describe_live(k), loc);
    pl[size_t(ti)] = Placement{mem, 0, off, true};
    // When the free space was in pieces, a victim whose block the new tensor did not take goes back where it was
    // (a compiler that plans addresses ahead does not spill it); the last taken out first.
    for (auto it = removed.rbegin(); it != removed.rend(); ++it) {
      const auto [v, was, was_bytes] = *it;
      if (!a.free_at(was, was_bytes)) continue;
      a.reserve(v, was, was_bytes);
      pl[size_t(v)] = Placement{mem, 0, was, true};
      spill->spilled.erase(std::find(spill->spilled.begin(), spill->spilled.end(), v));
    }
  }
  return pl;
}

}  // namespace nkisim::ir
