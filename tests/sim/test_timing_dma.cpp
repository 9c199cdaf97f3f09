// test_timing_dma.cpp - closed-form DMA timing (machine.md §11, docs/cost-model.md "DMA"): sizes and
// partition counts on every target, queues (FIFO, round robin), completion reported by every engine,
// saturation at the published per-partition sizes, DGE modes, HBM sharing, semaphores and stats.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "timing_test_util.h"

using namespace ttest;

namespace {
// Time one DMA engine needs for `rows` partition rows of `row_bytes`, when `engines` engines of the
// transfer move HBM data; the HBM rows lie row_bytes apart (dma_load), so each opens a page with the chance
// row_bytes / dma_page_bytes.
double engine_ns(const isa::TargetDesc& t, double rows, double row_bytes, double engines) {
  const double rate = std::min(t.dma_engine_bytes_per_ns, t.hbm_bytes_per_ns / engines);
  const double pages = rows * std::min(1.0, row_bytes / t.dma_page_bytes);
  return std::max({rows * t.dma_buffer_min_ns, rows * t.dma_buffer_overhead_ns + rows * row_bytes / rate,
                   pages * t.dma_page_ns});
}
double trigger(const isa::TargetDesc& t) { return t.dma_trigger_cycles / t.sync_ghz; }
// How much sooner than the last the first of a transfer's `engines` engines starts moving data.
double lead(const isa::TargetDesc& t, double engines) { return t.dma_engine_stagger_ns * (engines - 1); }
}  // namespace

TEST_CASE("DMA: one transfer = trigger + fixed + the slowest engine's share, for sizes and partition counts") {
  for (const char* tn : kTargets) {
    const auto t = target(tn);
    for (uint32_t P : {1u, 8u, 16u, 64u, 100u, 128u})
      for (uint32_t F : {16u, 512u, 1024u}) {
        CAPTURE(tn);
        CAPTURE(P);
        CAPTURE(F);
        Builder b;
        b.add(Engine::Sync, dma_load(b, 0, P, F));
        auto r = timed(b.p, t);
        const double engines = std::ceil(P / 8.0);
        const double rows = std::min(8u, P);  // the first engine has the most rows
        const double d = engine_ns(t, rows, 4.0 * F, engines);
        CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + d));
        REQUIRE(r.transfers.size() == 1);
        CHECK(r.transfers[0].engines == uint32_t(engines));
        CHECK(r.transfers[0].buffers == P);
        CHECK(r.transfers[0].bytes == 4.0 * F * P);
        // Its first engine starts lead() sooner than the others: the transfer's data interval and the DMA
        // active time include it; its completion does not move.
        CHECK(r.transfers[0].done_ns - r.transfers[0].start_ns == doctest::Approx(d + lead(t, engines)));
        CHECK(r.engines["dma"].busy_ns == doctest::Approx(d + lead(t, engines)));
      }
  }
}

TEST_CASE("DMA: partitions map to engines in blocks of 8 from the absolute partition") {
  const auto t = target("trn2");
  Builder b;
  b.add(Engine::Sync, dma_load(b, 36, 12, 256));  // partitions 36..47: engine 4 (36-39), engine 5 (40-47)
  auto r = timed(b.p, t, true);
  std::vector<std::string> tracks;
  for (auto& e : r.trace)
    if (e.track.rfind("dma.e", 0) == 0) tracks.push_back(e.track);
  std::sort(tracks.begin(), tracks.end());
  CHECK(tracks == std::vector<std::string>{"dma.e4", "dma.e5"});
  CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 1024, 2)));
}

