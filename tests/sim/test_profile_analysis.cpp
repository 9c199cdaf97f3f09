// test_profile_analysis.cpp - the profile's analysis (sim/verdict.cpp, docs/profile.md) on hand-built programs:
// the end time split along the critical path adds up, hardware-DGE time counts as DMA fixed latency, a transfer
// queued behind another is charged as data movement, and a run without a timeline has no verdict.
#include <doctest/doctest.h>

#include "sim/profile_analysis.h"
#include "timing_test_util.h"

using namespace ttest;

namespace {
double cause_sum(const sim::ProfileAnalysis& a) {
  double s = a.path_dma_data_ns + a.path_dma_latency_ns + a.path_dependency_ns;
  for (double e : a.path_engine_ns) s += e;
  return s;
}
}  // namespace

TEST_CASE("profile analysis: one load; the causes add up to the end, fixed latency includes hardware DGE") {
  for (const char* name : kTargets) {
    CAPTURE(name);
    isa::TargetDesc t = target(name);
    t.dma_dge_mode = 2;  // hwdge where the target has it: dma_hwdge_ns before dma_fixed_ns
    Builder b;
    b.add(Engine::Sync, dma_load(b, 0, 128, 512));
    const sim::Result r = timed(b.p, t);
    const sim::ProfileAnalysis a = sim::analyze_profile(b.p, r, t);
    REQUIRE(r.transfers.size() == 1);
    const sim::TransferTiming& x = r.transfers[0];
    CHECK(a.path_dma_latency_ns == doctest::Approx(x.eligible_ns - x.enqueue_ns));
    CHECK(a.path_dma_latency_ns == doctest::Approx(t.dma_fixed_ns + t.dma_hwdge_ns));
    CHECK(a.path_dma_data_ns == doctest::Approx(x.done_ns - x.eligible_ns));
    CHECK(a.path_engine_ns[int(Engine::Sync)] == doctest::Approx(t.dma_trigger_cycles / t.sync_ghz));
    CHECK(cause_sum(a) == doctest::Approx(r.total_ns));
    CHECK(a.path_transfers_latency == 1);
    CHECK(a.verdict == (a.path_dma_latency_ns > a.path_dma_data_ns ? "dma-latency-bound" : "dma-bandwidth-bound"));
    CHECK(a.dma_peak_bytes_per_ns == doctest::Approx(t.dma_engines * t.dma_engine_bytes_per_ns));
    CHECK(a.dma_in_flight_ns == doctest::Approx(x.done_ns - x.enqueue_ns));
    CHECK(sim::critical_path(r).size() == 2);  // the trigger, its transfer
  }
}

TEST_CASE("profile analysis: a transfer queued behind another on the same queue is charged as data movement") {
  const isa::TargetDesc t = target("trn1");
  Builder b;
  b.add(Engine::Sync, dma_load(b, 0, 128, 4096, 0));
  b.add(Engine::Sync, dma_load(b, 0, 128, 4096, 16384));
  const sim::Result r = timed(b.p, t);
  const sim::ProfileAnalysis a = sim::analyze_profile(b.p, r, t);
  REQUIRE(r.transfers.size() == 2);
  // The path: trigger, first transfer (latency + data), second transfer (data only: it waited behind the first).
  CHECK(r.transfers[1].pred == sim::TimingRef{sim::TimingRef::Transfer, 0});
  CHECK(a.path_transfers_latency == 1);
  CHECK(a.path_dma_latency_ns == doctest::Approx(t.dma_fixed_ns));
  CHECK(a.path_dma_data_ns == doctest::Approx(r.transfers[1].done_ns - r.transfers[0].eligible_ns));
  CHECK(a.verdict == "dma-bandwidth-bound");
  CHECK(cause_sum(a) == doctest::Approx(r.total_ns));
  // Both transfers read different HBM tensors once: no reload, 100% useful reads.
  CHECK(a.hbm_reload_bytes == 0);
  CHECK(a.dma_queues_used == 1);
}

TEST_CASE("profile analysis: without a timeline there is no verdict, and the evidence still reads the stats") {
  const isa::TargetDesc t = target("trn2");
  Builder b;
  b.add(Engine::Sync, dma_load(b, 0, 128, 512));
  sim::Options o;
  o.target = t;
  o.timing_only = true;
  const sim::Result r = sim::simulate(b.p, std::vector<sim::HostArray>{}, o);
  const sim::ProfileAnalysis a = sim::analyze_profile(b.p, r, t);
  CHECK(a.verdict.empty());
  CHECK(a.warnings.empty());
  CHECK(a.dma_bytes == 128 * 512 * 4);
  CHECK(a.total_ns == r.total_ns);
}
