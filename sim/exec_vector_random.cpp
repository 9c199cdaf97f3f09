// exec_vector_random.cpp - random numbers: rng, rand2, dropout, set_rng_seed, rand_set_state, rand_get_state.
//
// The generator (documented in isa/instructions.def): every lane has XORWOW generators, 6 words each
// (x0..x4 and a Weyl counter d): per step t = x4 ^ (x4 >> 2); t ^= t << 1; t ^= x0 ^ (x0 << 4); the words
// shift down (x4 = x3, .., x1 = x0), x0 = t, d += 362437, and the output is t + d. VectorE has 4 generators
// per lane (element j of a partition draws from generator j mod 4), GpSimd 1. Seeding with s gives generator g
// of lane p the words x_k = h_k, h_0 = mix(s ^ mix(4p + g + 1)), h_k = mix(h_{k-1} + k) (mix = a 32-bit
// avalanche hash), d = 0. The hardware's generators (LFSR before trn3) are not reproduced bit for bit: the
// streams are deterministic for a seed, uniform, and independent per lane.
#include <cstring>

#include "sim/exec_vector_util.h"

namespace nkisim::sim {
namespace {
constexpr int kWords = 6;
constexpr int kVectorGens = 4;

uint32_t mix(uint32_t z) {
  z ^= z >> 16;
  z *= 0x7feb352du;
  z ^= z >> 15;
  z *= 0x846ca68bu;
  z ^= z >> 16;
  return z;
}

void seed_generator(uint32_t* g, uint32_t seed, uint32_t stream) {
  uint32_t h = mix(seed ^ mix(stream + 1));
  uint32_t any = 0;
  for (int k = 0; k < 5; ++k) {
    g[k] = h;
    any |= h;
    h = mix(h + uint32_t(k) + 1);
  }
  if (!any) g[0] = 1;  // an all-zero XORWOW state would stay zero
  g[5] = 0;
}

uint32_t next(uint32_t* g) {
  uint32_t t = g[4];
  const uint32_t s = g[0];
  g[4] = g[3];
  g[3] = g[2];
  g[2] = g[1];
  g[1] = s;
  t ^= t >> 2;
  t ^= t << 1;
  t ^= s ^ (s << 4);
  g[0] = t;
  g[5] += 362437u;
  return t + g[5];
}

int generators(isa::Engine e) { return e == isa::Engine::GpSimd ? 1 : kVectorGens; }

// The engine's generator words: lanes x generators x kWords, seeded with 0 on first use.
uint32_t* states(ExecContext& ctx, isa::Engine e) {
  std::vector<uint32_t>& s = e == isa::Engine::GpSimd ? ctx.rng_gpsimd : ctx.rng_vector;
  const int gens = generators(e);
  const size_t lanes = size_t(ctx.target.partitions);
  if (s.size() < lanes * gens * kWords) {
    s.assign(lanes * gens * kWords, 0);
    for (size_t p = 0; p < lanes; ++p)
      for (int g = 0; g < gens; ++g) seed_generator(&s[(p * gens + g) * kWords], 0, uint32_t(p * kVectorGens + g));
  }
  return s.data();
}

// n random words for lane `lane` of engine e (element j from generator j mod gens).
void draw(ExecContext& ctx, isa::Engine e, uint32_t lane, uint32_t* out, size_t n) {
  const int gens = generators(e);
  uint32_t* g = states(ctx, e) + size_t(lane) * gens * kWords;
  for (size_t j = 0; j < n; ++j) out[j] = next(g + (j % gens) * kWords);
}

inline float unit(uint32_t r) { return float(r >> 8) * (1.0f / 16777216.0f); }  // [0, 1), 24 bits

isa::Engine engine_of(const isa::Instruction& ins) {
  return ins.engine == isa::Engine::GpSimd ? isa::Engine::GpSimd : isa::Engine::Vector;
}
}  // namespace

// dst = 32 random bits per element, truncated to dst's integer width.
void exec_rng(ExecContext& ctx, const isa::Instruction& ins) {
  const isa::Engine e = engine_of(ins);
  View dst = ctx.write(ins, 0);
  const size_t n = dst.free_elems;
  uint32_t* r = ctx.u32(0, n);
  for (uint32_t i = 0; i < dst.partitions; ++i) {
    draw(ctx, e, dst.start_partition + i, r, n);
    scatter_int(dst, i, r);
  }
}

// dst = lo + (hi - lo) * u, u uniform in [0, 1).
void exec_rand2(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0);
  const uint32_t P = dst.partitions;
  const float* lo = ctx.column_f32(ins, 1, P, 6);
  const float* hi = ctx.column_f32(ins, 2, P, 7);
  const size_t n = dst.free_elems;
  uint32_t* r = ctx.u32(0, n);
  float* out = ctx.f32(0, n);
  for (uint32_t i = 0; i < P; ++i) {
    const float a = lo ? lo[i] : ins.params.imm0, b = hi ? hi[i] : ins.params.imm1;
    draw(ctx, isa::Engine::Vector, dst.start_partition + i, r, n);
    for (size_t j = 0; j < n; ++j) out[j] = a + (b - a) * unit(r[j]);
    scatter_f32(dst, i, out);
  }
}

// dst = 0 where u < prob, else data.
void exec_dropout(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const uint32_t P = dst.partitions;
  const float* prob = ctx.column_f32(ins, 2, P, 6);
  const size_t n = dst.free_elems;
  const float* in = vec::gather_all_f32(ctx, data, 0);
  float* out = ctx.f32(1, n * P);
  uint32_t* r = ctx.u32(0, n);
  for (uint32_t i = 0; i < P; ++i) {
    const float p = prob ? prob[i] : ins.params.imm0;
    draw(ctx, isa::Engine::Vector, dst.start_partition + i, r, n);
    for (size_t j = 0; j < n; ++j) out[i * n + j] = unit(r[j]) < p ? 0.0f : in[i * n + j];
  }
  vec::scatter_all_f32(dst, out);
}

// Seeds every VectorE generator from src[0, 0].
void exec_set_rng_seed(ExecContext& ctx, const isa::Instruction& ins) {
  View src = ctx.read(ins, 0);
  uint32_t seed = 0;
  std::memcpy(&seed, src.row(0), 4);
  uint32_t* s = states(ctx, isa::Engine::Vector);
  for (size_t p = 0; p < size_t(ctx.target.partitions); ++p)
    for (int g = 0; g < kVectorGens; ++g) seed_generator(s + (p * kVectorGens + g) * kWords, seed, uint32_t(p * kVectorGens + g));
}

void exec_rand_set_state(ExecContext& ctx, const isa::Instruction& ins) {
  const isa::Engine e = engine_of(ins);
  View src = ctx.read(ins, 0);
  const size_t w = size_t(generators(e)) * kWords;
  uint32_t* s = states(ctx, e);
  for (uint32_t i = 0; i < src.partitions; ++i) gather_int(src, i, s + size_t(src.start_partition + i) * w);
}

void exec_rand_get_state(ExecContext& ctx, const isa::Instruction& ins) {
  const isa::Engine e = engine_of(ins);
  View dst = ctx.write(ins, 0);
  const size_t w = size_t(generators(e)) * kWords;
  const uint32_t* s = states(ctx, e);
  for (uint32_t i = 0; i < dst.partitions; ++i) scatter_int(dst, i, s + size_t(dst.start_partition + i) * w);
}

}  // namespace nkisim::sim
