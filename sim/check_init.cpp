// check_init.cpp - the Checker's shadow state and initcheck (docs/checks.md).
//
// Shadow: one byte per simulated byte, laid out exactly like the memory it shadows (the same partition pitch),
// so the shadow of the host pointer p into a memory is shadow[p - memory base]: a bound View, an indirect DMA
// row or a dynamic-offset operand all map the same way. The shadows are calloc'ed, so pages a kernel never
// touches cost nothing. Byte values: 0 never written, 1 written, k >= 2 computed from never-written data whose
// first read was origin k - 2 (kMaxOrigins of them; later ones share the last code).
//
// Reading never-written data is not wrong by itself: a legacy kernel computes on a whole tile and stores only its
// valid rows (mask=). So, like a memory sanitizer, initcheck propagates: an instruction that reads never-written
// (or tainted) elements writes tainted elements - element for element when the operand and the destination have
// the same number of elements, a whole partition when they have the same partitions (a reduction), else the whole
// destination (a matmul) - and reports when tainted or never-written data reaches a kernel output (at the end of
// the run, naming the instruction that first read the never-written data, its line and the tensor range), or is
// read by an instruction that writes nothing (a register load, device_print, an index).
//
// What counts as written: every byte of a written operand, when its instruction completes (reads are tested
// first, so an instruction reading what it writes sees the old state). Written operands that may keep some
// elements (OUT_KEEP: select, dma_transpose with dropped rows, ...) count as written whole: a kept element holds
// whatever the kernel put there before. An indirect DMA operand counts exactly its rows. A matmul with
// accumulate=True reads its dst first.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string_view>

#include "sim/check_impl.h"
#include "sim/exec.h"

namespace nkisim::sim {

Shadow::Shadow(uint64_t bytes) : size(bytes) {
  if (bytes) data.reset(static_cast<uint8_t*>(std::calloc(bytes, 1)));
  if (bytes && !data) throw Error("out of memory for the check shadow state (" + std::to_string(bytes) + " bytes)");
  clean.assign(size_t((bytes >> kChunkShift) + 1), 0);
}

namespace {
bool ones(const uint8_t* p, uint64_t n);
}

bool Shadow::all_ones(uint64_t off, uint64_t n) {
  const uint64_t end = off + n, chunk = uint64_t(1) << kChunkShift;
  for (uint64_t c = off >> kChunkShift; c << kChunkShift < end; ++c) {
    if (clean[c] == 1) continue;
    const uint64_t c0 = c << kChunkShift, c1 = std::min(c0 + chunk, size);
    if (clean[c] == 0) {
      if (ones(data.get() + c0, c1 - c0)) {
        clean[c] = 1;
        continue;
      }
      clean[c] = 2;
    }
    const uint64_t lo = std::max(off, c0), hi = std::min(end, c1);
    if (!ones(data.get() + lo, hi - lo)) return false;
  }
  return true;
}

void Shadow::set_ones(uint64_t off, uint64_t n) {
  const uint64_t end = off + n;
  for (uint64_t c = off >> kChunkShift; c << kChunkShift < end; ++c) {
    if (clean[c] == 1) continue;
    const uint64_t lo = std::max(off, c << kChunkShift), hi = std::min(end, (c + 1) << kChunkShift);
    std::memset(data.get() + lo, 1, hi - lo);
    clean[c] = 0;
  }
}

void Shadow::set(uint64_t off, uint8_t value, uint64_t n) {
  if (value == 1) return set_ones(off, n);
  std::memset(data.get() + off, value, n);
  for (uint64_t c = off >> kChunkShift; c << kChunkShift < off + n; ++c) clean[c] = 0;
}

Checker::Checker(uint8_t checks, bool as_errors, size_t cores, std::vector<OnChipName> names)
    : impl_(std::make_unique<Impl>()), checks_(checks) {
  impl_->as_errors = as_errors;
  impl_->race_on = checks & kCheckRace;
  impl_->sync_on = checks & kCheckSync;
  impl_->cores.resize(cores);
  impl_->names = std::move(names);
}
Checker::~Checker() = default;

void Checker::attach(ExecContext& ctx, uint32_t core) {
  Impl& m = *impl_;
  ctx.checker = this;
  ctx.check_core = core;
  Impl::Core& c = m.cores.at(core);
  c.program = &ctx.program;
  if (checks_ & kCheckInit) {
    auto span = [](const MemorySpace& s) { return s.pitch() * s.partitions(); };
    c.sbuf = std::make_unique<Shadow>(span(ctx.mem.sbuf));
    c.psum = std::make_unique<Shadow>(span(ctx.mem.psum));
    if (!m.hbm) m.hbm = std::make_unique<Shadow>(span(ctx.mem.hbm));
  }
  if (checks_ & (kCheckRace | kCheckSync)) m.race_attach(ctx, core);
}

void Checker::mark_hbm_written(uint64_t lo, uint64_t hi) {
  if (impl_->hbm && lo < hi && hi <= impl_->hbm->size) impl_->hbm->set_ones(lo, hi - lo);
}

void Checker::mark_inputs(const isa::Program& p) {
  for (const isa::HbmTensor& t : p.hbm_tensors)
    if (t.kind == isa::HbmTensor::Kind::Input || !t.init.empty()) mark_hbm_written(t.address, t.address + t.bytes);
}

void Checker::on_access(ExecContext& ctx, const isa::Instruction& ins, int slot, const View& v, bool writes) {
  if (v.empty()) return;
  (void)ctx;
  impl_->pending.push_back(Impl::Access{v, &ins, slot, writes});
}

void Checker::add(Finding f) { impl_->add_finding(std::move(f)); }

std::vector<Finding> Checker::take_findings() { return std::move(impl_->findings); }

Shadow* Checker::Impl::shadow(uint32_t core, isa::Memory m) {
  if (m == isa::Memory::HBM) return hbm.get();
  Core& c = cores[core];
  return m == isa::Memory::SBUF ? c.sbuf.get() : m == isa::Memory::PSUM ? c.psum.get() : nullptr;
}

namespace {

// Calls f(offset, bytes) for each contiguous byte range of the view's elements (a run with step == element
// size is one range; any other step gives one range per element). Offsets are relative to `base`.
template <class F>
void for_each_range(const View& v, const uint8_t* base, F&& f) {
  for (uint32_t i = 0; i < v.partitions; ++i)
    for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) {
      const int64_t off = p - base;
      if (st == int64_t(v.esize)) {
        f(off, uint64_t(n) * v.esize);
      } else if (st == -int64_t(v.esize)) {
        f(off - int64_t(n - 1) * v.esize, uint64_t(n) * v.esize);
      } else {
        for (size_t k = 0; k < n; ++k) f(off + int64_t(k) * st, uint64_t(v.esize));
      }
    });
}

}  // namespace

