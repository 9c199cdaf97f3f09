// test_vector_ops_accum.cpp - accumulator registers and running values: activation reduce + act_read_accumulator,
// tensor_scalar_reduce, tensor_scalar_cumulative, tensor_tensor_scan, exponential, range_select, select_reduce.
#include "vector_test_util.h"

using namespace vectest;

namespace {
isa::Instruction& activation(Kernel& k, AccessPattern dst, AccessPattern data, isa::ActFunc f, ReduceCmd cmd,
                             AccessPattern bias = {}) {
  auto& ins = k.op(Engine::Scalar, Opcode::activation, {dst, data, bias});
  ins.params.func = f;
  ins.params.reduce_cmd = cmd;
  if (cmd == ReduceCmd::reduce || cmd == ReduceCmd::reset_reduce) ins.params.reduce_op = AluOp::add;
  return ins;
}
AccessPattern read_acc(Kernel& k, uint32_t P, bool negate = false, DType t = DType::float32) {
  auto r = k.tile(t, P, 1);
  k.op(Engine::Scalar, Opcode::act_read_accumulator, {r}).params.negate = negate;
  k.out(r);
  return r;
}
}  // namespace

TEST_CASE("activation accumulator: reset_reduce sums the fp32 results, reduce chains, idle leaves, reset zeroes") {
  for (uint32_t P : {1u, 128u}) {
    CAPTURE(P);
    const uint32_t F = 50;
    std::vector<float> x = noise(size_t(P) * F, 21, -3.0f, 3.0f), y = noise(size_t(P) * F, 22, -3.0f, 3.0f);
    Kernel k;
    auto tx = k.f32_in(x, P, F), ty = k.f32_in(y, P, F);
    auto e1 = k.tile(DType::bfloat16, P, F), e2 = k.tile(DType::float32, P, F);
    activation(k, e1, tx, isa::ActFunc::exp, ReduceCmd::reset_reduce);
    read_acc(k, P);                                                   // sum exp(x) (fp32, before bf16 rounding)
    activation(k, e2, ty, isa::ActFunc::exp, ReduceCmd::reduce);      // + sum exp(y)
    read_acc(k, P, true);                                             // negated read-out
    activation(k, e2, ty, isa::ActFunc::copy, ReduceCmd::idle);       // no change
    read_acc(k, P, false, DType::bfloat16);
    activation(k, e2, ty, isa::ActFunc::copy, ReduceCmd::reset);      // zero
    read_acc(k, P);
    auto r = k.run();
    auto s1 = f32_out(r, 0), s2 = f32_out(r, 1), s4 = f32_out(r, 3);
    auto s3 = values<uint16_t>(r.outputs[2]);
    for (uint32_t p = 0; p < P; ++p) {
      float a = 0.0f;
      for (uint32_t j = 0; j < F; ++j) a += std::exp(x[p * F + j]);
      CHECK(s1[p] == a);
      for (uint32_t j = 0; j < F; ++j) a += std::exp(y[p * F + j]);
      CHECK(s2[p] == -a);
      CHECK(s3[p] == bf16_bits(a));
      CHECK(same(s4[p], 0.0f));
    }
  }
}

TEST_CASE("large fp32 activations (rows on both cores) equal the per-element fp32 formula, in place too") {
  // 128 x 1024 >= the parallel threshold; exp(x * s + b) per element, accumulator = fp32 left-to-right sum.
  const uint32_t P = 128, F = 1024;
  std::vector<float> x = noise(size_t(P) * F, 31, -4.0f, 4.0f), b = noise(P, 32, -1.0f, 1.0f);
  Kernel k;
  auto tx = k.f32_in(x, P, F), tb = k.f32_in(b, P, 1);
  auto e = k.tile(DType::float32, P, F);
  activation(k, e, tx, isa::ActFunc::exp, ReduceCmd::reset_reduce, tb).params.scale = 0.5f;
  read_acc(k, P);
  activation(k, tx, tx, isa::ActFunc::tanh, ReduceCmd::idle);  // in place
  k.out(e);
  k.out(tx);
  auto r = k.run();
  auto sums = f32_out(r, 0), out = f32_out(r, 1), th = f32_out(r, 2);
  size_t bad = 0;
  for (uint32_t p = 0; p < P; ++p) {
    float a = 0.0f;
    for (uint32_t j = 0; j < F; ++j) {
      const float v = std::exp(x[p * F + j] * 0.5f + b[p]);
      a += v;
      bad += !same(out[p * F + j], v) + !same(th[p * F + j], std::tanh(x[p * F + j]));
    }
    CHECK(same(sums[p], a));
  }
  CHECK(bad == 0);
}

