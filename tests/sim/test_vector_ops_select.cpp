// test_vector_ops_select.cpp - reciprocal, tensor_copy_predicated, max8, nc_find_index8, nc_match_replace8,
// iota, affine_select numerics, and the costs of the new cost classes.
#include "sim/cost.h"
#include "vector_test_util.h"

using namespace vectest;

TEST_CASE("reciprocal: IEEE 1/x in fp32, bf16 output rounds once") {
  std::vector<float> x = {0.0f, -0.0f, kInf, -kInf, kNaN, 3.0f, -7.0f, 1e-40f};
  Kernel k;
  auto t = k.f32_in(x, 2, 4);
  auto d = k.tile(DType::float32, 2, 4), h = k.tile(DType::bfloat16, 2, 4);
  k.op(Engine::Vector, Opcode::reciprocal, {d, t});
  k.op(Engine::Vector, Opcode::reciprocal, {h, t});
  k.out(d);
  k.out(h);
  auto r = k.run();
  auto o = f32_out(r, 0);
  auto b = values<uint16_t>(r.outputs[1]);
  for (size_t i = 0; i < x.size(); ++i) {
    CHECK(same(o[i], 1.0f / x[i]));
    CHECK(b[i] == bf16_bits(1.0f / x[i]));
  }
}

TEST_CASE("tensor_copy_predicated: nonzero predicate copies src bits, reverse, immediate src, dst kept") {
  const uint32_t P = 2, F = 4;
  std::vector<uint16_t> src = {0x7fc1, 2, 3, 4, 5, 6, 7, 8};  // a NaN payload survives (bit-exact)
  std::vector<uint16_t> old = {100, 101, 102, 103, 104, 105, 106, 107};
  std::vector<uint32_t> pred = {1, 0, 0x80000000u, 0, 0, 0, 7, 1};
  Kernel k;
  auto ts = k.raw_in(DType::bfloat16, src, P, F), tp = k.raw_in(DType::uint32, pred, P, F);
  auto d1 = k.raw_in(DType::bfloat16, old, P, F), d2 = k.raw_in(DType::bfloat16, old, P, F);
  k.op(Engine::Vector, Opcode::tensor_copy_predicated, {d1, ts, tp});
  auto& b = k.op(Engine::Vector, Opcode::tensor_copy_predicated, {d2, {}, tp});
  b.params.imm0 = -2.0f, b.params.reverse0 = true;
  k.out(d1);
  k.out(d2);
  auto r = k.run();
  CHECK(values<uint16_t>(r.outputs[0]) == std::vector<uint16_t>{0x7fc1, 101, 3, 103, 104, 105, 7, 8});
  const uint16_t m2 = bf16_bits(-2.0f);
  CHECK(values<uint16_t>(r.outputs[1]) == std::vector<uint16_t>{100, m2, 102, m2, m2, m2, 106, 107});
  Kernel e;
  auto fs = e.f32_in({1}, 1, 1), fp = e.f32_in({1}, 1, 1);
  e.op(Engine::Vector, Opcode::tensor_copy_predicated, {e.tile(DType::float32, 1, 1), fs, fp});
  CHECK(e.error() == "tensor_copy_predicated: operand 'predicate' must be uint8, uint16, uint32 or bool, got float32");
}

TEST_CASE("max8: 8 largest descending, duplicates repeat, NaN ranks highest") {
  std::vector<float> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, -kInf, 8, 9, 7, 9,  // partition 0: 16 values
                          1, 2, 3, 4, 5, 6, 7, 8, kNaN, 0, 0, 0, 0, 0, 0, kInf};
  Kernel k;
  auto t = k.f32_in(x, 2, 16);
  auto d = k.tile(DType::float32, 2, 8);
  k.op(Engine::Vector, Opcode::max8, {d, t});
  k.out(d);
  auto o = f32_out(k.run(), 0);
  const std::vector<float> want0 = {9, 9, 9, 8, 7, 6, 5, 5};
  for (int i = 0; i < 8; ++i) CHECK(o[i] == want0[i]);
  CHECK(std::isnan(o[8]));
  const std::vector<float> want1 = {kInf, 8, 7, 6, 5, 4, 3};
  for (int i = 0; i < 7; ++i) CHECK(o[9 + i] == want1[i]);
  Kernel e;
  auto t7 = e.f32_in(noise(7, 1), 1, 7);
  e.op(Engine::Vector, Opcode::max8, {e.tile(DType::float32, 1, 8), t7});
  CHECK(e.error() == "max8: operand 'src' must have 8 to 16384 elements per partition, got 7");
}