namespace {

// True when all n shadow bytes at p are 1 (written, clean).
bool ones(const uint8_t* p, uint64_t n) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w != kOnes) return false;
  }
  for (; i < n; ++i)
    if (p[i] != 1) return false;
  return true;
}

// The state of one element: 1 clean, 0 if any byte was never written, else a taint code.
uint8_t element_state(const uint8_t* p, unsigned n) {
  uint8_t st = 1;
  for (unsigned k = 0; k < n; ++k) {
    if (p[k] == 0) return 0;
    if (p[k] != 1) st = p[k];
  }
  return st;
}

// Calls f(shadow offset of the element) for every element of `v` in element order.
template <class F>
void for_each_element(const View& v, const uint8_t* base, F&& f) {
  for (uint32_t i = 0; i < v.partitions; ++i)
    for_each_run(v, i, [&](uint8_t* p, size_t n, int64_t st) {
      for (size_t k = 0; k < n; ++k) f(p - base + int64_t(k) * st);
    });
}

}  // namespace

bool Checker::Impl::all_written(Shadow& s, const View& v, const uint8_t* base) {
  if (v.contiguous_rows()) {  // the common case: one byte range per partition; its chunks' flags first
    const int64_t n = int64_t(v.free_elems * v.esize);
    for (uint32_t i = 0; i < v.partitions && n > 0; ++i) {
      const int64_t off = v.row(i) - base;
      bool clean = true;
      for (int64_t c = off >> Shadow::kChunkShift; clean && c <= (off + n - 1) >> Shadow::kChunkShift; ++c)
        clean = s.clean[size_t(c)] == 1;
      if (!clean && !s.all_ones(uint64_t(off), uint64_t(n))) return false;
    }
    return true;
  }
  bool ok = true;
  for_each_range(v, base, [&](int64_t off, uint64_t n) { ok = ok && s.all_ones(uint64_t(off), n); });
  return ok;
}

