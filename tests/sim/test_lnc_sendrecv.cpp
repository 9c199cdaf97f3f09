// test_lnc_sendrecv.cpp - LNC=2 sendrecv (sim/exec_sendrecv.cpp, docs/lnc.md): closed-form timing of an
// exchange, the data each core receives, and the single-core error.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "sim_test_util.h"

using namespace simtest;

namespace {
// src: 128 x 512 fp32 at byte 0 of each partition, dst: the same shape at byte 4096.
isa::Instruction sendrecv(uint16_t sem, int32_t n) {
  isa::Instruction s = make(Opcode::sendrecv, {sbuf(DType::float32, 0, 128, 4096, 512), sbuf(DType::float32, 0, 128, 0, 512)});
  s.params.sem = sem;
  s.params.rimm = n;
  return s;
}
}  // namespace

TEST_CASE("sendrecv: both cores done one DMA transfer after the later of the pair became ready") {
  const isa::TargetDesc t = *isa::find_target("trn2");
  // One transfer of 128 partitions x 2048 bytes: 16 engines x 8 partitions each, one buffer per row.
  const double rows = 128.0 / t.dma_engines;
  const double transfer = t.dma_fixed_ns + rows * t.dma_buffer_overhead_ns + rows * 2048 / t.dma_engine_bytes_per_ns;
  std::vector<isa::Program> ps(2);
  for (int c = 0; c < 2; ++c) {
    Builder b;
    isa::Instruction m = make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)});
    m.params.imm0 = float(c + 1);  // core c sends c + 1; core 1's memset is on GpSimd, ahead of its sendrecv
    if (c == 0) m.updates.push_back({1, 1});
    b.add(c == 1 ? Engine::GpSimd : Engine::Vector, m);
    isa::Instruction s = sendrecv(0, 1);
    if (c == 0) s.waits.push_back({1, 1});
    b.add(Engine::GpSimd, s);
    ps[size_t(c)] = b.p;
  }
  Builder alone;
  alone.add(Engine::GpSimd, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
  const double memset_g = sim::simulate(alone.p, {}).engines["gpsimd"].busy_ns;
  Builder alone_v;
  alone_v.add(Engine::Vector, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
  const double memset_v = sim::simulate(alone_v.p, {}).engines["vector"].busy_ns;
  REQUIRE(memset_g > 0);
  REQUIRE(memset_v > 0);
  sim::RunResult r = sim::simulate(ps, {});
  // Core 0 is ready after its Vector memset (semaphore), core 1 after its GpSimd memset; each receives the
  // other's signal core_barrier_ns after the other was ready, then its DMA moves its src to the peer. Each
  // sendrecv ends when both transfers are done: the later pair-ready time plus one transfer.
  const double ready0 = std::max(memset_v, memset_g + t.core_barrier_ns);
  const double ready1 = std::max(memset_g, memset_v + t.core_barrier_ns);
  for (int c = 0; c < 2; ++c) {
    CHECK(r.cores[size_t(c)].total_ns == doctest::Approx(std::max(ready0, ready1) + transfer).epsilon(1e-12));
    CHECK(r.cores[size_t(c)].dma_transfers == 1);  // the sendrecv's transfer went through the DMA queues
    CHECK(r.cores[size_t(c)].dma_bytes == 128.0 * 2048);
  }
}

namespace {
// Core c: GpSimd memsets src to c + 1 and exchanges it (sendrecv, +1 on semaphore 2); with `copy_bytes` > 0
// Sync first starts an SBUF-to-SBUF dma_copy of 128 partitions x copy_bytes (queue 1) that needs the same
// DMA engines; Sync stores the received dst to rows [128 c, 128 c + 128) of the shared output.
std::vector<isa::Program> exchange(uint32_t copy_bytes) {
  std::vector<isa::Program> ps(2);
  for (int c = 0; c < 2; ++c) {
    Builder b;
    const size_t out = b.output("out", DType::float32, {256, 512});
    if (copy_bytes) {
      isa::Instruction cp = make(Opcode::dma_copy, {sbuf(DType::float32, 0, 128, 65536, copy_bytes / 4),
                                                    sbuf(DType::float32, 0, 128, 16384, copy_bytes / 4)});
      cp.params.dma_queue = 1;
      b.add(Engine::Sync, cp);
    }
    isa::Instruction m = make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)});
    m.params.imm0 = float(c + 1);
    b.add(Engine::GpSimd, m);
    isa::Instruction s = sendrecv(0, 1);
    s.updates.push_back({2, 1});
    b.add(Engine::GpSimd, s);
    AccessPattern rows = b.whole(out);
    rows.offset += int64_t(c) * 128 * 512 * 4;
    rows.num_partitions = 128;
    isa::Instruction st = make(Opcode::dma_copy, {rows, sbuf(DType::float32, 0, 128, 4096, 512)});
    st.waits.push_back({2, 1});
    b.add(Engine::Sync, st);
    ps[size_t(c)] = b.p;
  }
  return ps;
}
}  // namespace