TEST_CASE("DMA: non-contiguous rows cost one buffer per contiguous run") {
  const auto t = target("trn2");
  Builder b;
  size_t id = b.input("x", DType::float32, {128, 256});
  // HBM side read with a stride of 2 elements: 128 runs of one element per partition row.
  auto src = hbm(DType::float32, int64_t(b.p.hbm_tensors[id].address), 256, 128, {{2, 128}});
  b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 128, 0, 128), src}));
  auto r = timed(b.p, t);
  CHECK(r.transfers[0].buffers == 128 * 128);
  // 1024 buffers of 4 B on each engine: each takes the packet time (dma_buffer_min_ns, 15 ns), not its overhead and
  // bytes (6 ns + 0.17 ns).
  const double d = 8 * 128 * t.dma_buffer_min_ns;
  CHECK(d > 8 * 128 * t.dma_buffer_overhead_ns + 8 * 512 / std::min(23.0, t.hbm_bytes_per_ns / 16));
  CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + d));
}

TEST_CASE("DMA: every engine reports, so a queue completes in order, other queues are independent") {
  const auto t = target("trn2");
  for (uint16_t q2 : {uint16_t(0), uint16_t(1)}) {
    CAPTURE(q2);
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 8, 4096, 0, 0));     // engine 0, 128 KiB
    b.add(Engine::Sync, dma_load(b, 8, 8, 16, 0, q2));      // engine 1, tiny
    auto r = timed(b.p, t);
    const double big = engine_ns(t, 8, 16384, 1), small = engine_ns(t, 8, 64, 1);
    CHECK(r.transfers[0].done_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + big));
    if (q2 == 0) CHECK(r.transfers[1].done_ns == r.transfers[0].done_ns);
    else CHECK(r.transfers[1].done_ns == doctest::Approx(2 * trigger(t) + t.dma_fixed_ns + small));
  }
}

TEST_CASE("DMA: FIFO within a queue, round robin between queues on a DMA engine") {
  const auto t = target("trn2");
  auto order = [&](uint16_t qa2, uint16_t qb) {
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 8, 1024, 0, 0));       // A1
    b.add(Engine::Sync, dma_load(b, 0, 8, 1024, 32768, qa2));  // A2
    b.add(Engine::Sync, dma_load(b, 0, 8, 1024, 65536, qb));   // B1
    auto r = timed(b.p, t);
    std::vector<int> ids{0, 1, 2};
    std::sort(ids.begin(), ids.end(), [&](int x, int y) { return r.transfers[size_t(x)].done_ns < r.transfers[size_t(y)].done_ns; });
    return ids;
  };
  CHECK(order(0, 0) == std::vector<int>{0, 1, 2});  // one queue: FIFO
  CHECK(order(0, 1) == std::vector<int>{0, 2, 1});  // B1 on queue 1 gets its turn before A2
  // Back to back on one engine: the fixed latency of queued transfers overlaps.
  Builder b;
  b.add(Engine::Sync, dma_load(b, 0, 8, 1024, 0, 0));
  b.add(Engine::Sync, dma_load(b, 0, 8, 1024, 32768, 0));
  auto r = timed(b.p, t);
  CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + 2 * engine_ns(t, 8, 4096, 1)));
}

TEST_CASE("DMA: an engine starts at most one share per dma_share_interval_ns") {
  for (const char* tn : kTargets) {
    CAPTURE(tn);
    auto t = target(tn);
    t.dma_share_interval_ns = 440;  // a parameter (0 on the built-in targets: dma_page_ns explains what it did)
    // Two 128-partition loads of 512 B per partition back to back in one queue: each engine's share of the first
    // (8 rows) takes d < dma_share_interval_ns, so the second share starts dma_share_interval_ns after the first.
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 128, 128, 0, 0));
    b.add(Engine::Sync, dma_load(b, 0, 128, 128, 65536, 0));
    auto r = timed(b.p, t);
    const double d = engine_ns(t, 8, 512, 16);
    REQUIRE(d + trigger(t) < t.dma_share_interval_ns);
    const double first = trigger(t) + t.dma_fixed_ns;
    CHECK(r.transfers[0].start_ns == doctest::Approx(first - lead(t, 16)));
    CHECK(r.transfers[0].done_ns == doctest::Approx(first + d));
    CHECK(r.transfers[1].start_ns == doctest::Approx(first + t.dma_share_interval_ns - lead(t, 16)));
    CHECK(r.total_ns == doctest::Approx(first + t.dma_share_interval_ns + d));
    // With the limit off, the second follows the first's data at once.
    auto t0 = t;
    t0.dma_share_interval_ns = 0;
    CHECK(timed(b.p, t0).total_ns == doctest::Approx(first + 2 * d));
  }
}

