// test_prefault.cpp - ir/prefault.h (pages of append-only vectors mapped ahead) and Kernel::add_op, which uses it.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <vector>

#include "ir/kernel.h"
#include "ir/prefault.h"

using namespace nkisim;

namespace {
// Pages of [a, b) (whole pages inside) that are mapped in.
size_t resident_pages(const void* a, const void* b) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(a) + page - 1) & ~(page - 1);
  const uintptr_t hi = reinterpret_cast<uintptr_t>(b) & ~(page - 1);
  if (lo >= hi) return 0;
  std::vector<unsigned char> in((hi - lo) / page);
  REQUIRE(mincore(reinterpret_cast<void*>(lo), hi - lo, in.data()) == 0);
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// MADV_POPULATE_WRITE works on this kernel (Linux 5.14+): without it prefault_append maps nothing ahead.
bool can_populate(const char* page) {
#ifdef MADV_POPULATE_WRITE
  return madvise(const_cast<char*>(page), 4096, MADV_POPULATE_WRITE) == 0;
#else
  (void)page;
  return false;
#endif
}

}  // namespace

TEST_CASE("prefault_append maps the next MiB window of a vector's capacity when an element first reaches it") {
  using Block = std::array<char, 1000>;
  std::vector<Block> v;
  v.reserve(6000);  // ~6 MiB, fresh pages
  const uintptr_t base = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t window = (base | ((uintptr_t(1) << 20) - 1)) + 1;  // the first MiB boundary inside
  while (reinterpret_cast<uintptr_t>(v.data() + v.size()) + sizeof(Block) <= window) {
    ir::prefault_append(v);
    v.push_back(Block{});
  }
  const char* w = reinterpret_cast<const char*>(window);
  const size_t before = resident_pages(w + 8192, w + (1 << 20));
  ir::prefault_append(v);  // this element reaches into the window
  v.push_back(Block{});
  const size_t after = resident_pages(w + 8192, w + (1 << 20));
  if (!can_populate(w)) return;  // Linux before 5.14: nothing to test
  CHECK(before == 0);
  CHECK(after == (1 << 20) / 4096 - 2);
  for (const Block& b : v) CHECK(b[0] == 0);
}

TEST_CASE("prefault_append maps the rest of the first window once the elements reach 64 KiB into it") {
  using Block = std::array<char, 1000>;
  std::vector<Block> v;
  v.reserve(6000);  // ~6 MiB, fresh pages
  const uintptr_t base = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t window = (base | ((uintptr_t(1) << 20) - 1)) + 1;  // the end of the first window
  if (window - base < (uintptr_t(128) << 10)) return;  // (a first window too short to tell)
  const char* w = reinterpret_cast<const char*>(window);
  while (reinterpret_cast<uintptr_t>(v.data() + v.size()) + sizeof(Block) <= base + (uintptr_t(64) << 10)) {
    ir::prefault_append(v);
    v.push_back(Block{});
  }
  const char* next = reinterpret_cast<const char*>(v.data() + v.size()) + 8192;
  const size_t before = resident_pages(next, w);  // a small vector: only the pages its elements touched
  ir::prefault_append(v);  // this element reaches 64 KiB into the vector
  v.push_back(Block{});
  const size_t after = resident_pages(next, w);
  if (!can_populate(w)) return;  // Linux before 5.14: nothing to test
  CHECK(before == 0);
  CHECK(after == (window - reinterpret_cast<uintptr_t>(next)) / 4096);
  CHECK(resident_pages(w + 8192, w + (1 << 20)) == 0);  // the next window waits for its first element
  for (const Block& b : v) CHECK(b[0] == 0);
}

TEST_CASE("Kernel::add_op keeps every op, in order, as its storage grows") {
  ir::Kernel k;
  for (uint32_t i = 0; i < 5000; ++i) {
    ir::Op op;
    op.opcode = i % 2 ? isa::Opcode::memset : isa::Opcode::tensor_copy;
    op.loc = SourceLoc{"k.py", i + 1, 5};
    op.call_chain = {SourceLoc{"caller.py", i + 2, 1}};
    k.add_op(std::move(op));
  }
  REQUIRE(k.ops.size() == 5000);
  for (uint32_t i = 0; i < 5000; ++i) {
    CHECK(k.ops[i].loc.line == i + 1);
    CHECK(k.ops[i].opcode == (i % 2 ? isa::Opcode::memset : isa::Opcode::tensor_copy));
    REQUIRE(k.ops[i].call_chain.size() == 1);
    CHECK(k.ops[i].call_chain[0].line == i + 2);
  }
}
