// test_vector_ops_gpsimd.cpp - nc_stream_shuffle, the random number family (rng, rand2, dropout, set_rng_seed,
// rand_set_state, rand_get_state), local_gather, sequence_bounds, nonzero_with_count, topk.
#include <algorithm>
#include <numeric>

#include "sim/cost.h"
#include "vector_test_util.h"

using namespace vectest;

namespace {
// The generator as documented in isa/instructions.def / sim/exec_vector_random.cpp, written independently.
struct Xorwow {
  uint32_t x[5], d;
  uint32_t next() {
    uint32_t t = x[4] ^ (x[4] >> 2);
    t ^= t << 1;
    t ^= x[0] ^ (x[0] << 4);
    for (int k = 4; k > 0; --k) x[k] = x[k - 1];
    x[0] = t;
    d += 362437u;
    return t + d;
  }
};
uint32_t avalanche(uint32_t z) {
  z = (z ^ (z >> 16)) * 0x7feb352du;
  z = (z ^ (z >> 15)) * 0x846ca68bu;
  return z ^ (z >> 16);
}
Xorwow seeded(uint32_t seed, uint32_t lane, uint32_t gen) {
  Xorwow g{};
  uint32_t h = avalanche(seed ^ avalanche(lane * 4 + gen + 1));
  for (int k = 0; k < 5; ++k) {
    g.x[k] = h;
    h = avalanche(h + uint32_t(k) + 1);
  }
  return g;
}

// shuffle_mask -> the eight packed words of params.shuffle0..7
void set_mask(isa::InstrParams& p, const std::vector<int>& mask) {
  int32_t w[8] = {};
  for (int k = 0; k < 32; ++k) w[k / 4] = int32_t(uint32_t(w[k / 4]) | uint32_t(mask[k] & 0xff) << (8 * (k % 4)));
  p.shuffle0 = w[0], p.shuffle1 = w[1], p.shuffle2 = w[2], p.shuffle3 = w[3];
  p.shuffle4 = w[4], p.shuffle5 = w[5], p.shuffle6 = w[6], p.shuffle7 = w[7];
}
}  // namespace

TEST_CASE("nc_stream_shuffle: per-quadrant partition permutation, 255 keeps dst, in place") {
  const uint32_t P = 128, F = 3;
  std::vector<float> x(P * F), old(P * F, -1.0f);
  for (uint32_t i = 0; i < P * F; ++i) x[i] = float(i);
  std::vector<int> rotate(32), bcast(32, 0);
  for (int k = 0; k < 32; ++k) rotate[k] = (k + 1) % 32;
  bcast[5] = 255;
  Kernel k;
  auto tx = k.f32_in(x, P, F), d1 = k.f32_in(old, P, F), d2 = k.f32_in(old, P, F);
  set_mask(k.op(Engine::Vector, Opcode::nc_stream_shuffle, {d1, tx}).params, rotate);
  set_mask(k.op(Engine::Vector, Opcode::nc_stream_shuffle, {d2, tx}).params, bcast);
  set_mask(k.op(Engine::Vector, Opcode::nc_stream_shuffle, {tx, tx}).params, rotate);  // in place
  for (auto t : {d1, d2, tx}) k.out(t);
  auto r = k.run();
  auto o1 = f32_out(r, 0), o2 = f32_out(r, 1), o3 = f32_out(r, 2);
  for (uint32_t i = 0; i < P; ++i)
    for (uint32_t j = 0; j < F; ++j) {
      const uint32_t q = i / 32 * 32;
      CHECK(o1[i * F + j] == x[(q + (i % 32 + 1) % 32) * F + j]);
      CHECK(o3[i * F + j] == x[(q + (i % 32 + 1) % 32) * F + j]);
      CHECK(o2[i * F + j] == (i % 32 == 5 ? -1.0f : x[q * F + j]));
    }
  Kernel e;
  auto s = e.f32_in(noise(4, 1), 4, 1);
  set_mask(e.op(Engine::Vector, Opcode::nc_stream_shuffle, {e.tile(DType::float32, 4, 1), s}).params, rotate);
  CHECK(e.error() == "nc_stream_shuffle: mask entry 3 = 4 selects partition 4 but src has 4 partitions");
}