void Checker::Impl::mark(Shadow& s, const View& v, const uint8_t* base) {
  if (v.contiguous_rows()) {  // as all_written: rows whose chunks are all written already cost a flag each
    const int64_t n = int64_t(v.free_elems * v.esize);
    for (uint32_t i = 0; i < v.partitions && n > 0; ++i) {
      const int64_t off = v.row(i) - base;
      bool clean = true;
      for (int64_t c = off >> Shadow::kChunkShift; clean && c <= (off + n - 1) >> Shadow::kChunkShift; ++c)
        clean = s.clean[size_t(c)] == 1;
      if (!clean) s.set_ones(uint64_t(off), uint64_t(n));
    }
    return;
  }
  for_each_range(v, base, [&](int64_t off, uint64_t n) { s.set_ones(uint64_t(off), n); });
}

void Checker::on_retire(ExecContext& ctx, const isa::Instruction& ins) {
  Impl& m = *impl_;
  if (m.race) m.race_retire(ctx, ins);  // racecheck, synccheck (sim/check_race.cpp)
  if (m.pending.empty()) return;
  const uint32_t core = ctx.check_core;
  if (checks_ & kCheckInit) {
    // Reads (and an accumulating matmul's dst) against the state before this instruction.
    struct Dirty {
      const Impl::Access* a;
      std::vector<uint8_t> state;  // per element, element order
    };
    std::vector<Dirty> dirty;
    const Impl::Access* fresh = nullptr;  // the first operand with never-written elements
    uint8_t inherited = 0;                // a taint code read
    bool writes = false;
    for (const Impl::Access& a : m.pending) {
      const bool accumulates = a.writes && a.slot == 0 && ins.params.accumulate;
      writes = writes || a.writes;
      if (a.writes && !accumulates) continue;
      Shadow* s = m.shadow(core, a.v.mem);
      const uint8_t* base = ctx.mem.of(a.v.mem).ptr(0, 0);
      if (!s || Impl::all_written(*s, a.v, base)) continue;
      Dirty d{&a, {}};
      d.state.reserve(a.v.total_elems());
      for_each_element(a.v, base, [&](int64_t off) {
        const uint8_t st = element_state(s->data.get() + off, a.v.esize);
        if (st == 0 && !fresh) fresh = &a;
        if (st >= 2 && !inherited) inherited = st;
        d.state.push_back(st);
      });
      dirty.push_back(std::move(d));
    }
    // The Tensor Engine's stationary (sim/pe_state.h) carries taint from a load_stationary to the multiplies
    // that use it: stationary column m feeds dst partition m.
    const bool pe_load = isa::has_trait(ins.op, isa::Trait::PE_LOAD), pe_move = isa::has_trait(ins.op, isa::Trait::PE_MOVE);
    Impl::Core& pe = m.cores[core];
    uint8_t code = inherited;
    if (fresh) {  // a first read of never-written data: a new origin
      Finding f = m.unwritten_finding(ctx, core, ins, *fresh);
      // Nothing carries it on (a register load, device_print): report now. A sendrecv's src goes to the other core,
      // whose dst counts as written (taint does not cross cores: a possible miss, never a false report).
      if (!writes && !pe_load && !isa::has_trait(ins.op, isa::Trait::CROSS_CORE)) {
        m.add_finding(std::move(f));
        code = 0;
      } else {
        code = uint8_t(2 + std::min<size_t>(m.origins.size(), Impl::kMaxOrigins - 1));
        if (m.origins.size() < Impl::kMaxOrigins) m.origins.push_back(std::move(f));
      }
    }
    if (pe_load) {
      pe.pe_cols.clear();
      for (const Dirty& d : dirty) {
        const View& r = d.a->v;
        if (pe.pe_cols.size() < r.free_elems) pe.pe_cols.resize(r.free_elems, 0);
        for (uint64_t i = 0; i < d.state.size(); ++i) pe.pe_cols[i % r.free_elems] |= d.state[i] != 1;
      }
      pe.pe_code = code;
      if (code < 2) pe.pe_cols.clear();
    }
    const bool pe_taint = pe_move && !pe.pe_cols.empty();
    if (pe_taint && code < 2) code = pe.pe_code;
    for (const Impl::Access& w : m.pending) {
      if (!w.writes) continue;
      Shadow* s = m.shadow(core, w.v.mem);
      if (!s) continue;
      const uint8_t* base = ctx.mem.of(w.v.mem).ptr(0, 0);
      if ((dirty.empty() && !pe_taint) || code < 2) {
        Impl::mark(*s, w.v, base);
        continue;
      }
      // Which destination elements the tainted inputs reach.
      const uint64_t n = w.v.total_elems(), per = w.v.free_elems;
      std::vector<uint8_t> taint(n, 0);
      for (const Dirty& d : dirty) {
        const View& r = d.a->v;
        if (d.state.size() == n) {
          for (uint64_t i = 0; i < n; ++i) taint[i] |= d.state[i] != 1;
        } else if (r.partitions == w.v.partitions) {
          for (uint32_t p = 0; p < r.partitions; ++p) {
            bool any = false;
            for (uint64_t k = 0; k < r.free_elems && !any; ++k) any = d.state[p * r.free_elems + k] != 1;
            if (any) std::fill(taint.begin() + int64_t(p * per), taint.begin() + int64_t((p + 1) * per), 1);
          }
        } else {
          std::fill(taint.begin(), taint.end(), 1);
        }
      }
      if (pe_taint && w.slot == 0)
        for (uint32_t p = 0; p < w.v.partitions && p < pe.pe_cols.size(); ++p)
          if (pe.pe_cols[p]) std::fill(taint.begin() + int64_t(p * per), taint.begin() + int64_t((p + 1) * per), 1);
      uint64_t i = 0;
      for_each_element(w.v, base, [&](int64_t off) {
        s->set(uint64_t(off), taint[i++] ? code : 1, w.v.esize);
      });
    }
  }
  m.pending.clear();
}

