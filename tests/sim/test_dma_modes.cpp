// test_dma_modes.cpp - per-instruction DGE modes and the DMA instruction family (nki-isa.md §3.5,
// machine.md §11, docs/cost-model.md "DMA"): closed-form timing of none / hwdge / swdge / unknown per
// instruction, dma_transpose and dma_compute throughput factors, and the executors of indirect transfers
// (gather, scatter, scalar offset, oob_mode error / skip) and of dma_transpose / dma_compute.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "timing_test_util.h"

using namespace ttest;

namespace {
double engine_ns(const isa::TargetDesc& t, double rows, double row_bytes, double engines, double factor = 1,
                 bool hbm = true) {
  double rate = t.dma_engine_bytes_per_ns * factor;
  if (hbm) rate = std::min(rate, t.hbm_bytes_per_ns / engines);
  return std::max(rows * t.dma_buffer_min_ns, rows * t.dma_buffer_overhead_ns + rows * row_bytes / rate);
}
double trigger(const isa::TargetDesc& t, Engine e = Engine::Sync) { return t.dma_trigger_cycles / t.engine_ghz(e); }

isa::Instruction with_dge(isa::Instruction ins, uint16_t mode) {
  ins.params.dge_mode = mode;
  return ins;
}

template <class T>
sim::HostArray mk_host(DType dt, std::vector<int64_t> shape, const std::vector<T>& v) {
  sim::HostArray a;
  a.dtype = dt;
  a.shape = std::move(shape);
  a.data.resize(v.size() * sizeof(T));
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}
template <class T>
std::vector<T> host_values(const sim::HostArray& a) {
  std::vector<T> v(a.data.size() / sizeof(T));
  std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

Error run_error(const isa::Program& p, const std::vector<sim::HostArray>& in) {
  try {
    sim::simulate(p, in);
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected an nkisim::Error");
  return Error("");
}

// A gather/scatter program on trn2: table x [R, F] fp32 (input 0), row indices idx [P, 1] int32 (input 1),
// output y [P, F] (gather) or the table itself rewritten into output y [R, F] (scatter).
// Sync loads idx to SBUF (sem 0), GpSimd runs the indirect transfer (software DGE; sem 1), Sync stores.
struct Indirect {
  Builder b;
  uint32_t R, F, P;
  size_t x, idx, y;
  Indirect(uint32_t rows, uint32_t cols, uint32_t parts, bool scatter, bool skip)
      : R(rows), F(cols), P(parts) {
    x = b.input("x", DType::float32, {R, F});
    idx = b.input("idx", DType::int32, {P, 1});
    y = scatter ? b.output("y", DType::float32, {R, F}) : b.output("y", DType::float32, {P, F});
    const auto idx_tile = sbuf(DType::int32, 0, P, 0, 1);
    const auto tile = sbuf(DType::float32, 0, P, 64, F);
    b.add(Engine::Sync, make(Opcode::dma_copy, {idx_tile, b.whole(idx)})).updates.push_back({0, 1});
    if (scatter) {
      // y <- x (the pre-filled rows), tile <- x rows 0..P-1; then scatter the tile into y rows idx[p].
      b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(y), b.whole(x)})).updates.push_back({0, 1});
      b.add(Engine::Sync, make(Opcode::dma_copy, {tile, hbm(DType::float32, int64_t(b.p.hbm_tensors[x].address), F, P,
                                                            {{1, F}})}))
          .updates.push_back({0, 1});
    }
    const int64_t table = int64_t(b.p.hbm_tensors[scatter ? y : x].address);
    auto row0 = hbm(DType::float32, table, 0, P, {{1, F}});  // partition stride 0: rows come from idx
    auto whole = hbm(DType::float32, table, 0, 1, {{1, R * F}});
    isa::Instruction ins = scatter ? make(Opcode::dma_copy, {row0, tile, idx_tile, whole})
                                   : make(Opcode::dma_copy, {tile, row0, idx_tile, whole});
    ins.params.dge_mode = 1;
    ins.params.ind_kind = 1;
    ins.params.ind_opnds = scatter ? 1 : 2;
    ins.params.ind_stride = int32_t(F);
    ins.params.ind_size = int32_t(R * F);
    ins.params.oob_skip = skip;
    ins.waits.push_back({0, scatter ? 3u : 1u});
    ins.updates.push_back({1, 1});
    ins.loc = b.loc("gather.py", 12, 5);
    b.add(Engine::GpSimd, ins);
    if (!scatter) b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(y), tile})).waits.push_back({1, 1});
    else b.add(Engine::Sync, make(Opcode::sem_wait, {})).waits.push_back({1, 1});
  }
  std::vector<sim::HostArray> inputs(const std::vector<int32_t>& rows) const {
    std::vector<float> xv(size_t(R) * F);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(i) * 0.5f;
    return {mk_host(DType::float32, {R, F}, xv), mk_host(DType::int32, {P, 1}, rows)};
  }
  sim::Result run(const std::vector<int32_t>& rows) const {
    sim::Options o;
    o.target = *isa::find_target("trn2");
    return sim::simulate(b.p, inputs(rows), o);
  }
};
}  // namespace

