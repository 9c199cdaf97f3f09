// test_gemm_queue.cpp - products left running by pe_gemm_start (up to two at once, sim/gemm.cpp) give the
// results of the same products run one after another with pe_gemm: accumulations into one output keep their
// order, a product overwriting another's moving operand or output waits for it, small products run after them.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "sim/gemm.h"
#include "float_test_util.h"

using namespace nkisim;
using floattest::random_values;
using floattest::same_bits;

namespace {

struct Product {
  std::vector<float> w;  // [K, M]
  const float* moving;   // [K, N] fp32, rows `mstep` floats apart
  int64_t mstep;
  float* out;  // [M, N], rows `ostep` floats apart
  int64_t ostep;
  uint32_t K, M, N;
  bool accumulate;
};

sim::GemmMoving moving_of(const Product& p) {
  sim::GemmMoving m;
  m.base = reinterpret_cast<const uint8_t*>(p.moving);
  m.row_step = p.mstep * 4;
  return m;
}
sim::GemmOut out_of(const Product& p) {
  sim::GemmOut o;
  o.base = p.out;
  o.row_step = p.ostep;
  o.accumulate = p.accumulate;
  return o;
}

// Runs `ps` against `mem` twice: started one after another (the weights overwritten after each start, as
// load_stationary does), and with pe_gemm one at a time on a copy of `mem` (pointers moved over). Both
// memories must end bit-identical.
void check_chain(std::vector<float>& mem, std::vector<Product> ps, bool prepare) {
  std::vector<float> ref = mem;
  for (const Product& p : ps) {
    Product q = p;
    q.moving = ref.data() + (p.moving - mem.data());
    q.out = ref.data() + (p.out - mem.data());
    sim::pe_gemm(q.w.data(), q.K, q.M, q.N, moving_of(q), out_of(q));
  }
  std::vector<float> w;
  for (size_t i = 0; i < ps.size(); ++i) {
    const Product& p = ps[i];
    w = p.w;
    if (prepare) {
      sim::PreparedWeights prep(w.data(), p.K, p.M);
      sim::pe_gemm_start(w.data(), p.K, p.M, p.N, moving_of(p), out_of(p));
    } else {
      sim::pe_gemm_start(w.data(), p.K, p.M, p.N, moving_of(p), out_of(p));
    }
    std::fill(w.begin(), w.end(), 3.0f);  // packed at the start: the running product must not see this
    // other work meanwhile (as the DMAs between two products): the helper threads wake and take items
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(i % 3 == 2 ? 1 : 30);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  sim::pe_gemm_settle();
  CHECK(same_bits(mem, ref));
}

}  // namespace

TEST_CASE("pe_gemm_start: chained accumulations into one output keep every element's order") {
  const uint32_t K = 128, M = 128, N = 512;
  for (bool bf16 : {true, false})
    for (bool prepare : {false, true}) {
      CAPTURE(bf16);
      CAPTURE(prepare);
      // moving operands 0..5, then the output
      std::vector<float> mem = random_values(size_t(6) * K * N + size_t(M) * N, bf16 ? 11 : 12, 0.0, bf16);
      std::vector<Product> ps;
      for (uint32_t i = 0; i < 6; ++i)
        ps.push_back({random_values(size_t(K) * M, 100 + i, 0.0, bf16), mem.data() + size_t(i) * K * N, N,
                      mem.data() + size_t(6) * K * N, N, K, M, N, i > 0 && i != 3});
      check_chain(mem, ps, prepare);
    }
}

TEST_CASE("pe_gemm_start: a product overlapping the previous one in another shape, or its moving operand, waits") {
  const uint32_t K = 128, N = 512;
  std::vector<float> mem = random_values(size_t(3) * K * N, 21, 0.0, true);
  float* a = mem.data();                      // moving of product 0, then overwritten by product 1
  float* b = mem.data() + size_t(K) * N;      // moving of products 1 and 2
  float* c = mem.data() + size_t(2) * K * N;  // output of products 0 and 2
  std::vector<Product> ps;
  ps.push_back({random_values(size_t(K) * 128, 31, 0.0, true), a, N, c, N, K, 128, N, true});
  ps.push_back({random_values(size_t(K) * 128, 32, 0.0, true), b, N, a, N, K, 128, N, false});  // writes 0's moving
  // rows 32..95 of c in another shape (M = 64): the same bytes as product 0's output, split differently
  ps.push_back({random_values(size_t(K) * 64, 33, 0.0, true), b, N, c + size_t(32) * N, N, K, 64, N, true});
  // a product with columns 0..255 only, reading rows of a that product 1 writes
  ps.push_back({random_values(size_t(K) * 128, 34, 0.0, true), a, N, c, N, K, 128, 256, true});
  check_chain(mem, ps, false);
  check_chain(mem, ps, true);
  // Overwriting the columns of a's last panel, which the product before reads last: without the wait, the
  // second product's first items would write them while the first one's last item converts them (a race that
  // shows in some of the rounds).
  ps.clear();
  for (uint32_t i = 0; i < 8; ++i) {
    ps.push_back({random_values(size_t(K) * 128, 70 + i, 0.0, true), a, N, c, N, K, 128, N, true});
    ps.push_back({random_values(size_t(K) * 128, 80 + i, 0.0, true), b, N, a + 448, N, K, 128, 64, false});
  }
  for (int round = 0; round < 10; ++round) check_chain(mem, ps, round % 2 == 1);
}

TEST_CASE("pe_gemm_start: independent products, a third start waits for the first, small products after") {
  const uint32_t K = 128, M = 128, N = 512;
  std::vector<float> mem = random_values(size_t(2) * K * N + size_t(3) * M * N, 41, 0.0, true);
  float* mv = mem.data();
  float* out = mem.data() + size_t(2) * K * N;
  std::vector<Product> ps;
  for (uint32_t i = 0; i < 5; ++i)
    ps.push_back({random_values(size_t(K) * M, 50 + i, 0.0, true), mv + size_t(i % 2) * K * N, N,
                  out + size_t(i % 3) * M * N, N, K, M, N, true});
  // too small to split (runs at once on the calling thread), into the output of a running product
  ps.push_back({random_values(size_t(8) * 4, 60, 0.0, true), mv, N, out, N, 8, 4, 16, true});
  ps.push_back({random_values(size_t(K) * M, 61, 0.0, true), mv, N, out, N, K, M, N, true});
  check_chain(mem, ps, false);
  check_chain(mem, ps, true);
}