TEST_CASE("sendrecv: its transfer contends with a dma_copy on the DMA engines of the sending core") {
  const isa::TargetDesc t = *isa::find_target("trn2");
  const double rows = 128.0 / t.dma_engines;  // each DMA engine moves 8 rows of every 128-partition transfer
  const double share = rows * t.dma_buffer_overhead_ns + rows * 2048 / t.dma_engine_bytes_per_ns;
  Builder m;
  m.add(Engine::GpSimd, make(Opcode::memset, {sbuf(DType::float32, 0, 128, 0, 512)}));
  const double memset_g = sim::simulate(m.p, {}).engines["gpsimd"].busy_ns;

  // Alone: the pair is ready core_barrier_ns after the memsets; the sendrecv's transfer (dma_fixed_ns, then
  // one share per engine) ends both sendrecvs.
  sim::RunResult alone = sim::simulate(exchange(0), {});
  const double sr_alone = memset_g + t.core_barrier_ns + t.dma_fixed_ns + share;
  // The timeline: GpSimd's second instruction (the sendrecv) ends there.
  sim::Options tl;
  tl.timeline = true;
  sim::RunResult alone_tl = sim::simulate(exchange(0), {}, tl);
  for (int c = 0; c < 2; ++c) {
    const sim::Result& r = alone_tl.cores[size_t(c)];
    const sim::InstrTiming& it = r.timeline[r.instr_base[size_t(Engine::GpSimd)] + 1];
    CHECK(it.start_ns == doctest::Approx(memset_g + t.core_barrier_ns).epsilon(1e-12));
    CHECK(it.end_ns == doctest::Approx(sr_alone).epsilon(1e-12));
    REQUIRE(it.transfer >= 0);
    CHECK(r.transfers[size_t(it.transfer)].done_ns == doctest::Approx(sr_alone).epsilon(1e-12));
  }

  // With a 48 KB-per-partition SBUF copy started first: the copy's shares (eligible at its trigger + 
  // dma_fixed_ns) hold every DMA engine until the copy is done, so the sendrecv's shares start then.
  const uint32_t copy_bytes = 48 * 1024;
  Builder cb;
  isa::Instruction cp = make(Opcode::dma_copy, {sbuf(DType::float32, 0, 128, 65536, copy_bytes / 4),
                                                sbuf(DType::float32, 0, 128, 16384, copy_bytes / 4)});
  cp.params.dma_queue = 1;
  cb.add(Engine::Sync, cp);
  const double copy_done = sim::simulate(cb.p, {}).total_ns;  // the copy alone
  const double copy_share = rows * t.dma_buffer_overhead_ns + rows * copy_bytes / t.dma_engine_bytes_per_ns;
  REQUIRE(copy_done - copy_share < memset_g + t.core_barrier_ns + t.dma_fixed_ns);  // the copy goes first
  REQUIRE(copy_done > sr_alone);  // and is still moving when the sendrecv becomes eligible
  sim::RunResult busy = sim::simulate(exchange(copy_bytes), {}, tl);
  for (int c = 0; c < 2; ++c) {
    const sim::Result& r = busy.cores[size_t(c)];
    const sim::InstrTiming& it = r.timeline[r.instr_base[size_t(Engine::GpSimd)] + 1];
    CHECK(it.end_ns == doctest::Approx(copy_done + share).epsilon(1e-12));  // delayed by the copy
    const sim::InstrTiming& copy = r.timeline[r.instr_base[size_t(Engine::Sync)]];
    REQUIRE(copy.transfer >= 0);
    CHECK(r.transfers[size_t(copy.transfer)].done_ns == doctest::Approx(copy_done).epsilon(1e-12));  // not delayed
    CHECK(r.dma_transfers == 3);  // the copy, the sendrecv and the store
  }
  // The store after it moves as late: the whole run is later by exactly the sendrecv's delay.
  CHECK(busy.total_ns == doctest::Approx(alone.total_ns + (copy_done + share - sr_alone)).epsilon(1e-12));

  // The data: core c's output rows hold the peer's src value (2 - c), timed and functional alike.
  for (bool functional : {false, true}) {
    sim::Options o;
    o.functional = functional;
    sim::RunResult r = sim::simulate(exchange(copy_bytes), {}, o);
    REQUIRE(r.outputs.size() == 1);
    const std::vector<float> v = values<float>(r.outputs[0]);
    REQUIRE(v.size() == 256 * 512);
    CHECK(v[0] == 2.0f);
    CHECK(v[128 * 512 - 1] == 2.0f);
    CHECK(v[128 * 512] == 1.0f);
    CHECK(v.back() == 1.0f);
    CHECK(r.cores[0].mode == (functional ? "functional" : "timed"));
  }
}