TEST_CASE("DGE per instruction: none, hwdge (trn2+, two blocks), unknown = the target's mode") {
  auto t = target("trn2");
  Builder b;
  b.add(Engine::Sync, with_dge(dma_load(b, 0, 8, 64, 0, 0), 2));
  b.add(Engine::Sync, with_dge(dma_load(b, 8, 8, 64, 0, 1), 3));   // none: no DGE block
  b.add(Engine::Scalar, with_dge(dma_load(b, 16, 8, 64, 0, 8), 2));
  b.add(Engine::Sync, with_dge(dma_load(b, 24, 8, 64, 0, 2), 2));  // waits for a block
  b.add(Engine::Sync, dma_load(b, 32, 8, 64, 0, 3));              // unknown: t.dma_dge_mode = 0, as none
  auto r = timed(b.p, t);
  const double ts = trigger(t), ta = trigger(t, Engine::Scalar);
  auto xfer = [&](Engine e, uint32_t i) -> const sim::TransferTiming& {
    return r.transfers[size_t(rec(r, e, i).transfer)];
  };
  CHECK(xfer(Engine::Sync, 0).eligible_ns == doctest::Approx(ts + t.dma_hwdge_ns + t.dma_fixed_ns));
  CHECK(xfer(Engine::Sync, 0).dge == 2);
  CHECK(xfer(Engine::Sync, 1).eligible_ns == doctest::Approx(2 * ts + t.dma_fixed_ns));
  CHECK(xfer(Engine::Sync, 1).dge == 3);
  // Scalar's trigger ends with Sync's first one: it takes the second DGE block.
  CHECK(xfer(Engine::Scalar, 0).eligible_ns == doctest::Approx(ta + t.dma_hwdge_ns + t.dma_fixed_ns));
  // The third hwdge transfer waits for the first free block.
  CHECK(xfer(Engine::Sync, 2).eligible_ns == doctest::Approx(std::min(ts, ta) + 2 * t.dma_hwdge_ns + t.dma_fixed_ns));
  CHECK(xfer(Engine::Sync, 3).eligible_ns == doctest::Approx(4 * ts + t.dma_fixed_ns));
  CHECK(xfer(Engine::Sync, 3).dge == 0);
  // The target's mode still decides for dge=unknown.
  t.dma_dge_mode = 2;
  Builder u;
  u.add(Engine::Sync, dma_load(u, 0, 8, 64));
  CHECK(timed(u.p, t).transfers[0].eligible_ns == doctest::Approx(ts + t.dma_hwdge_ns + t.dma_fixed_ns));
}

TEST_CASE("DGE per instruction: dge 4 (unknown in an nki.jit kernel) is dma_dge_mode_nki: hwdge on trn2/trn3, none on "
          "trn1; dge 0 keeps dma_dge_mode") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    auto t = target(tn);
    Builder b;
    b.add(Engine::Sync, with_dge(dma_load(b, 0, 8, 64, 0, 0), 4));
    b.add(Engine::Sync, dma_load(b, 8, 8, 64, 0, 1));  // dge 0
    auto r = timed(b.p, t);
    const double ts = trigger(t);
    const bool hw = std::string(tn) != "trn1";
    CHECK(t.dma_dge_mode_nki == (hw ? 2 : 0));
    CHECK(r.transfers[0].dge == (hw ? 2 : 0));
    CHECK(r.transfers[0].eligible_ns == doctest::Approx(ts + (hw ? t.dma_hwdge_ns : 0) + t.dma_fixed_ns));
    CHECK(r.transfers[1].dge == 0);
    CHECK(r.transfers[1].eligible_ns == doctest::Approx(2 * ts + t.dma_fixed_ns));
    // --param dma_dge_mode_nki=0: host-built descriptors, as a legacy kernel's.
    t.dma_dge_mode_nki = 0;
    CHECK(timed(b.p, t).transfers[0].eligible_ns == doctest::Approx(ts + t.dma_fixed_ns));
  }
}

