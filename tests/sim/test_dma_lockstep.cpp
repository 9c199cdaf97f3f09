// test_dma_lockstep.cpp - the DMA engines in lockstep (sim/scheduler_dma_lockstep.cpp) give the per-engine
// schedule exactly: random mixes of even transfers (every engine moves the same rows) and uneven ones
// (partial partition blocks, fewer partitions than engines), on several queues and trigger engines, with and
// without HBM, the share interval and the engine stagger, are timed with a timeline (lockstep) and with a
// trace as well (the trace keeps the per-engine path); every instruction and transfer record, the engines'
// busy times and the total must be equal to the last bit.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "timing_test_util.h"

using namespace ttest;

namespace {

// A program of `n` DMA transfers: loads of [P, F] HBM tiles into SBUF, SBUF-to-SBUF copies and stores,
// triggered from the Sync, Scalar and GpSimd engines on queues [0, queues), each once `depth` transfers before it
// completed, with Vector copies waiting for the loads. `even_share` of the transfers cover all 128 partitions
// (`runs_of_even`: runs of 24 transfers are even or mostly uneven).
isa::Program random_program(uint32_t seed, int n, double even_share, uint16_t queues, bool runs_of_even, int depth) {
  std::mt19937 rng(seed);
  auto pick = [&](int k) { return int(rng() % uint32_t(k)); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  Builder b;
  const size_t x = b.input("x", DType::float32, {128, 4096});
  const size_t y = b.output("y", DType::float32, {128, 4096});
  const Engine triggers[] = {Engine::Sync, Engine::Sync, Engine::Scalar, Engine::GpSimd};
  uint32_t loads = 0;
  bool even_run = true;
  for (int k = 0; k < n; ++k) {
    if (runs_of_even && k % 24 == 0) even_run = chance(0.5);
    const bool even = runs_of_even ? even_run || chance(0.05) : chance(even_share);
    uint32_t p0 = 0, np = 128;
    if (!even) {
      const uint32_t sizes[] = {1, 8, 12, 16, 64, 100, 120, 127};
      np = sizes[pick(8)];
      p0 = uint32_t(pick(int(128 - np + 1)));
    }
    const uint32_t F = 16u << pick(6);  // 64 B .. 2 KiB per row
    const int64_t col = int64_t(pick(int(4096 / F))) * F;
    const int64_t sb_off = int64_t(pick(8)) * 8192;
    auto hbm_tile = [&](size_t t) {
      const isa::HbmTensor& ht = b.p.hbm_tensors[t];
      return hbm(DType::float32, int64_t(ht.address) + (int64_t(p0) * 4096 + col) * 4, 4096, np, {{1, F}});
    };
    isa::Instruction ins;
    const int kind = pick(5);
    if (kind <= 2) {
      ins = make(Opcode::dma_copy, {sbuf(DType::float32, p0, np, sb_off, F), hbm_tile(x)});
      ins.updates.push_back({0, 1});
      ++loads;
    } else if (kind == 3) {
      ins = make(Opcode::dma_copy, {sbuf(DType::float32, p0, np, 65536 + sb_off, F), sbuf(DType::float32, p0, np, sb_off, F)});
    } else {
      ins = make(Opcode::dma_copy, {hbm_tile(y), sbuf(DType::float32, p0, np, sb_off, F)});
    }
    ins.params.dma_queue = uint16_t(pick(queues));
    ins.updates.push_back({1, 1});  // at most `depth` transfers queued or in flight
    if (k >= depth) ins.waits.push_back({1, uint32_t(k - depth)});
    b.add(triggers[pick(4)], std::move(ins));
    if (loads > 0 && chance(0.3)) {  // compute work released by the loads so far (their updates are on sem 0)
      auto& c = b.add(Engine::Vector, make(Opcode::tensor_copy, {sbuf(DType::float32, 0, 128, 131072, 256),
                                                                 sbuf(DType::float32, 0, 128, 139264, 256)}));
      c.waits.push_back({0, loads});
    }
  }
  return b.p;
}

void same_timing(const sim::Result& a, const sim::Result& b) {
  REQUIRE(a.timeline.size() == b.timeline.size());
  REQUIRE(a.transfers.size() == b.transfers.size());
  CHECK(std::memcmp(&a.total_ns, &b.total_ns, sizeof(double)) == 0);
  int bad = 0;
  for (size_t k = 0; k < a.timeline.size() && bad < 5; ++k) {
    const sim::InstrTiming &u = a.timeline[k], &v = b.timeline[k];
    const bool same = u.issued == v.issued && u.ready_ns == v.ready_ns && u.start_ns == v.start_ns &&
                      u.end_ns == v.end_ns && u.retire_ns == v.retire_ns && u.cause == v.cause && u.pred == v.pred &&
                      u.sem == v.sem && u.sem_value == v.sem_value && u.transfer == v.transfer;
    if (!same) {
      ++bad;
      CAPTURE(k);
      CHECK(u.start_ns == v.start_ns);
      CHECK(u.retire_ns == v.retire_ns);
      CHECK(same);
    }
  }
  for (size_t k = 0; k < a.transfers.size() && bad < 5; ++k) {
    const sim::TransferTiming &u = a.transfers[k], &v = b.transfers[k];
    const bool same = u.eligible_ns == v.eligible_ns && u.start_ns == v.start_ns && u.done_ns == v.done_ns &&
                      u.pred == v.pred && u.engines == v.engines && u.queue == v.queue;
    if (!same) {
      ++bad;
      CAPTURE(k);
      CHECK(u.start_ns == v.start_ns);
      CHECK(u.done_ns == v.done_ns);
      CHECK(same);
    }
  }
  for (const auto& [name, st] : a.engines) {
    CAPTURE(name);
    CHECK(st.busy_ns == b.engines.at(name).busy_ns);
    CHECK(st.instructions == b.engines.at(name).instructions);
  }
}

}  // namespace

TEST_CASE("DMA lockstep: the same schedule as the per-engine path, for random mixes of even and uneven transfers") {
  for (const char* tn : kTargets) {
    for (uint32_t seed = 1; seed <= 12; ++seed) {
      CAPTURE(tn);
      CAPTURE(seed);
      auto t = target(tn);
      if (seed % 3 == 1) t.dma_share_interval_ns = 0;
      if (seed % 4 == 2) t.dma_engine_stagger_ns = 0;
      if (seed % 5 == 3) t.hbm_bytes_per_ns = t.dma_engine_bytes_per_ns * 4;  // HBM-bound shares
      const double even_share = seed <= 4 ? 1.0 : seed <= 8 ? 0.8 : 0.3;
      const isa::Program p = random_program(seed, 300, even_share, uint16_t(1 + seed % 4), seed % 2 == 0, 2 + int(seed % 7));
      const sim::Result lockstep = timed(p, t), per_engine = timed(p, t, true);
      same_timing(lockstep, per_engine);
      CHECK(lockstep.dma_transfers == 300);
    }
  }
}