TEST_CASE("nc_find_index8: first occurrences, duplicate vals take successive occurrences, missing = all ones") {
  std::vector<float> data = {5, 7, 5, 9, 5, 1, 7, 0, 2, 2};
  std::vector<float> vals = {5, 5, 7, 3, 5, 5, 9, 1};
  Kernel k;
  auto td = k.f32_in(data, 1, 10), tv = k.f32_in(vals, 1, 8);
  auto d32 = k.tile(DType::uint32, 1, 8), d16 = k.tile(DType::uint16, 1, 8);
  k.op(Engine::Vector, Opcode::nc_find_index8, {d32, td, tv});
  k.op(Engine::Vector, Opcode::nc_find_index8, {d16, td, tv});
  k.out(d32);
  k.out(d16);
  auto r = k.run();
  CHECK(values<uint32_t>(r.outputs[0]) == std::vector<uint32_t>{0, 2, 1, ~0u, 4, ~0u, 3, 5});
  CHECK(values<uint16_t>(r.outputs[1]) == std::vector<uint16_t>{0, 2, 1, 0xffff, 4, 0xffff, 3, 5});
}

TEST_CASE("nc_match_replace8: slots 7..0 claim occurrences in order, imm replaces, dst_idx") {
  std::vector<float> data = {5, 7, 5, 9, 5, 1, 7, 0, 2, 2};
  std::vector<float> vals = {5, 5, 7, 3, 5, 6, 9, 2};
  Kernel k;
  auto td = k.f32_in(data, 1, 10), tv = k.f32_in(vals, 1, 8);
  auto d = k.tile(DType::float32, 1, 10), idx = k.tile(DType::uint32, 1, 8);
  k.op(Engine::Vector, Opcode::nc_match_replace8, {d, td, tv, idx}).params.imm0 = -1.0f;
  k.out(d);
  k.out(idx);
  auto r = k.run();
  // slot 7 (2) -> 8, 6 (9) -> 3, 5 (6) none, 4 (5) -> 0, 3 (3) none, 2 (7) -> 1, 1 (5) -> 2, 0 (5) -> 4
  CHECK(values<uint32_t>(r.outputs[1]) == std::vector<uint32_t>{4, 2, 1, ~0u, 0, ~0u, 3, 8});
  CHECK(f32_out(r, 0) == std::vector<float>{-1, -1, -1, -1, -1, 1, 7, 0, -1, 2});
}

TEST_CASE("iota: int32 affine values with channel multiplier, negative steps, wrap-around and dtype casts") {
  const uint32_t P = 128;
  Kernel k;
  auto d = k.tile(DType::int32, P, 12), f = k.tile(DType::float32, P, 12), b = k.tile(DType::int8, P, 12);
  for (auto t : {d, f, b}) {
    auto& i = k.op(Engine::GpSimd, Opcode::iota, {t});
    i.params.offset = 7, i.params.chan_mult = -3;
    i.params.step1 = 100, i.params.num1 = 1;  // a size-1 dim contributes nothing
    i.params.step2 = 10, i.params.num2 = 3;
    i.params.step3 = -1, i.params.num3 = 4;
    k.out(t);
  }
  Kernel w;
  auto wd = w.tile(DType::int32, 1, 2);
  auto& wi = w.op(Engine::GpSimd, Opcode::iota, {wd});
  wi.params.offset = INT32_MAX, wi.params.step3 = 1, wi.params.num3 = 2;
  w.out(wd);
  auto r = k.run();
  auto oi = values<int32_t>(r.outputs[0]);
  auto of = f32_out(r, 1);
  auto ob = values<int8_t>(r.outputs[2]);
  for (uint32_t p = 0; p < P; ++p)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) {
        const int32_t v = 7 - 3 * int32_t(p) + 10 * y - x;
        const size_t e = p * 12 + y * 4 + x;
        CHECK(oi[e] == v);
        CHECK(of[e] == float(v));
        CHECK(ob[e] == int8_t(std::clamp(v, -128, 127)));
      }
  CHECK(values<int32_t>(w.run().outputs[0]) == std::vector<int32_t>{INT32_MAX, INT32_MIN});
  Kernel e;
  auto& ei = e.op(Engine::GpSimd, Opcode::iota, {e.tile(DType::int32, 1, 5)});
  ei.params.num3 = 4;
  CHECK(e.error() == "iota: the pattern covers 1x1x1x4 = 4 elements per partition but dst has 5");
}