// ---- reporting ----------------------------------------------------------------------------------------

namespace {

// "name[a:b, c:d]" for the bounding box of element coordinates lo..hi (inclusive).
std::string box_text(const std::string& name, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi) {
  std::ostringstream os;
  os << name << "[";
  for (size_t d = 0; d < lo.size(); ++d) os << (d ? ", " : "") << lo[d] << ":" << hi[d] + 1;
  os << "]";
  return os.str();
}

// Row-major coordinates of flat element `e` in `shape`.
void unravel(int64_t e, const std::vector<int64_t>& shape, std::vector<int64_t>& out) {
  out.assign(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t n = std::max<int64_t>(shape[d], 1);
    out[d] = e % n;
    e /= n;
  }
}

struct Box {
  std::vector<int64_t> lo, hi;
  uint64_t elements = 0;
  void add(const std::vector<int64_t>& c) {
    if (lo.empty()) {
      lo = hi = c;
    } else {
      for (size_t d = 0; d < c.size(); ++d) {
        lo[d] = std::min(lo[d], c[d]);
        hi[d] = std::max(hi[d], c[d]);
      }
    }
    ++elements;
  }
};

}  // namespace

// The HBM tensor holding byte `a`, or nullptr.
const isa::HbmTensor* Checker::Impl::hbm_tensor_at(const isa::Program& p, uint64_t a) {
  for (const isa::HbmTensor& t : p.hbm_tensors)
    if (a >= t.address && a < t.address + t.bytes) return &t;
  return nullptr;
}

// The on-chip name covering partition `part`, byte `b` of memory `mem` (the latest declared), or nullptr.
const OnChipName* Checker::Impl::name_at(isa::Memory mem, uint32_t part, int64_t b) const {
  const OnChipName* best = nullptr;
  for (const OnChipName& n : names) {
    if (n.mem != mem || n.shape.empty()) continue;
    int64_t row = int64_t(isa::dtype_size(n.dtype));
    for (size_t d = 1; d < n.shape.size(); ++d) row *= n.shape[d];
    if (part >= n.start_partition && part < n.start_partition + n.shape[0] && b >= n.offset && b < n.offset + row)
      best = &n;
  }
  return best;
}

std::string Checker::Impl::describe_unwritten(ExecContext& ctx, uint32_t core, const View& v, const Shadow& s,
                                              const uint8_t* base, uint64_t* count,
                                              const std::function<bool(uint8_t)>& which) const {
  return describe_elements(ctx, core, v, base, count, [&](int64_t off, unsigned n) {
    return which(element_state(s.data.get() + off, n));
  });
}