TEST_CASE("DMA bandwidth saturates at the published per-partition sizes (DMABW)") {
  for (const char* tn : kTargets) {
    const auto t = target(tn);
    const double peak = 16 * std::min(t.dma_engine_bytes_per_ns, t.hbm_bytes_per_ns / 16);
    auto efficiency = [&](uint32_t bytes_per_partition) {
      Builder b;
      const uint32_t F = bytes_per_partition / 4;
      for (int i = 0; i < 32; ++i) b.add(Engine::Sync, dma_load(b, 0, 128, F, int64_t(i % 2) * 65536, uint16_t(i % 4)));
      auto r = timed(b.p, t);
      double first = 1e300, last = 0, bytes = 0;
      for (auto& x : r.transfers) {
        first = std::min(first, x.start_ns);
        last = std::max(last, x.done_ns);
        bytes += x.bytes;
      }
      // From the start of the last engine (the first starts lead() sooner: a latency, not a rate).
      return bytes / (last - first - lead(t, 16)) / peak;
    };
    CAPTURE(tn);
    CHECK(efficiency(4096) >= 0.95);  // ">= 4 KiB per partition saturates"
    CHECK(efficiency(2048) >= 0.90);  // ">= 2 KiB per partition near peak"
    CHECK(efficiency(2048) < efficiency(4096));
    CHECK(efficiency(256) < 0.75);    // "< 256 B per partition heavily overhead-bound"
    CHECK(efficiency(128) < 0.60);
    CHECK(efficiency(64) < 0.40);
  }
}

TEST_CASE("DMA: the core's HBM bandwidth is shared by the engines moving HBM data") {
  auto t = target("trn2");
  t.hbm_bytes_per_ns = 100;  // a what-if: 16 engines share 100 B/ns
  Builder b;
  b.add(Engine::Sync, dma_load(b, 0, 128, 1024));
  auto r = timed(b.p, t);
  CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + 8 * t.dma_buffer_overhead_ns + 8 * 4096 / (100.0 / 16)));
  // SBUF -> SBUF does not touch HBM.
  Builder s;
  s.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 128, 0, 1024), sbuf(DType::float32, 0, 128, 65536, 1024)}));
  CHECK(timed(s.p, t).total_ns ==
        doctest::Approx(trigger(t) + t.dma_fixed_ns + 8 * t.dma_buffer_overhead_ns + 8 * 4096 / t.dma_engine_bytes_per_ns));
}

TEST_CASE("DMA DGE modes: hardware DGE blocks, software DGE on GpSimd") {
  auto t = target("trn2");
  t.dma_dge_mode = 2;  // hwdge
  Builder b;
  for (int i = 0; i < 3; ++i) b.add(Engine::Sync, dma_load(b, uint32_t(8 * i), 8, 64, 0, uint16_t(i)));
  auto r = timed(b.p, t);
  const double tr = trigger(t), d = engine_ns(t, 8, 256, 1);
  CHECK(r.transfers[0].eligible_ns == doctest::Approx(tr + t.dma_hwdge_ns + t.dma_fixed_ns));
  CHECK(r.transfers[1].eligible_ns == doctest::Approx(2 * tr + t.dma_hwdge_ns + t.dma_fixed_ns));
  // Two DGE blocks: the third transfer waits for the first block.
  CHECK(r.transfers[2].eligible_ns == doctest::Approx(tr + 2 * t.dma_hwdge_ns + t.dma_fixed_ns));
  CHECK(r.total_ns == doctest::Approx(tr + 2 * t.dma_hwdge_ns + t.dma_fixed_ns + d));
  auto t1 = target("trn1");  // no hardware DGE on NC-v2: as none
  t1.dma_dge_mode = 2;
  Builder b1;
  b1.add(Engine::Sync, dma_load(b1, 0, 8, 64));
  CHECK(timed(b1.p, t1).total_ns == doctest::Approx(trigger(t1) + t1.dma_fixed_ns + engine_ns(t1, 8, 256, 1)));
  // Software DGE: the trigger on GpSimd builds one descriptor per buffer.
  t.dma_dge_mode = 1;
  Builder g;
  g.add(Engine::GpSimd, dma_load(g, 0, 128, 64));
  auto rg = timed(g.p, t);
  CHECK(dur(rec(rg, Engine::GpSimd, 0)) == doctest::Approx((150 + 128 * t.dma_swdge_cycles_per_buffer) / t.gpsimd_ghz));
}