TEST_CASE("random numbers: the documented XORWOW streams, seeding, truncation and state round trip") {
  const uint32_t P = 128, F = 10;
  Kernel k;
  k.target = "trn3";
  auto seed = k.raw_in(DType::uint32, std::vector<uint32_t>{12345u}, 1, 1);
  auto a = k.tile(DType::uint32, P, F), b = k.tile(DType::uint8, P, F), st = k.tile(DType::uint32, P, 24);
  auto g = k.tile(DType::uint32, P, F), gs = k.tile(DType::uint32, P, 6);
  k.op(Engine::Vector, Opcode::rng, {a});  // default state = seed 0
  k.op(Engine::Vector, Opcode::set_rng_seed, {seed});
  k.op(Engine::Vector, Opcode::rng, {b});
  k.op(Engine::Vector, Opcode::rand_get_state, {st});
  k.op(Engine::GpSimd, Opcode::rng, {g});
  k.op(Engine::GpSimd, Opcode::rand_get_state, {gs});
  for (auto t : {a, b, st, g, gs}) k.out(t);
  auto r = k.run();
  auto oa = values<uint32_t>(r.outputs[0]), ost = values<uint32_t>(r.outputs[2]);
  auto ob = values<uint8_t>(r.outputs[1]);
  auto og = values<uint32_t>(r.outputs[3]), ogs = values<uint32_t>(r.outputs[4]);
  for (uint32_t p = 0; p < P; ++p) {
    Xorwow v0[4], v1[4];
    for (uint32_t q = 0; q < 4; ++q) v0[q] = seeded(0, p, q), v1[q] = seeded(12345u, p, q);
    Xorwow gp = seeded(0, p, 0);
    for (uint32_t j = 0; j < F; ++j) {
      CHECK(oa[p * F + j] == v0[j % 4].next());
      CHECK(ob[p * F + j] == uint8_t(v1[j % 4].next()));
      CHECK(og[p * F + j] == gp.next());
    }
    for (uint32_t q = 0; q < 4; ++q) {
      for (int w = 0; w < 5; ++w) CHECK(ost[p * 24 + q * 6 + w] == v1[q].x[w]);
      CHECK(ost[p * 24 + q * 6 + 5] == v1[q].d);
    }
    for (int w = 0; w < 5; ++w) CHECK(ogs[p * 6 + w] == gp.x[w]);
  }
  // Loading a saved state replays the stream.
  Kernel k2;
  k2.target = "trn2";
  std::vector<uint32_t> state(P * 6);
  for (uint32_t p = 0; p < P; ++p) {
    Xorwow g0 = seeded(7, p, 0);
    std::copy(g0.x, g0.x + 5, state.begin() + p * 6);
    state[p * 6 + 5] = 99;
  }
  auto ts = k2.raw_in(DType::uint32, state, P, 6);
  auto o = k2.tile(DType::int16, P, 5);
  k2.op(Engine::GpSimd, Opcode::rand_set_state, {ts});
  k2.op(Engine::GpSimd, Opcode::rng, {o});
  k2.out(o);
  auto oo = values<int16_t>(k2.run().outputs[0]);
  for (uint32_t p = 0; p < P; ++p) {
    Xorwow g0 = seeded(7, p, 0);
    g0.d = 99;
    for (int j = 0; j < 5; ++j) CHECK(oo[p * 5 + j] == int16_t(g0.next()));
  }
  Kernel e;
  e.target = "trn1";
  e.op(Engine::GpSimd, Opcode::rng, {e.tile(DType::uint32, 1, 1)});
  CHECK(e.error() == "rng: the GpSimd engine has no random number generator on trn1 (trn2 and later)");
  Kernel e2;
  e2.op(Engine::Vector, Opcode::rand_get_state, {e2.tile(DType::uint32, 1, 24)});
  CHECK(e2.error() == "rand_get_state: the VectorE generator state is only accessible on trn3 (use engine=gpsimd)");
}