std::string Checker::Impl::describe_elements(ExecContext& ctx, uint32_t core, const View& v, const uint8_t* base,
                                             uint64_t* count,
                                             const std::function<bool(int64_t, unsigned)>& pick) const {
  const isa::Program& p = *cores[core].program;
  Box box;
  std::string name;
  const isa::HbmTensor* tensor = nullptr;
  const OnChipName* chip = nullptr;
  bool have = false;
  std::vector<int64_t> c;
  const uint64_t pitch = ctx.mem.of(v.mem).pitch();
  uint64_t total = 0;
  for_each_range(v, base, [&](int64_t off, uint64_t n) {
    for (uint64_t k = 0; k < n; k += v.esize) {
      const int64_t o = off + int64_t(k);
      if (!pick(o, unsigned(std::min<uint64_t>(v.esize, n - k)))) continue;
      ++total;
      if (v.mem == isa::Memory::HBM) {
        if (!have) {
          tensor = hbm_tensor_at(p, uint64_t(o));
          have = true;
          name = tensor ? tensor->name : "hbm";
        }
        if (tensor) {
          if (uint64_t(o) < tensor->address || uint64_t(o) >= tensor->address + tensor->bytes) continue;
          unravel((o - int64_t(tensor->address)) / int64_t(isa::dtype_size(tensor->dtype)), tensor->shape, c);
        } else {
          c = {o / int64_t(v.esize)};
        }
      } else {
        const uint32_t part = uint32_t(uint64_t(o) / pitch);
        const int64_t b = int64_t(uint64_t(o) % pitch);
        if (!have) {
          chip = name_at(v.mem, part, b);
          have = true;
          name = chip ? chip->name : std::string(isa::memory_name(v.mem));
        }
        if (chip) {
          const int64_t es = int64_t(isa::dtype_size(chip->dtype));
          std::vector<int64_t> inner(chip->shape.begin() + 1, chip->shape.end());
          if (part < chip->start_partition || part >= chip->start_partition + chip->shape[0]) continue;
          int64_t row = es;
          for (int64_t d : inner) row *= d;
          if (b < chip->offset || b >= chip->offset + row) continue;
          std::vector<int64_t> ci;
          unravel((b - chip->offset) / es, inner, ci);
          c.assign(1, int64_t(part - chip->start_partition));
          c.insert(c.end(), ci.begin(), ci.end());
        } else {  // partitions x bytes
          c = {int64_t(part), b};
        }
      }
      box.add(c);
    }
  });
  if (count) *count = total;
  if (box.lo.empty()) return name;
  if (v.mem != isa::Memory::HBM && !chip) {  // sbuf[p0:p1, bytes 0x..:0x..]
    std::ostringstream os;
    os << name << "[" << box.lo[0] << ":" << box.hi[0] + 1 << ", bytes " << box.lo[1] << ":" << box.hi[1] + v.esize
       << "]";
    return os.str();
  }
  return box_text(name, box.lo, box.hi);
}

void Checker::Impl::locate(Finding& f, const isa::Program& p, const isa::Instruction& ins) {
  f.engine = int(ins.engine);
  f.opcode = isa::info(ins.op).mnemonic;
  const auto& st = p.streams[size_t(ins.engine)];
  if (!st.empty() && &ins >= st.data() && &ins < st.data() + st.size()) f.index = &ins - st.data();
  if (ins.loc && ins.loc < p.locations.size()) f.loc = p.locations[ins.loc];
}

std::string Checker::Impl::who(const Finding& f, int core) const {
  std::ostringstream os;
  os << f.opcode << " (" << (cores.size() > 1 ? "core " + std::to_string(core) + " " : "")
     << isa::engine_name(isa::Engine(f.engine)) << " #" << f.index << ")";
  return os.str();
}

Finding Checker::Impl::unwritten_finding(ExecContext& ctx, uint32_t core, const isa::Instruction& ins,
                                         const Access& a) {
  Finding f;
  f.kind = "initcheck";
  f.core = int(core);
  locate(f, *cores[core].program, ins);
  uint64_t n = 0;
  const uint8_t* base = ctx.mem.of(a.v.mem).ptr(0, 0);
  f.tensor = describe_unwritten(ctx, core, a.v, *shadow(core, a.v.mem), base, &n, [](uint8_t st) { return st == 0; });
  const bool accumulates = a.writes;
  const char* slot_name = a.slot < isa::info(ins.op).num_operands ? isa::info(ins.op).operands[a.slot].name : "?";
  std::ostringstream os;
  if (accumulates)
    os << who(f, int(core)) << " accumulates onto never-written " << isa::memory_name(a.v.mem) << " " << f.tensor
       << " (" << n << " element" << (n == 1 ? "" : "s") << " of '" << slot_name
       << "'); the first matmul of a group needs accumulate=False";
  else
    os << who(f, int(core)) << " reads never-written " << f.tensor << " (" << n << " element" << (n == 1 ? "" : "s")
       << " of operand '" << slot_name << "')";
  f.message = os.str();
  return f;
}