TEST_CASE("activation accumulator lanes are absolute partitions, scalar bias_imm, bad reduce parameters") {
  Kernel k;
  auto x = k.f32_in({1, 2, 3, 4, 5, 6, 7, 8}, 2, 4, 32);  // partitions 32, 33
  auto d = k.tile(DType::float32, 2, 4, 32);
  activation(k, d, x, isa::ActFunc::identity, ReduceCmd::reset_reduce).params.bias_imm = 0.5f;
  auto r = k.tile(DType::float32, 2, 1, 32);
  k.op(Engine::Scalar, Opcode::act_read_accumulator, {r});
  k.out(d);
  k.out(r);
  auto res = k.run();
  CHECK(f32_out(res, 0) == std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f, 8.5f});
  CHECK(f32_out(res, 1) == std::vector<float>{12.0f, 28.0f});

  Kernel t1;
  t1.target = "trn1";
  auto x1 = t1.f32_in({1}, 1, 1);
  activation(t1, t1.tile(DType::float32, 1, 1), x1, isa::ActFunc::exp, ReduceCmd::idle).params.bias_imm = 1.0f;
  CHECK(t1.error() == "activation: a scalar bias needs trn2 or later; on trn1 pass a [1, 1] bias tile");
  Kernel k2;
  auto x2 = k2.f32_in({1}, 1, 1);
  activation(k2, k2.tile(DType::float32, 1, 1), x2, isa::ActFunc::exp, ReduceCmd::reduce).params.reduce_op =
      AluOp::maximum;
  CHECK(k2.error() == "activation: reduce_op must be add, got 'maximum'");
}

TEST_CASE("tensor_scalar_reduce: dst = data op0 s, VectorE accumulator per reduce_cmd, reduce_res, negate") {
  const uint32_t P = 128, F = 16;
  std::vector<float> x = noise(P * F, 31, -4.0f, 4.0f), s = noise(P, 32);
  x[5 * F + 3] = kNaN;
  Kernel k;
  auto tx = k.f32_in(x, P, F), ts = k.f32_in(s, P, 1);
  auto d1 = k.tile(DType::float32, P, F), d2 = k.tile(DType::float32, P, F), d3 = k.tile(DType::float32, P, F);
  auto r1 = k.tile(DType::float32, P, 1), r2 = k.tile(DType::float32, P, 1), r3 = k.tile(DType::float32, P, 1);
  {  // max of x*s with a [P,1] tile, reset_reduce
    auto& i = k.op(Engine::Vector, Opcode::tensor_scalar_reduce, {d1, tx, ts, r1});
    i.params.op0 = AluOp::multiply, i.params.reduce_op = AluOp::maximum, i.params.reduce_cmd = ReduceCmd::reset_reduce;
  }
  {  // sum of (2 - x) loaded with 10, negated read-out
    auto& i = k.op(Engine::Vector, Opcode::tensor_scalar_reduce, {d2, tx, {}, r2});
    i.params.op0 = AluOp::subtract, i.params.imm0 = 2.0f, i.params.reverse0 = true;
    i.params.reduce_op = AluOp::add, i.params.reduce_cmd = ReduceCmd::load_reduce, i.params.imm1 = 10.0f;
    i.params.negate = true;
  }
  {  // chain: keep adding x + 1 onto the register (not negated: negate affects only the read-out)
    auto& i = k.op(Engine::Vector, Opcode::tensor_scalar_reduce, {d3, tx, {}, r3});
    i.params.op0 = AluOp::add, i.params.imm0 = 1.0f;
    i.params.reduce_op = AluOp::add, i.params.reduce_cmd = ReduceCmd::reduce;
  }
  for (auto t : {d1, d2, r1, r2, r3}) k.out(t);
  auto r = k.run();
  auto o1 = f32_out(r, 0), o2 = f32_out(r, 1), m = f32_out(r, 2), sm = f32_out(r, 3), ch = f32_out(r, 4);
  for (uint32_t p = 0; p < P; ++p) {
    float mx = -kInf, sum = 10.0f;
    for (uint32_t j = 0; j < F; ++j) {
      const float v = x[p * F + j];
      CHECK(same(o1[p * F + j], mul_rounded(v, s[p])));
      CHECK(same(o2[p * F + j], 2.0f - v));
      mx = sim_ref_fold(AluOp::maximum, mx, mul_rounded(v, s[p]));
      sum += 2.0f - v;
    }
    CHECK(same(m[p], mx));
    CHECK(same(sm[p], -sum));
    float chain = sum;
    for (uint32_t j = 0; j < F; ++j) chain += x[p * F + j] + 1.0f;
    CHECK(same(ch[p], chain));
  }
}