TEST_CASE("DGE per instruction: software DGE is GpSimd busy time, one descriptor per buffer") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    Builder b;
    b.add(Engine::GpSimd, with_dge(dma_load(b, 0, 128, 64), 1));
    b.add(Engine::GpSimd, with_dge(dma_load(b, 0, 64, 64, 4096, 1), 1));
    auto r = timed(b.p, t);
    const double g1 = (t.gpsimd_start_cycles + 128 * t.dma_swdge_cycles_per_buffer) / t.gpsimd_ghz;
    const double g2 = (t.gpsimd_start_cycles + 64 * t.dma_swdge_cycles_per_buffer) / t.gpsimd_ghz;
    CHECK(dur(rec(r, Engine::GpSimd, 0)) == doctest::Approx(g1));
    CHECK(dur(rec(r, Engine::GpSimd, 1)) == doctest::Approx(g2));
    CHECK(r.engines["gpsimd"].busy_ns == doctest::Approx(g1 + g2));
    CHECK(r.transfers[0].eligible_ns == doctest::Approx(g1 + t.dma_fixed_ns));
    CHECK(r.transfers[0].done_ns == doctest::Approx(g1 + t.dma_fixed_ns + engine_ns(t, 8, 256, 16)));
    // An indirect transfer with dge unknown is software DGE (its row indices: a [128, 1] int32 idx).
    Builder c;
    auto ins = dma_load(c, 0, 128, 64);
    ins.params.ind_kind = 1;
    ins.params.ind_opnds = 1u << 1;  // src
    ins.operands[2] = sbuf(DType::int32, 0, 128, 4096, 1);
    c.add(Engine::GpSimd, ins);
    CHECK(dur(rec(timed(c.p, t), Engine::GpSimd, 0)) == doctest::Approx(g1));
  }
}

TEST_CASE("dma_transpose runs at 90% (HBM source) / 50% (SBUF source) of the copy rate") {
  for (const char* tn : {"trn2", "trn3"}) {
    CAPTURE(tn);
    const auto t = target(tn);
    CHECK(t.dma_transpose_hbm_factor == 0.9);
    CHECK(t.dma_transpose_sbuf_factor == 0.5);
    Builder b;
    size_t x = b.input("x", DType::bfloat16, {16, 128});
    auto tr = make(Opcode::dma_transpose, {sbuf(DType::bfloat16, 0, 128, 0, 16), b.whole(x)});
    tr.params.axes = 10;
    tr.params.tdim0 = 16;
    tr.params.tdim1 = 128;
    b.add(Engine::Sync, tr);
    auto r = timed(b.p, t);
    // dst rows: 128 partitions x 32 bytes, 8 per engine on 16 engines.
    CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 32, 16, 0.9)));
    Builder s;
    auto ts = make(Opcode::dma_transpose, {sbuf(DType::bfloat16, 0, 128, 0, 16), sbuf(DType::bfloat16, 0, 16, 4096, 128)});
    ts.params.axes = 10;
    ts.params.tdim0 = 16;
    ts.params.tdim1 = 128;
    s.add(Engine::Sync, ts);
    CHECK(timed(s.p, t).total_ns ==
          doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 32, 16, 0.5, false)));
    // The plain copy of the same bytes, for comparison: the factor is the only difference.
    Builder c;
    c.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::bfloat16, 0, 128, 0, 16), sbuf(DType::bfloat16, 0, 128, 4096, 16)}));
    CHECK(timed(c.p, t).total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 32, 16, 1, false)));
  }
}

TEST_CASE("dma_compute runs at 50% of the copy rate; the trn3 SBUF read-add-write at copy speed") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    const auto t = target(tn);
    const auto a = sbuf(DType::float32, 0, 128, 0, 512), c = sbuf(DType::float32, 0, 128, 4096, 512);
    Builder b;
    b.add(Engine::Sync, make(Opcode::dma_compute, {a, c, sbuf(DType::float32, 0, 128, 8192, 512)}));
    CHECK(timed(b.p, t).total_ns ==
          doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 2048, 16, 0.5, false)));
    Builder r;
    r.add(Engine::Sync, make(Opcode::dma_compute, {a, a, c}));  // dst += c in SBUF
    const double f = std::string(tn) == "trn3" ? 1.0 : 0.5;
    CHECK(timed(r.p, t).total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 2048, 16, f, false)));
  }
}

