// expf_exhaustive.cpp - checks that act_apply(exp) (the AVX-512 path of sim/activation.cpp) returns the
// same bits as std::exp(float) for every one of the 2^32 fp32 inputs (NaNs included). Not a unit test
// (about a minute on one core); run it once per toolchain / libm change:
//     build/nki-bench-expf
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "sim/activation.h"

int main() {
  using nkisim::isa::ActFunc;
  std::printf("vectorised exp: %s\n", nkisim::sim::act_exp_vectorized() ? "yes" : "no (std::exp per element)");
  constexpr size_t kBlock = size_t(1) << 20;
  std::vector<float> in(kBlock), out(kBlock);
  uint64_t mismatches = 0, checked = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t base = 0; base < (uint64_t(1) << 32); base += kBlock) {
    for (size_t k = 0; k < kBlock; ++k) {
      const uint32_t b = uint32_t(base + k);
      std::memcpy(&in[k], &b, 4);
    }
    nkisim::sim::act_apply(ActFunc::exp, in.data(), out.data(), kBlock);
    for (size_t k = 0; k < kBlock; ++k) {
      const float want = std::exp(in[k]);
      uint32_t a, w;
      std::memcpy(&a, &out[k], 4);
      std::memcpy(&w, &want, 4);
      if (a != w && mismatches++ < 10)
        std::printf("mismatch: x bits 0x%08x: got 0x%08x, std::exp 0x%08x\n", uint32_t(base + k), a, w);
    }
    checked += kBlock;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%llu inputs checked in %.1f s, %llu mismatches\n", (unsigned long long)checked, s,
              (unsigned long long)mismatches);
  return mismatches ? 1 : 0;
}