TEST_CASE("tensor_scalar_cumulative: running op1 with reg as op1's second operand, load_reduce, chaining") {
  const uint32_t P = 3, F = 64;
  std::vector<float> x = noise(P * F, 41);
  Kernel k;
  auto tx = k.f32_in(x, P, F);
  auto init = k.f32_in({5.0f, -1.0f, 0.25f}, P, 1);
  auto a = k.tile(DType::float32, P, F), b = k.tile(DType::float32, P, F), c = k.tile(DType::float32, P, F);
  auto d = k.tile(DType::float32, P, F);
  auto cum = [&](AccessPattern dst, AluOp op0, float imm0, AluOp op1, ReduceCmd cmd, AccessPattern op1_tile = {}) {
    auto& i = k.op(Engine::Vector, Opcode::tensor_scalar_cumulative, {dst, tx, {}, op1_tile});
    i.params.op0 = op0, i.params.imm0 = imm0, i.params.op1 = op1, i.params.reduce_cmd = cmd;
  };
  cum(a, AluOp::add, 0.5f, AluOp::add, ReduceCmd::reset_reduce);          // np.add.accumulate(x + 0.5)
  cum(b, AluOp::multiply, 1.0f, AluOp::add, ReduceCmd::reduce);            // continues from a's last value
  cum(c, AluOp::multiply, 2.0f, AluOp::subtract, ReduceCmd::load_reduce, init);  // reg = 2x - reg
  cum(d, AluOp::bypass, 0.0f, AluOp::maximum, ReduceCmd::reset_reduce);    // running max
  for (auto t : {a, b, c, d}) k.out(t);
  auto r = k.run();
  auto oa = f32_out(r, 0), ob = f32_out(r, 1), oc = f32_out(r, 2), od = f32_out(r, 3);
  const float inits[3] = {5.0f, -1.0f, 0.25f};
  for (uint32_t p = 0; p < P; ++p) {
    float ra = 0.0f, rc = inits[p], rd = -kInf;
    for (uint32_t j = 0; j < F; ++j) {
      ra = (x[p * F + j] + 0.5f) + ra;
      CHECK(oa[p * F + j] == ra);
      rc = mul_rounded(x[p * F + j], 2.0f) - rc;
      CHECK(oc[p * F + j] == rc);
      rd = std::max(x[p * F + j], rd);
      CHECK(od[p * F + j] == rd);
    }
    float rb = ra;
    for (uint32_t j = 0; j < F; ++j) {
      rb = x[p * F + j] + rb;
      CHECK(ob[p * F + j] == rb);
    }
  }
  Kernel e;
  auto ti = e.raw_in(DType::int32, std::vector<int32_t>{1, 2}, 1, 2);
  e.op(Engine::Vector, Opcode::tensor_scalar_cumulative, {e.tile(DType::float32, 1, 2), ti}).params.op1 = AluOp::add;
  CHECK(e.error() == "tensor_scalar_cumulative: operand 'src' cannot be int32 (32-bit integers are not supported)");
}