void Checker::Impl::add_finding(Finding f) {
  if (as_errors) f.severity = "error";
  findings.push_back(std::move(f));
}

void Checker::finish(ExecContext& ctx) {
  Impl& m = *impl_;
  if (m.race && m.sync_on) m.sync_finish();
  if (!(checks_ & kCheckInit) || !m.hbm) return;
  const isa::Program& p = ctx.program;
  SourceLoc file;  // the kernel file, for a location-less finding
  for (size_t i = 1; i < p.locations.size() && file.file.empty(); ++i) file.file = p.locations[i].file;
  std::vector<bool> origin_reported(m.origins.size(), false);
  for (const isa::HbmTensor& t : p.hbm_tensors) {
    if (t.output_index < 0 || t.kind == isa::HbmTensor::Kind::Input || !t.bytes) continue;
    if (m.hbm->all_ones(t.address, t.bytes)) continue;
    // The tensor as one view: [all / inner, inner] elements.
    isa::AccessPattern ap;
    ap.mem = isa::Memory::HBM;
    ap.dtype = t.dtype;
    ap.num_partitions = 1;
    ap.offset = int64_t(t.address);
    const uint64_t all = t.bytes / isa::dtype_size(t.dtype);
    const uint64_t inner = t.shape.empty() || t.shape.back() <= 0 ? 1 : uint64_t(t.shape.back());
    if (isa::fits_stride(int64_t(inner)) && all / inner <= UINT32_MAX) {
      ap.num_dims = 2;
      ap.dims[0] = {int32_t(inner), uint32_t(all / inner)};
      ap.dims[1] = {1, uint32_t(inner)};
    } else {  // rows too long for a free dim's 32-bit stride: the rows as the HBM row dim (64-bit stride)
      ap.num_partitions = uint32_t(all / inner);
      ap.partition_stride = int64_t(inner);
      ap.num_dims = 1;
      ap.dims[0] = {1, uint32_t(inner)};
    }
    View v = describe(ap);
    const uint8_t* base = ctx.mem.hbm.ptr(0, 0);
    v.base = const_cast<uint8_t*>(base) + t.address;
    // Tainted elements: one finding per origin (the instruction that first read the never-written data).
    std::vector<bool> seen(Impl::kMaxOrigins, false);
    for_each_element(v, base, [&](int64_t off) {
      const uint8_t st = element_state(m.hbm->data.get() + off, v.esize);
      if (st >= 2) seen[st - 2] = true;
    });
    for (size_t o = 0; o < seen.size() && o < m.origins.size(); ++o) {
      if (!seen[o]) continue;
      uint64_t n = 0;
      const std::string range = m.describe_unwritten(ctx, 0, v, *m.hbm, base, &n,
                                                     [o](uint8_t st) { return st == uint8_t(2 + o); });
      Finding f = m.origins[o];
      f.notes.emplace_back(file, "the result reaches output '" + t.name + "': " + range + " (" + std::to_string(n) +
                                     " element" + (n == 1 ? "" : "s") + ") computed from never-written data");
      if (!origin_reported[o]) m.add_finding(std::move(f));
      origin_reported[o] = true;
    }
    uint64_t n = 0;
    const std::string range = m.describe_unwritten(ctx, 0, v, *m.hbm, base, &n, [](uint8_t st) { return st == 0; });
    if (!n) continue;
    Finding f;
    f.kind = "initcheck";
    f.tensor = range;
    if (!file.file.empty()) f.loc = file;
    std::ostringstream os;
    os << "output '" << t.name << "' is not fully written: " << range << " holds " << n << " of its " << all
       << " elements never written by the kernel";
    f.message = os.str();
    for (size_t i = 0; i < p.hbm_tensors.size() && i < ctx.tensor_written.size(); ++i)
      if (ctx.tensor_written[i] && p.hbm_tensors[i].kind == isa::HbmTensor::Kind::Input)
        f.notes.emplace_back(file, "the kernel wrote its input '" + p.hbm_tensors[i].name +
                                       "': was that store meant for '" + t.name + "'?");
    m.add_finding(std::move(f));
  }
}

}  // namespace nkisim::sim