TEST_CASE("rand2 is uniform in from min up to max, dropout zeroes about prob of the elements and keeps the rest exactly") {
  const uint32_t P = 128, F = 512;
  Kernel k;
  k.target = "trn3";
  auto hi = k.f32_in(std::vector<float>(P, 5.0f), P, 1);
  auto u = k.tile(DType::float32, P, F);
  k.op(Engine::Vector, Opcode::rand2, {u, {}, hi}).params.imm0 = -3.0f;
  std::vector<float> x = noise(P * F, 91, 1.0f, 2.0f);
  auto tx = k.f32_in(x, P, F);
  auto d = k.tile(DType::float32, P, F);
  k.op(Engine::Vector, Opcode::dropout, {d, tx}).params.imm0 = 0.25f;
  k.out(u);
  k.out(d);
  auto r = k.run();
  auto ou = f32_out(r, 0), od = f32_out(r, 1);
  double mean = 0;
  for (float v : ou) {
    CHECK((v >= -3.0f && v < 5.0f));
    mean += v;
  }
  mean /= double(ou.size());
  CHECK(mean == doctest::Approx(1.0).epsilon(0.02));
  size_t zeros = 0;
  for (size_t i = 0; i < od.size(); ++i) {
    if (od[i] == 0.0f)
      ++zeros;
    else
      CHECK(od[i] == x[i]);
  }
  CHECK(double(zeros) / double(od.size()) == doctest::Approx(0.25).epsilon(0.05));
  Kernel e;
  e.op(Engine::Vector, Opcode::rand2, {e.tile(DType::float32, 1, 1)});
  CHECK(e.error() == "rand2: not available on trn2 (trn3 only)");
}

TEST_CASE("local_gather: per core, indices flattened partition-first, K elements each, same for all 16 partitions") {
  const uint32_t P = 32, F = 64, FI = 2, K = 4;  // 2 cores, 32 indices per core
  std::vector<float> src = noise(P * F, 93);
  std::vector<uint16_t> idx(P * FI);
  for (uint32_t p = 0; p < P; ++p)
    for (uint32_t c = 0; c < FI; ++c) idx[p * FI + c] = uint16_t((p * 7 + c * 13 + p / 16 * 5) % (F - K + 1));
  const uint32_t V = 20;
  Kernel k;
  auto ts = k.f32_in(src, P, F), ti = k.raw_in(DType::uint16, idx, P, FI);
  auto d = k.tile(DType::float32, P, V * K);
  auto& g = k.op(Engine::GpSimd, Opcode::local_gather, {d, ts, ti});
  g.params.elem_per_idx = K, g.params.num_valid = int32_t(V);
  k.out(d);
  auto o = f32_out(k.run(), 0);
  for (uint32_t p = 0; p < P; ++p) {
    const uint32_t core0 = p / 16 * 16;
    for (uint32_t v = 0; v < V; ++v) {
      const uint32_t at = idx[(core0 + v % 16) * FI + v / 16];
      for (uint32_t e = 0; e < K; ++e) CHECK(o[p * V * K + v * K + e] == src[p * F + at + e]);
    }
  }
}

TEST_CASE("sequence_bounds: run starts and exclusive ends, id 0 is padding") {
  for (DType t : {DType::float32, DType::int32}) {
    std::vector<float> ids = {0, 1, 1, 2, 2, 2, 0, 3, 3};
    Kernel k;
    AccessPattern in;
    if (t == DType::float32) {
      in = k.f32_in(ids, 1, 9);
    } else {
      std::vector<int32_t> ii(ids.begin(), ids.end());
      in = k.raw_in(DType::int32, ii, 1, 9);
    }
    auto d = k.tile(t, 1, 18);
    k.op(Engine::GpSimd, Opcode::sequence_bounds, {d, in});
    k.out(d);
    auto r = k.run();
    const std::vector<int> want = {9, 1, 1, 3, 3, 3, 9, 7, 7, -1, 3, 3, 6, 6, 6, -1, 9, 9};
    if (t == DType::float32) {
      auto o = f32_out(r, 0);
      for (size_t i = 0; i < want.size(); ++i) CHECK(o[i] == float(want[i]));
    } else {
      auto o = values<int32_t>(r.outputs[0]);
      for (size_t i = 0; i < want.size(); ++i) CHECK(o[i] == want[i]);
    }
  }
}