TEST_CASE("DMA completion updates semaphores, stats count bytes, transfers, HBM traffic, MBU") {
  const auto t = target("trn2");
  Builder b;
  b.add(Engine::Sync, dma_load(b, 0, 128, 512)).updates.push_back({0, 1});
  auto add = make(Opcode::tensor_tensor, {sbuf(DType::float32, 0, 128, 65536, 512), sbuf(DType::float32, 0, 128, 0, 512),
                                          sbuf(DType::float32, 0, 128, 0, 512)});
  add.params.op0 = isa::AluOp::add;
  add.waits.push_back({0, 1});
  b.add(Engine::Vector, add);
  size_t y = b.output("y", DType::float32, {128, 512});
  auto& st = b.add(Engine::Scalar, make(Opcode::dma_copy, {b.whole(y), sbuf(DType::float32, 0, 128, 65536, 512)}));
  st.waits.push_back({1, 1});
  b.p.streams[1].back().updates.push_back({1, 1});
  auto r = timed(b.p, t);
  const double d = engine_ns(t, 8, 2048, 16);
  // The add waits for the load's completion, then the Vector hand-off (docs/cost-model.md, rule 3).
  const double v_end = trigger(t) + t.dma_fixed_ns + d + (t.vector_raw_handoff_cycles + 1024) / t.vector_ghz;
  CHECK(rec(r, Engine::Vector, 0).end_ns == doctest::Approx(v_end));
  CHECK(rec(r, Engine::Vector, 0).pred == sim::TimingRef{sim::TimingRef::Transfer, 0});
  CHECK(r.total_ns == doctest::Approx(v_end + 64 / t.scalar_ghz + t.dma_fixed_ns + d));
  CHECK(r.dma_transfers == 2);
  CHECK(r.dma_bytes == 2 * 128 * 2048.0);
  CHECK(r.hbm_read_bytes == 128 * 2048.0);
  CHECK(r.hbm_write_bytes == 128 * 2048.0);
  CHECK(r.mbu_estimated_percent == doctest::Approx(100 * 2 * 128 * 2048.0 / r.total_ns / t.hbm_peak_bytes_per_ns));
  CHECK(r.engines["dma"].instructions == 2);
}

TEST_CASE("DMA: a transfer's engines start dma_engine_stagger_ns apart, the last one at its eligibility") {
  auto t = target("trn2");
  t.dma_engine_stagger_ns = 50;  // a what-if, larger than the target's, so the checks separate it from rounding
  const double first = trigger(t) + t.dma_fixed_ns;
  const double d = engine_ns(t, 8, 4096, 16);
  {  // One 128-partition transfer: 16 engines, the first starts 15 staggers sooner; the completion does not move.
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 128, 1024));
    auto r = timed(b.p, t);
    CHECK(r.total_ns == doctest::Approx(first + d));
    CHECK(r.transfers[0].start_ns == doctest::Approx(first - 15 * 50));
    CHECK(r.engines["dma"].busy_ns == doctest::Approx(d + 15 * 50));
  }
  {  // One engine: nothing to stagger.
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 8, 1024));
    auto r = timed(b.p, t);
    CHECK(r.transfers[0].start_ns == doctest::Approx(first));
    CHECK(r.engines["dma"].busy_ns == doctest::Approx(engine_ns(t, 8, 4096, 1)));
  }
  {  // Back to back in one queue: the second transfer's first engines start while the first's still move data,
     // so only the first transfer's lead adds to the DMA active time.
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 128, 1024, 0, 0));
    b.add(Engine::Sync, dma_load(b, 0, 128, 1024, 65536, 0));
    auto r = timed(b.p, t);
    CHECK(r.total_ns == doctest::Approx(first + 2 * d));
    CHECK(r.engines["dma"].busy_ns == doctest::Approx(2 * d + 15 * 50));
  }
  {  // Never before the trigger: with no fixed latency the lead is cut at the trigger's completion.
    auto t0 = t;
    t0.dma_fixed_ns = 0;
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 128, 1024));
    auto r = timed(b.p, t0);
    CHECK(r.transfers[0].start_ns == doctest::Approx(trigger(t0)));
    CHECK(r.total_ns == doctest::Approx(trigger(t0) + d));
  }
}

