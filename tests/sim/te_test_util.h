// te_test_util.h - helpers for the Tensor Engine tests: a program rig (inputs DMA'd to SBUF, Tensor
// instructions in order, results copied out by the Vector engine) and reference matmuls computed here.
#pragma once
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "sim_test_util.h"

namespace tetest {
using namespace simtest;

// Raw element bits of `v` in dtype t (float32 keeps the exact bits).
inline uint32_t enc(DType t, float v) { return t == DType::float32 ? isa::float_to_bits(v) : isa::from_f32(t, v); }
inline float dec(DType t, uint32_t b) { return isa::to_f32(t, b); }

inline sim::HostArray host(DType t, uint32_t P, uint32_t F, const std::vector<uint32_t>& bits) {
  sim::HostArray a;
  a.dtype = t;
  a.shape = {P, F};
  const unsigned es = isa::dtype_size(t);
  a.data.resize(bits.size() * es);
  for (size_t i = 0; i < bits.size(); ++i) isa::store_bits(a.data.data() + i * es, es, bits[i]);
  return a;
}
inline std::vector<uint32_t> bits_of(const sim::HostArray& a) {
  const unsigned es = isa::dtype_size(a.dtype);
  std::vector<uint32_t> v(a.data.size() / es);
  for (size_t i = 0; i < v.size(); ++i) v[i] = isa::load_bits(a.data.data() + i * es, es);
  return v;
}

// A Tensor Engine test program: inputs DMA'd into SBUF, Tensor instructions in order, then every result
// (PSUM or SBUF) copied by the Vector engine to SBUF and stored.
struct Rig {
  Pipeline k;
  std::vector<sim::HostArray> inputs;
  uint32_t tensor_ops = 0;
  int64_t sbuf_next = 0;
  std::vector<std::pair<AccessPattern, AccessPattern>> results;  // (source, SBUF staging)

  AccessPattern input(DType t, uint32_t P, uint32_t F, const std::vector<uint32_t>& bits) {
    const int64_t off = sbuf_next;
    sbuf_next += (int64_t(F) * isa::dtype_size(t) + 63) / 64 * 64;
    inputs.push_back(host(t, P, F, bits));
    return k.load(("in" + std::to_string(inputs.size())).c_str(), t, P, F, off);
  }
  isa::Instruction& tensor(isa::Instruction ins, Engine e = Engine::Tensor) {
    ++tensor_ops;
    return k.compute(e, std::move(ins));
  }
  isa::Instruction& ls(const AccessPattern& st) { return tensor(make(Opcode::load_stationary, {st})); }
  isa::Instruction& mm(const AccessPattern& dst, const AccessPattern& mv, bool accumulate = false) {
    auto ins = make(Opcode::multiply_moving, {dst, mv});
    ins.params.accumulate = accumulate;
    return tensor(ins);
  }
  void result(const AccessPattern& src) { results.emplace_back(src, AccessPattern{}); }
  sim::Result run(const char* target = "trn2") {
    for (auto& [src, stage] : results) {
      stage = sbuf(src.dtype, 0, src.num_partitions, sbuf_next, uint32_t(src.free_elements()));
      sbuf_next += (int64_t(src.free_elements()) * isa::dtype_size(src.dtype) + 63) / 64 * 64;
      auto ins = make(Opcode::tensor_copy, {stage, src});
      ins.waits.push_back({1, tensor_ops});
      ins.updates.push_back({1, 1});
      ++k.computes;
      k.b.add(Engine::Vector, ins);
      k.store("out", stage);
    }
    sim::Options o;
    o.target = *isa::find_target(target);
    k.b.p.target = target;
    return k.run(inputs, o);
  }
};

inline std::string run_error(Rig& r, const char* target = "trn2") {
  try {
    r.run(target);
  } catch (nkisim::Error& e) {
    return e.what();
  }
  return "no error";
}

// Reference: out[m][n] = sum_k s[k][m] * v[k][n] in fp32, k in order from +0.0, each product rounded to fp32
// first (the double product of two floats is exact, so rounding it once is the correctly rounded product;
// GCC may narrow it to a float multiply and fuse that with the add, hence the volatile).
inline std::vector<float> ref_fp32(const std::vector<float>& s, const std::vector<float>& v, uint32_t K, uint32_t M,
                                   uint32_t N) {
  std::vector<float> out(size_t(M) * N);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < K; ++k) {
        volatile float p = float(double(s[k * M + m]) * double(v[k * N + n]));  // volatile: never fused
        acc += p;
      }
      out[m * N + n] = acc;
    }
  return out;
}
inline std::vector<double> ref_double(const std::vector<float>& s, const std::vector<float>& v, uint32_t K, uint32_t M,
                                      uint32_t N) {
  std::vector<double> out(size_t(M) * N, 0.0);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t k = 0; k < K; ++k) out[m * N + n] += double(s[k * M + m]) * double(v[k * N + n]);
  return out;
}

// Random values of dtype t (returned as their fp32 values and bits).
struct Data {
  std::vector<float> val;
  std::vector<uint32_t> bits;
};
inline Data sample(DType t, size_t n, uint32_t seed, bool small_ints) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::uniform_int_distribution<int> i8(-8, 8);
  Data d;
  for (size_t i = 0; i < n; ++i) {
    const float x = small_ints ? float(i8(rng)) : u(rng);
    const uint32_t b = enc(t, x);
    d.bits.push_back(b);
    d.val.push_back(dec(t, b));
  }
  return d;
}

// Runs one LS + MM of [K, M] x [K, N] inputs of dtypes st/mt; returns the fp32 result.
inline std::vector<float> matmul(DType st, DType mt, const Data& s, const Data& v, uint32_t K, uint32_t M, uint32_t N,
                                 const char* target = "trn2") {
  Rig r;
  auto a = r.input(st, K, M, s.bits);
  auto b = r.input(mt, K, N, v.bits);
  auto d = psum(DType::float32, 0, M, 0, N);
  r.ls(a);
  r.mm(d, b);
  r.result(d);
  return values<float>(r.run(target).outputs.at(0));
}

// Special values of every class for the bit-exactness tests, as raw bits of dtype t.
inline std::vector<uint32_t> special_bits(DType t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  const unsigned bits = isa::dtype_size(t) * 8;
  for (size_t i = 0; i < n; ++i) v[i] = uint32_t(rng()) & (bits == 32 ? 0xffffffffu : (1u << bits) - 1);
  // fixed specials at the start (as many as fit in n): NaN payloads, +-inf, -0, subnormal
  auto put = [&](const uint32_t(&sp)[6]) { std::copy_n(std::begin(sp), std::min<size_t>(n, 6), v.begin()); };
  if (t == DType::float32) {
    const uint32_t sp[] = {0x7fc00001u, 0xffa00000u, 0x7f800000u, 0xff800000u, 0x80000000u, 0x00000001u};
    put(sp);
  } else if (t == DType::bfloat16) {
    const uint32_t sp[] = {0x7fc1u, 0xffa0u, 0x7f80u, 0xff80u, 0x8000u, 0x0001u};
    put(sp);
  }
  return v;
}

}  // namespace tetest