TEST_CASE("nonzero_with_count: core partition 0 of each 16 only, indices + offset, padding, count") {
  const uint32_t P = 32, F = 6;
  std::vector<float> x(P * F, 0.0f);
  x[0 * F + 1] = 2.0f, x[0 * F + 4] = -0.5f, x[0 * F + 5] = kNaN, x[0 * F + 2] = -0.0f;
  x[1 * F + 0] = 1.0f;                 // partition 1: not a core's first partition, untouched
  x[16 * F + 3] = 7.0f;
  Kernel k;
  auto tx = k.f32_in(x, P, F);
  auto d = k.raw_in(DType::int32, std::vector<int32_t>(P * (F + 1), 42), P, F + 1);
  auto& i = k.op(Engine::GpSimd, Opcode::nonzero_with_count, {d, tx});
  i.params.offset = 100, i.params.pad_val = -9;
  k.out(d);
  auto o = values<int32_t>(k.run().outputs[0]);
  CHECK(std::vector<int32_t>(o.begin(), o.begin() + 7) == std::vector<int32_t>{101, 104, 105, -9, -9, -9, 3});
  CHECK(std::vector<int32_t>(o.begin() + 7, o.begin() + 14) == std::vector<int32_t>(7, 42));
  CHECK(std::vector<int32_t>(o.begin() + 16 * 7, o.begin() + 17 * 7) ==
        std::vector<int32_t>{103, -9, -9, -9, -9, -9, 1});
}

TEST_CASE("topk: K largest of each 16-partition group's snake-ordered values, ascending, with indices") {
  const uint32_t P = 32, F = 4, n = 50, K = 6;
  std::vector<uint16_t> src(P * F);
  std::vector<float> val(P * F);
  for (size_t i = 0; i < src.size(); ++i) {
    src[i] = bf16_bits(float(int(i * 37 % 101)) - 50.0f);
    val[i] = bf16_value(src[i]);
  }
  src[0] = bf16_bits(60.0f), val[0] = 60.0f;  // element e=0 of group 0
  src[1] = bf16_bits(60.0f), val[1] = 60.0f;  // element e=16 (partition 0, column 1): a tie, higher e
  Kernel k;
  auto ts = k.raw_in(DType::bfloat16, src, P, F);
  auto v = k.tile(DType::bfloat16, P, K), ix = k.tile(DType::uint32, P, K);
  k.op(Engine::GpSimd, Opcode::topk, {v, ix, ts}).params.num_valid = n;
  k.out(v);
  k.out(ix);
  auto r = k.run();
  auto ov = values<uint16_t>(r.outputs[0]);
  auto oi = values<uint32_t>(r.outputs[1]);
  for (uint32_t g = 0; g < 2; ++g) {
    std::vector<uint32_t> e(n);
    std::iota(e.begin(), e.end(), 0u);
    auto value = [&](uint32_t i) { return val[(g * 16 + i % 16) * F + i / 16]; };
    std::stable_sort(e.begin(), e.end(), [&](uint32_t a, uint32_t b) { return value(a) > value(b); });
    for (uint32_t p = 0; p < 16; ++p)
      for (uint32_t j = 0; j < K; ++j) {
        CHECK(oi[(g * 16 + p) * K + j] == e[K - 1 - j]);
        CHECK(ov[(g * 16 + p) * K + j] == bf16_bits(value(e[K - 1 - j])));
      }
  }
  CHECK(oi[K - 1] == 0u);  // of the tie at 60, e = 0 ranks highest (last in ascending order)
  CHECK(oi[K - 2] == 16u);
  const isa::TargetDesc t = trn2();
  auto ins = make(Opcode::topk, {v, ix, ts});
  ins.params.num_valid = n;
  CHECK(sim::cost_topk(ins, Engine::GpSimd, t) == doctest::Approx((4.0 * n + K) / t.gpsimd_ghz));
}