TEST_CASE("indirect dma_copy: gather rows by a vector offset, 2*arange") {
  Indirect g(128, 8, 64, false, false);
  std::vector<int32_t> rows(64);
  for (int p = 0; p < 64; ++p) rows[size_t(p)] = 2 * p;
  auto res = g.run(rows);
  auto y = host_values<float>(res.outputs.at(0));
  REQUIRE(y.size() == 64 * 8);
  for (int p = 0; p < 64; ++p)
    for (int j = 0; j < 8; ++j) CHECK(y[size_t(p * 8 + j)] == float((2 * p * 8 + j)) * 0.5f);
}

TEST_CASE("indirect dma_copy: scatter rows; oob_mode=skip leaves the pre-filled rows untouched") {
  for (bool skip : {false, true}) {
    CAPTURE(skip);
    Indirect s(32, 4, 8, true, skip);
    // Row p of the tile (table row p) goes to row 31 - 3p; with skip, p = 3 targets row 40 (dropped).
    std::vector<int32_t> rows{31, 28, 25, skip ? 40 : 22, 19, 16, 13, 10};
    auto res = s.run(rows);
    auto y = host_values<float>(res.outputs.at(0));
    std::vector<float> want(32 * 4);
    for (size_t i = 0; i < want.size(); ++i) want[i] = float(i) * 0.5f;
    for (int p = 0; p < 8; ++p) {
      if (skip && p == 3) continue;
      for (int j = 0; j < 4; ++j) want[size_t(rows[size_t(p)] * 4 + j)] = float(p * 4 + j) * 0.5f;
    }
    CHECK(y == want);
  }
}

TEST_CASE("indirect dma_copy: an out-of-bounds row with oob_mode=error is a located error") {
  Indirect g(128, 8, 64, false, false);
  std::vector<int32_t> rows(64, 1);
  rows[7] = 128;
  Error e = run_error(g.b.p, g.inputs(rows));
  CHECK(std::string(e.what()) ==
        "dma_copy: out-of-bounds vector_offset on operand 'src': partition 7 uses row 128 of a tensor with 128 rows "
        "(oob_mode=error; oob_mode=skip drops the row)");
  REQUIRE(e.loc);
  CHECK(e.loc->file == "gather.py");
  CHECK(e.loc->line == 12);
  rows[7] = -1;
  CHECK(std::string(run_error(g.b.p, g.inputs(rows)).what()).find("partition 7 uses row -1 of") != std::string::npos);
}

TEST_CASE("DGE rules of a hand-written program are located errors") {
  Builder b;
  size_t x = b.input("x", DType::float32, {8, 8});
  auto hw = with_dge(make(Opcode::dma_copy, {sbuf(DType::float32, 0, 8, 0, 8), b.whole(x)}), 2);
  hw.loc = b.loc("k.py", 3, 1);
  b.add(Engine::GpSimd, hw);
  sim::HostArray in = mk_host(DType::float32, {8, 8}, std::vector<float>(64, 1.0f));
  CHECK(std::string(run_error(b.p, {in}).what()) ==
        "dma_copy: dge_mode=hwdge must be triggered from the sync or scalar engine, not gpsimd");
  b.p.streams[int(Engine::GpSimd)].back().params.dge_mode = 1;
  sim::Options o;
  o.target = *isa::find_target("trn2");
  CHECK_NOTHROW(sim::simulate(b.p, std::vector<sim::HostArray>{in}, o));
  auto one = *isa::find_target("trn1");
  Builder c;
  size_t x1 = c.input("x", DType::float32, {8, 8});
  c.add(Engine::Sync, with_dge(make(Opcode::dma_copy, {sbuf(DType::float32, 0, 8, 0, 8), c.whole(x1)}), 2));
  try {
    sim::Options o1;
    o1.target = one;
    sim::simulate(c.p, std::vector<sim::HostArray>{in}, o1);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "dma_copy: dge_mode=hwdge (hardware DGE) needs trn2 or later, not trn1");
  }
}
