// test_act_exp.cpp - act_apply(exp) (8-lane AVX-512 path where available) equals std::exp bit for bit.
// The exhaustive check over all 2^32 inputs is bench/expf_exhaustive.cpp (not run in CI); this samples.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "sim/activation.h"

TEST_CASE("act_apply(exp) returns std::exp's bits: specials, range edges, 1M random bit patterns, in place") {
  std::vector<float> in = {0.0f, -0.0f, 1.0f, -1.0f, 88.0f, -88.0f, 87.99999f, -87.99999f, 88.72283f, 88.7229f,
                           -103.27f, -103.98f, -104.0f, 1e-30f, -1e-30f, 1e-45f, 0.5f, -0.5f,
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::max(),
                           std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min()};
  std::mt19937 rng(5);
  for (int k = 0; k < 1000000; ++k) {
    uint32_t b = uint32_t(rng());
    if (k % 2) b = (b & 0x80000000u) | (0x3d000000u + (b & 0x07ffffffu));  // half in |x| ~ [0.03, 90]
    float f;
    std::memcpy(&f, &b, 4);
    in.push_back(f);
  }
  std::vector<float> out(in.size());
  nkisim::sim::act_apply(nkisim::isa::ActFunc::exp, in.data(), out.data(), in.size());
  std::vector<float> same = in;  // in place, and a length that leaves a scalar tail
  nkisim::sim::act_apply(nkisim::isa::ActFunc::exp, same.data(), same.data(), same.size() - 3);
  size_t bad = 0, bad_in_place = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const float want = std::exp(in[k]);
    bad += std::memcmp(&out[k], &want, 4) != 0;
    if (k + 3 < in.size()) bad_in_place += std::memcmp(&same[k], &want, 4) != 0;
  }
  CHECK(bad == 0);
  CHECK(bad_in_place == 0);
  CHECK(std::memcmp(&same[in.size() - 1], &in[in.size() - 1], 4) == 0);  // past n: untouched
}