TEST_CASE("affine_select: causal mask keeps on_true where the affine value passes cmp_op against 0") {
  const uint32_t P = 128, F = 128;
  std::vector<float> x = noise(P * F, 81);
  std::vector<uint16_t> xb(P * F);
  for (size_t i = 0; i < xb.size(); ++i) xb[i] = bf16_bits(x[i]);
  xb[5] = 0x7fc3;  // a NaN payload kept bit-exactly on the same-dtype path
  Kernel k;
  auto tx = k.f32_in(x, P, F), tb = k.raw_in(DType::bfloat16, xb, P, F);
  auto d = k.tile(DType::float32, P, F), db = k.tile(DType::bfloat16, P, F), dc = k.tile(DType::bfloat16, P, F);
  // value = p - j: keep where p - j >= 0 (j <= p), else -inf (-9984 for the bf16 -> via-fp32 path).
  auto sel = [&](AccessPattern dst, AccessPattern src, float fill) {
    auto& i = k.op(Engine::GpSimd, Opcode::affine_select, {dst, src});
    i.params.chan_mult = 1, i.params.step3 = -1, i.params.num3 = uint16_t(F);
    i.params.op0 = AluOp::greater_equal, i.params.imm0 = fill;
  };
  sel(d, tx, -kInf);
  sel(db, tb, -kInf);
  sel(dc, tx, -9984.0f);  // fp32 on_true into a bf16 dst: via fp32
  for (auto t : {d, db, dc}) k.out(t);
  auto r = k.run();
  auto o = f32_out(r, 0);
  auto ob = values<uint16_t>(r.outputs[1]), oc = values<uint16_t>(r.outputs[2]);
  for (uint32_t p = 0; p < P; ++p)
    for (uint32_t j = 0; j < F; ++j) {
      const size_t e = p * F + j;
      const bool keep = j <= p;
      CHECK(same(o[e], keep ? x[e] : -kInf));
      CHECK(ob[e] == (keep ? xb[e] : bf16_bits(-kInf)));
      CHECK(oc[e] == (keep ? bf16_bits(x[e]) : bf16_bits(-9984.0f)));
    }
}

TEST_CASE("costs of the Vector/Scalar/GpSimd extras follow nki-isa.md §2") {
  const isa::TargetDesc t = trn2();
  auto ins = make(Opcode::tensor_reduce, {sbuf(DType::bfloat16, 0, 128, 0, 1), sbuf(DType::bfloat16, 0, 128, 64, 1024)});
  ins.params.op0 = AluOp::add;
  const double v = t.vector_ghz, s = t.scalar_ghz, g = t.gpsimd_ghz;
  CHECK(sim::cost_reduce(ins, Engine::Vector, t) == doctest::Approx(512 / v));
  ins.params.op0 = AluOp::multiply;
  CHECK(sim::cost_reduce(ins, Engine::Vector, t) == doctest::Approx(1024 / v));
  auto rec = make(Opcode::reciprocal, {sbuf(DType::float32, 0, 128, 0, 100), sbuf(DType::float32, 0, 128, 0, 100)});
  CHECK(sim::cost_reciprocal(rec, Engine::Vector, t) == doctest::Approx(800 / v));
  rec.operands[1].dims[0].count = 4;
  CHECK(sim::cost_reciprocal(rec, Engine::Vector, t) == doctest::Approx(64 / v));
  auto tsr = make(Opcode::tensor_scalar_reduce, {sbuf(DType::float32, 0, 128, 0, 512), sbuf(DType::float32, 0, 128, 0, 512)});
  CHECK(sim::cost_stream_reduce(tsr, Engine::Vector, t) == doctest::Approx((512 + 64) / v));
  auto rd = make(Opcode::act_read_accumulator, {sbuf(DType::float32, 0, 128, 0, 1)});
  CHECK(sim::cost_accumulator_read(rd, Engine::Scalar, t) == doctest::Approx(64 / s));
  auto io = make(Opcode::iota, {sbuf(DType::int32, 0, 128, 0, 256)});
  CHECK(sim::cost_gpsimd_stream(io, Engine::GpSimd, t) == doctest::Approx((150 + 256) / g));
  auto ag = make(Opcode::bn_aggr, {sbuf(DType::float32, 0, 128, 0, 2), sbuf(DType::float32, 0, 128, 0, 300)});
  CHECK(sim::cost_bn_aggr(ag, Engine::Vector, t) == doctest::Approx(1300 / v));
  auto sc = make(Opcode::tensor_tensor_scan, {sbuf(DType::float32, 0, 128, 0, 512), sbuf(DType::float32, 0, 128, 0, 512),
                                              sbuf(DType::float32, 0, 128, 0, 512)});
  CHECK(sim::cost_scan(sc, Engine::Vector, t) == doctest::Approx(1024 / v));
  auto cp = make(Opcode::tensor_copy_predicated, {sbuf(DType::float32, 0, 128, 0, 512), psum(DType::float32, 0, 128, 0, 512),
                                                  sbuf(DType::uint8, 0, 128, 0, 512)});
  CHECK(sim::cost_copy_predicated(cp, Engine::Vector, t) == doctest::Approx(512 / v));
  cp.operands[1].mem = isa::Memory::SBUF;
  CHECK(sim::cost_copy_predicated(cp, Engine::Vector, t) == doctest::Approx(1024 / v));
  const isa::TargetDesc t3 = *isa::find_target("trn3");
  auto ex = make(Opcode::exponential, {sbuf(DType::float32, 0, 128, 0, 1024), sbuf(DType::float32, 0, 128, 0, 1024)});
  CHECK(sim::cost_quarter_stream(ex, Engine::Vector, t3) == doctest::Approx(256 / t3.vector_ghz));
}