// A buffer that starts in another HBM page (dma_page_bytes) than the engine's previous one holds the engine at
// least dma_page_ns: 512-B rows 16 KiB apart (the matmul tutorial's lhsT tile) open a page each; the same rows
// back to back open one every other row, and their buffers and bytes take longer than that.
TEST_CASE("DMA: buffers that open another HBM page take at least dma_page_ns each") {
  const auto t = target("trn2");
  REQUIRE(t.dma_page_bytes == 1024);
  Builder b;
  size_t id = b.input("x", DType::float32, {8, 4096});
  const int64_t base = int64_t(b.p.hbm_tensors[id].address);
  b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 8, 0, 128), hbm(DType::float32, base, 4096, 8, {{1, 128}})}));
  auto r = timed(b.p, t);
  const double pages = 8 * t.dma_page_ns;
  CHECK(pages > 8 * t.dma_buffer_overhead_ns + 8 * 512 / std::min(23.0, t.hbm_bytes_per_ns));
  CHECK(r.total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + pages));
  Builder c;
  id = c.input("x", DType::float32, {8, 128});
  c.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 0, 8, 0, 128),
                                              hbm(DType::float32, int64_t(c.p.hbm_tensors[id].address), 128, 8, {{1, 128}})}));
  CHECK(timed(c.p, t).total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + engine_ns(t, 8, 512, 1)));
  CHECK(engine_ns(t, 8, 512, 1) < pages);
}

// A transposing store (the partition is HBM's innermost dimension: 4-byte elements, rows 512 B apart on each
// engine): every engine's 8 rows walk the same pages as the other 15 engines', so one opening serves all 16
// (dma_page_shared) and each engine is bound by its 1024 buffers at dma_buffer_min_ns, not by 508 page openings.
TEST_CASE("DMA: engines walking the same HBM pages share each opening") {
  auto t = target("trn2");
  REQUIRE(t.dma_page_shared == 1);
  Builder b;
  const size_t id = b.output("y", DType::float32, {128, 128});
  const int64_t base = int64_t(b.p.hbm_tensors[id].address);
  // y[q, d] = tile[d, q]: partition d at element offset d (stride 1), q at stride 128 elements.
  b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, base, 1, 128, {{128, 128}}), sbuf(DType::float32, 0, 128, 0, 128)}));
  const double pages_per_row = 4.0 / 1024 + 127 * 0.5;  // the next partition 4 B on; each element 512 B on
  const double buffers = 8 * 128.0;                      // per engine: 8 rows of 128 one-element buffers
  const double alone = std::max(buffers * t.dma_buffer_min_ns, 8 * pages_per_row * t.dma_page_ns / 16);
  CHECK(alone == doctest::Approx(buffers * t.dma_buffer_min_ns));
  CHECK(timed(b.p, t).total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + alone));
  t.dma_page_shared = 0;  // each engine opens every page itself: 28.2 us
  CHECK(timed(b.p, t).total_ns == doctest::Approx(trigger(t) + t.dma_fixed_ns + 8 * pages_per_row * t.dma_page_ns));
}