TEST_CASE("tensor_tensor_scan: a*prev + b chained across two 512-column calls through initial") {
  const uint32_t P = 128, F = 1024, H = 512;
  std::vector<float> a = noise(P * F, 51, 0.5f, 1.0f), b = noise(P * F, 52);
  std::vector<float> a0(P * H), a1(P * H), b0(P * H), b1(P * H);
  for (uint32_t p = 0; p < P; ++p)
    for (uint32_t j = 0; j < H; ++j) {
      a0[p * H + j] = a[p * F + j], a1[p * H + j] = a[p * F + H + j];
      b0[p * H + j] = b[p * F + j], b1[p * H + j] = b[p * F + H + j];
    }
  Kernel k;
  auto ta0 = k.f32_in(a0, P, H), ta1 = k.f32_in(a1, P, H), tb0 = k.f32_in(b0, P, H), tb1 = k.f32_in(b1, P, H);
  auto c0 = k.tile(DType::float32, P, H), c1 = k.tile(DType::float32, P, H);
  auto& s0 = k.op(Engine::Vector, Opcode::tensor_tensor_scan, {c0, ta0, tb0});
  s0.params.op0 = AluOp::multiply, s0.params.op1 = AluOp::add, s0.params.imm0 = 0.0f;
  AccessPattern last = c0;  // c0[:, 511] as the [P,1] initial of the second call
  last.offset += (H - 1) * 4;
  last.dims[0].count = 1;
  auto& s1 = k.op(Engine::Vector, Opcode::tensor_tensor_scan, {c1, ta1, tb1, last});
  s1.params.op0 = AluOp::multiply, s1.params.op1 = AluOp::add;
  k.out(c0);
  k.out(c1);
  auto r = k.run();
  auto o0 = f32_out(r, 0), o1 = f32_out(r, 1);
  for (uint32_t p = 0; p < P; ++p) {
    float c = 0.0f;
    for (uint32_t j = 0; j < F; ++j) {
      c = mul_rounded(a[p * F + j], c) + b[p * F + j];
      CHECK(same(j < H ? o0[p * H + j] : o1[p * H + j - H], c));
    }
  }
}

TEST_CASE("tensor_tensor_scan reverse flags swap operand order") {
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  Kernel k;
  auto tx = k.f32_in(x, 1, 4), ty = k.f32_in(y, 1, 4);
  auto d = k.tile(DType::float32, 1, 4);
  auto& i = k.op(Engine::Vector, Opcode::tensor_tensor_scan, {d, tx, ty});
  i.params.op0 = AluOp::subtract, i.params.op1 = AluOp::subtract, i.params.imm0 = 100.0f;
  i.params.reverse0 = true, i.params.reverse1 = true;
  k.out(d);
  auto o = f32_out(k.run(), 0);
  float r = 100.0f;
  for (int j = 0; j < 4; ++j) {
    r = y[j] - (r - x[j]);
    CHECK(o[j] == r);
  }
}

TEST_CASE("exponential (trn3 only): exp(src - max_value), sum into the VectorE accumulator") {
  const uint32_t P = 4, F = 8;
  std::vector<float> x = noise(P * F, 61, -2.0f, 2.0f);
  Kernel k;
  k.target = "trn3";
  auto tx = k.f32_in(x, P, F), mv = k.f32_in({0.5f, 1.0f, -1.0f, 0.0f}, P, 1);
  auto d = k.tile(DType::float32, P, F), rr = k.tile(DType::float32, P, 1);
  auto& i = k.op(Engine::Vector, Opcode::exponential, {d, tx, mv, rr});
  i.params.reduce_cmd = ReduceCmd::load_reduce, i.params.imm1 = 1.0f;
  k.out(d);
  k.out(rr);
  auto r = k.run();
  auto o = f32_out(r, 0), s = f32_out(r, 1);
  const float m[4] = {0.5f, 1.0f, -1.0f, 0.0f};
  for (uint32_t p = 0; p < P; ++p) {
    float sum = 1.0f;
    for (uint32_t j = 0; j < F; ++j) {
      const float e = std::exp(x[p * F + j] - m[p]);
      CHECK(o[p * F + j] == e);
      sum += e;
    }
    CHECK(s[p] == sum);
  }
  Kernel k2;
  auto t2 = k2.f32_in({1}, 1, 1);
  k2.op(Engine::Vector, Opcode::exponential, {k2.tile(DType::float32, 1, 1), t2});
  CHECK(k2.error() == "exponential: not available on trn2 (trn3 only)");
}