TEST_CASE("availability: the table's AVAIL marks and their text") {
  CHECK(isa::nc_versions(Opcode::exponential) == isa::NC4);
  CHECK(isa::nc_versions(Opcode::range_select) == (isa::NC3 | isa::NC4));
  CHECK(isa::nc_versions(Opcode::tensor_reduce) == isa::kAllNc);
  CHECK_FALSE(isa::available_on(Opcode::exponential, 3));
  CHECK(isa::available_on(Opcode::exponential, 4));
  CHECK(isa::availability_text(isa::NC4) == "trn3 only");
  CHECK(isa::availability_text(isa::NC3 | isa::NC4) == "trn2 and later");
  CHECK(isa::availability_text(isa::NC2 | isa::NC4) == "trn1, trn3");
}

TEST_CASE("the extras classes share the streaming model: stride penalty and an --explain breakdown") {
  const isa::TargetDesc t = trn2();
  const double v = t.vector_ghz;
  REQUIRE(t.stride_penalty_bytes == 16);
  // tensor_reduce fp32 over 512 elements read with an 8-element (32 B) stride: N doubled, no MIN_II floor.
  auto red = make(Opcode::tensor_reduce, {sbuf(DType::float32, 0, 128, 0, 1), onchip(isa::Memory::SBUF, DType::float32,
                                                                                      0, 128, 64, {{8, 512}})});
  red.params.op0 = AluOp::multiply;
  sim::CostNote note;
  sim::cost_note() = &note;
  const double ns = sim::cost_reduce(red, Engine::Vector, t);
  sim::cost_note() = nullptr;
  CHECK(ns == doctest::Approx(512 * t.stride_penalty_factor / v));
  CHECK(note.formula == "N x stride penalty");
  CHECK(note.cycles == doctest::Approx(512 * t.stride_penalty_factor));
  bool saw_stride = false;
  for (auto& [k, val] : note.inputs) saw_stride |= k == "data" && val == "sbuf float32, inner stride 32 B";
  CHECK(saw_stride);
  // A 16 B stride is not penalised; the scan keeps its MIN_II floor and 2N.
  auto sc = make(Opcode::tensor_tensor_scan, {sbuf(DType::float32, 0, 128, 0, 16),
                                              onchip(isa::Memory::SBUF, DType::float32, 0, 128, 4096, {{4, 16}}),
                                              sbuf(DType::float32, 0, 128, 8192, 16)});
  CHECK(sim::cost_scan(sc, Engine::Vector, t) == doctest::Approx(t.min_ii_cycles / v));
  sc.operands[1].dims[0] = {8, 512};
  sc.operands[0].dims[0].count = sc.operands[2].dims[0].count = 512;
  CHECK(sim::cost_scan(sc, Engine::Vector, t) == doctest::Approx(2 * 512 * t.stride_penalty_factor / v));
}