TEST_CASE("sendrecv: its transfer goes on the collective ring, not behind the loads queued on queue 0") {
  // Two 48 KB-per-partition SBUF copies A and B on queue 0 (the default), then the exchange: the sendrecv's shares
  // take the DMA engines when A's are done, round-robin with queue 0, not after B (FIFO on queue 0).
  const isa::TargetDesc t = *isa::find_target("trn2");
  const double rows = 128.0 / t.dma_engines;
  const double share = rows * t.dma_buffer_overhead_ns + rows * 2048 / t.dma_engine_bytes_per_ns;
  const uint32_t copy_bytes = 48 * 1024;
  auto copy = [&](int k) {
    isa::Instruction cp = make(Opcode::dma_copy, {sbuf(DType::float32, 0, 128, 65536 + 49152 * k, copy_bytes / 4),
                                                  sbuf(DType::float32, 0, 128, 16384, copy_bytes / 4)});
    return cp;
  };
  std::vector<isa::Program> ps = exchange(0);
  for (isa::Program& p : ps) {
    auto& sync = p.streams[size_t(Engine::Sync)];
    sync.insert(sync.begin(), {copy(0), copy(1)});
  }
  sim::Options tl;
  tl.timeline = true;
  sim::RunResult r2 = sim::simulate(ps, {}, tl);
  for (int c = 0; c < 2; ++c) {
    const sim::Result& r = r2.cores[size_t(c)];
    const sim::InstrTiming& sr = r.timeline[r.instr_base[size_t(Engine::GpSimd)] + 1];
    const sim::TransferTiming& a = r.transfers[size_t(r.timeline[r.instr_base[size_t(Engine::Sync)]].transfer)];
    const sim::TransferTiming& b = r.transfers[size_t(r.timeline[r.instr_base[size_t(Engine::Sync)] + 1].transfer)];
    REQUIRE(sr.transfer >= 0);
    const sim::TransferTiming& x = r.transfers[size_t(sr.transfer)];
    CHECK(x.queue == t.dma_queues);  // the ring after the target's 16 queues
    CHECK(a.queue == 0);
    CHECK(b.queue == 0);
    CHECK(x.done_ns == doctest::Approx(a.done_ns + share).epsilon(1e-12));  // right after A's shares
    CHECK(x.done_ns < b.done_ns);
    CHECK(sr.end_ns == doctest::Approx(x.done_ns).epsilon(1e-12));
  }
}

TEST_CASE("LNC functional mode: a sendrecv the other core never reaches is a located deadlock") {
  std::vector<isa::Program> ps = exchange(0);
  isa::Instruction& s1 = ps[1].streams[size_t(Engine::GpSimd)][1];
  s1.waits.push_back({5, 1});  // nothing signals semaphore 5: core 1's sendrecv never becomes ready
  s1.loc = uint32_t(ps[1].locations.size());
  ps[1].locations.push_back(SourceLoc{"k.py", 7, 3});
  ps[0].streams[size_t(Engine::GpSimd)][1].loc = uint32_t(ps[0].locations.size());
  ps[0].locations.push_back(SourceLoc{"k.py", 7, 3});
  sim::Options o;
  o.functional = true;
  try {
    sim::simulate(ps, {}, o);
    FAIL("expected an error");
  } catch (const Error& e) {
    // Core 0 signalled core 1 and waits for core 1's signal, which never comes.
    CHECK(std::string(e.what()) == "deadlock: core 0's gpsimd waits for semaphore 0 >= 1 (value is 0)");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 7);
  }
}

TEST_CASE("sendrecv: in a single-core run it is an error") {
  Builder b;
  isa::Instruction& s = b.add(Engine::GpSimd, sendrecv(0, 1));
  s.loc = b.loc("k.py", 4, 5);
  try {
    sim::simulate(b.p, {});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "sendrecv: needs an LNC=2 run (--lnc 2)");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 4);
  }
}

TEST_CASE("sendrecv: a queue= past the core's DMA queues is an error, as for a dma_copy") {
  std::vector<isa::Program> ps = exchange(0);
  ps[0].streams[size_t(Engine::GpSimd)][1].params.dma_queue = 16;  // trn2 has queues 0 .. 15 (16 is the ring's)
  try {
    sim::simulate(ps, {});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "sendrecv: DMA queue 16 out of range [0, 16)");
  }
}