TEST_CASE("range_select (trn2+): keep where both comparisons of range_start + j hold, max into the accumulator") {
  const uint32_t P = 3, F = 10;
  std::vector<float> x = noise(P * F, 71);
  Kernel k;
  auto tx = k.f32_in(x, P, F), lo = k.f32_in({2, 0, 5}, P, 1), hi = k.f32_in({6, 3, 4}, P, 1);
  auto d = k.tile(DType::float32, P, F), rr = k.tile(DType::float32, P, 1);
  auto& i = k.op(Engine::Vector, Opcode::range_select, {d, tx, lo, hi, rr});
  i.params.op0 = AluOp::greater_equal, i.params.op1 = AluOp::less, i.params.imm0 = 1.0f;
  i.params.imm1 = -std::numeric_limits<float>::max();
  i.params.reduce_op = AluOp::maximum, i.params.reduce_cmd = ReduceCmd::reset_reduce;
  k.out(d);
  k.out(rr);
  auto r = k.run();
  auto o = f32_out(r, 0), m = f32_out(r, 1);
  const float b0[3] = {2, 0, 5}, b1[3] = {6, 3, 4};
  for (uint32_t p = 0; p < P; ++p) {
    float mx = -kInf;
    for (uint32_t j = 0; j < F; ++j) {
      const float idx = 1.0f + float(j);
      const float want = (idx >= b0[p] && idx < b1[p]) ? x[p * F + j] : -std::numeric_limits<float>::max();
      CHECK(o[p * F + j] == want);
      mx = std::max(mx, want);
    }
    CHECK(m[p] == mx);
  }
  Kernel t1;
  t1.target = "trn1";
  auto a = t1.f32_in({1}, 1, 1), c = t1.f32_in({1}, 1, 1);
  auto& j = t1.op(Engine::Vector, Opcode::range_select, {t1.tile(DType::float32, 1, 1), a, c, c});
  j.params.op0 = j.params.op1 = AluOp::equal, j.params.reduce_op = AluOp::maximum;
  CHECK(t1.error() == "range_select: not available on trn1 (trn2 and later)");
}

TEST_CASE("select_reduce: predicate picks on_true or on_false (tile or immediate), reverse, max reduce") {
  const uint32_t P = 2, F = 6;
  std::vector<uint8_t> pred = {1, 0, 2, 0, 0, 255, 0, 0, 0, 1, 1, 0};
  std::vector<float> t = {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6};
  Kernel k;
  auto tp = k.raw_in(DType::uint8, pred, P, F), tt = k.f32_in(t, P, F), off = k.f32_in({-10, 10}, P, 1);
  auto d1 = k.tile(DType::float32, P, F), d2 = k.tile(DType::float32, P, F), rr = k.tile(DType::float32, P, 1);
  auto& a = k.op(Engine::Vector, Opcode::select_reduce, {d1, tp, tt, off, rr});
  a.params.reduce_op = AluOp::maximum, a.params.reduce_cmd = ReduceCmd::reset_reduce;
  auto& b = k.op(Engine::Vector, Opcode::select_reduce, {d2, tp, tt});
  b.params.imm0 = 0.5f, b.params.reverse0 = true, b.params.reduce_op = AluOp::maximum;
  k.out(d1);
  k.out(d2);
  k.out(rr);
  auto r = k.run();
  CHECK(f32_out(r, 0) == std::vector<float>{1, -10, 3, -10, -10, 6, 10, 10, 10, -4, -5, 10});
  CHECK(f32_out(r, 1) == std::vector<float>{0.5f, 2, 0.5f, 4, 5, 0.5f, -1, -2, -3, 0.5f, 0.5f, -6});
  CHECK(f32_out(r, 2) == std::vector<float>{6, 10});
}
