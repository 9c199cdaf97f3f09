// sym.cpp - the process-wide identifier interner. Interning takes a lock; sym_name() is lock-free
// (names live in fixed-size chunks that never move).
#include "frontend/sym.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace nkisim::frontend {
namespace {

constexpr size_t kChunkBits = 10, kChunkSize = size_t(1) << kChunkBits, kMaxChunks = 1 << 14;

struct Interner {
  std::mutex mu;
  std::array<std::atomic<std::string*>, kMaxChunks> chunks{};
  std::atomic<uint32_t> count{0};
  std::unordered_map<std::string_view, Sym> ids;

  Interner() {
    add("");  // Sym 0
    static const char* const predef[] = {
#define NKISIM_SYM_STR(n) #n,
        NKISIM_PREDEF_SYMS(NKISIM_SYM_STR)
#undef NKISIM_SYM_STR
    };
    for (const char* p : predef) {
      std::string_view n = p;  // `union_` stands for `union` (a C++ keyword)
      if (n.size() > 1 && n[0] != '_' && n.back() == '_') n.remove_suffix(1);
      add(n);
    }
  }
  ~Interner() {
    for (auto& c : chunks) delete[] c.load();
  }
  Sym add(std::string_view s) {  // called with mu held (or from the constructor)
    uint32_t id = count.load(std::memory_order_relaxed);
    size_t chunk = id >> kChunkBits;
    if (chunk >= kMaxChunks) throw std::length_error("too many distinct identifiers");
    std::string* c = chunks[chunk].load(std::memory_order_relaxed);
    if (!c) {
      c = new std::string[kChunkSize];
      chunks[chunk].store(c, std::memory_order_release);
    }
    c[id & (kChunkSize - 1)] = std::string(s);
    ids.emplace(c[id & (kChunkSize - 1)], id);
    count.store(id + 1, std::memory_order_release);
    return id;
  }
};

Interner& interner() {
  static Interner in;
  return in;
}

}  // namespace

Sym intern(std::string_view s) {
  Interner& in = interner();
  std::lock_guard<std::mutex> lock(in.mu);
  auto it = in.ids.find(s);
  if (it != in.ids.end()) return it->second;
  return in.add(s);
}

std::string_view sym_name(Sym s) {
  Interner& in = interner();
  if (s >= in.count.load(std::memory_order_acquire)) return "<?>";
  return in.chunks[s >> kChunkBits].load(std::memory_order_acquire)[s & (kChunkSize - 1)];
}

}  // namespace nkisim::frontend
