// test_trace.cpp - trace events, the --stats / --trace JSON writers, and determinism.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sim_test_util.h"

using namespace simtest;
using nlohmann::json;

namespace {
// A small kernel: two loads on two queues, an add on Vector, an exp on Scalar, a store.
isa::Program small_kernel() {
  Builder b;
  size_t a = b.input("a", DType::float32, {128, 64});
  size_t c = b.input("c", DType::float32, {128, 64});
  size_t y = b.output("y", DType::float32, {128, 64});
  auto ta = sbuf(DType::float32, 0, 128, 0, 64), tc = sbuf(DType::float32, 0, 128, 256, 64);
  auto ts = sbuf(DType::float32, 0, 128, 512, 64), te = sbuf(DType::float32, 0, 128, 768, 64);
  uint32_t l1 = b.loc("kern.py", 10), l2 = b.loc("kern.py", 11), l3 = b.loc("kern.py", 12);
  auto& ld1 = b.add(Engine::Sync, make(Opcode::dma_copy, {ta, b.whole(a)}));
  ld1.updates.push_back({0, 1});
  ld1.loc = l1;
  auto& ld2 = b.add(Engine::Scalar, make(Opcode::dma_copy, {tc, b.whole(c)}));
  ld2.updates.push_back({0, 1});
  ld2.params.dma_queue = 2;
  ld2.loc = l1;
  auto add = make(Opcode::tensor_tensor, {ts, ta, tc});
  add.params.op0 = isa::AluOp::add;
  add.waits.push_back({0, 2});
  add.updates.push_back({1, 1});
  add.loc = l2;
  b.add(Engine::Vector, add);
  auto ex = make(Opcode::activation, {te, ts});
  ex.params.func = isa::ActFunc::exp;
  ex.waits.push_back({1, 1});
  ex.updates.push_back({2, 1});
  ex.loc = l3;
  b.add(Engine::Scalar, ex);
  auto& st = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(y), te}));
  st.waits.push_back({2, 1});
  return b.p;
}
std::vector<sim::HostArray> small_inputs() {
  return {f32_array({128, 64}, ramp(128 * 64, 0, 0.001f)), f32_array({128, 64}, ramp(128 * 64, 1, -0.0005f))};
}
std::string stats_text(const sim::Result& r) {  // the stats of a one-core run whose core is r
  std::ostringstream os;
  sim::RunResult rr;
  rr.cores = {r};
  rr.total_ns = r.total_ns;
  sim::write_stats_json(rr, os);
  return os.str();
}
std::string trace_text(const sim::Result& r) {
  std::ostringstream os;
  const isa::Program p = small_kernel();
  sim::RunResult rr;
  rr.cores = {r};
  sim::write_trace_json({&p, 1}, rr, os);
  return os.str();
}
}  // namespace

TEST_CASE("no trace events without Options::trace") {
  auto r = sim::simulate(small_kernel(), small_inputs());
  CHECK(r.trace.empty());
  CHECK(r.instructions == 5);
}

TEST_CASE("trace events: one per instruction, per DMA engine share and per queue transfer") {
  sim::Options o;
  o.trace = true;
  auto r = sim::simulate(small_kernel(), small_inputs(), o);
  std::map<std::string, int> per_track;
  for (const auto& e : r.trace) ++per_track[e.track];
  CHECK(per_track["sync"] == 2);
  CHECK(per_track["scalar"] == 2);
  CHECK(per_track["vector"] == 1);
  CHECK(per_track["dma.q0"] == 2);
  CHECK(per_track["dma.q2"] == 1);
  for (int e = 0; e < 16; ++e) CHECK(per_track["dma.e" + std::to_string(e)] == 3);  // 128 partitions: all 16
  for (const auto& e : r.trace) {
    CHECK(e.dur_ns >= 0);
    CHECK(e.start_ns + e.dur_ns <= r.total_ns + 1e-9);
    if (e.track.rfind("dma", 0) == 0) CHECK(e.cat == "dma");
    else CHECK(e.cat == e.track);
  }
  auto vec = std::find_if(r.trace.begin(), r.trace.end(), [](auto& e) { return e.track == "vector"; });
  REQUIRE(vec != r.trace.end());
  CHECK(vec->name == "tensor_tensor");
  CHECK(vec->source_location == "kern.py:11");
  CHECK(vec->operands.find("dst=") == 0);
  CHECK(vec->operands.find("data2=") != std::string::npos);
  CHECK(vec->dur_ns == doctest::Approx(2 * 64 / trn2().vector_ghz));
  // The result is the same with or without the trace.
  auto plain = sim::simulate(small_kernel(), small_inputs());
  CHECK(plain.outputs[0].data == r.outputs[0].data);
  CHECK(plain.total_ns == r.total_ns);
}

TEST_CASE("write_trace_json is Chrome trace JSON with the required fields") {
  sim::Options o;
  o.trace = true;
  auto r = sim::simulate(small_kernel(), small_inputs(), o);
  json j = json::parse(trace_text(r));
  CHECK(j["displayTimeUnit"] == "ns");
  REQUIRE(j["traceEvents"].is_array());
  std::set<int> named_tids;
  size_t complete = 0, flow_starts = 0, flow_ends = 0, counters = 0;
  std::map<uint64_t, int> flow_ids;
  for (const json& e : j["traceEvents"]) {
    CHECK(e["pid"] == 1);
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") named_tids.insert(e["tid"].get<int>());
      continue;
    }
    if (e["ph"] == "s" || e["ph"] == "f") {
      (e["ph"] == "s" ? flow_starts : flow_ends)++;
      flow_ids[e["id"].get<uint64_t>()]++;
      CHECK(named_tids.count(e["tid"].get<int>()) == 1);
      if (e["ph"] == "f") CHECK(e["bp"] == "e");
      continue;
    }
    if (e["ph"] == "C") {
      ++counters;
      CHECK(e["args"]["value"].get<double>() >= 0);
      continue;
    }
    REQUIRE(e["ph"] == "X");
    ++complete;
    CHECK(named_tids.count(e["tid"].get<int>()) == 1);  // metadata comes first
    for (const char* k : {"ts", "dur", "cat", "name", "args"}) CHECK(e.contains(k));
    for (const char* k : {"opcode", "operands", "duration_ns", "nki_source_location"}) CHECK(e["args"].contains(k));
    CHECK(e["dur"].get<double>() == doctest::Approx(e["args"]["duration_ns"].get<double>() / 1000.0));
  }
  CHECK(complete == r.trace.size());
  CHECK(named_tids.size() == 5 + 2 + 16);  // engines, queues 0 and 2, DMA engines
  // One flow arrow per semaphore wait (add, exp, store), each a start/finish pair.
  CHECK(flow_starts == 3);
  CHECK(flow_ends == 3);
  for (auto& [id, n] : flow_ids) CHECK(n == 2);
  CHECK(counters == r.counters.size());
  CHECK(counters > 3);
}

TEST_CASE("trace flows follow the semaphores, usage counters rise and fall") {
  sim::Options o;
  o.trace = true;
  auto r = sim::simulate(small_kernel(), small_inputs(), o);
  REQUIRE(r.flows.size() == 3);
  // add (vector) waits for both loads: its flow comes from the later DMA queue slice.
  std::set<std::string> from, to;
  for (auto& f : r.flows) {
    from.insert(f.from_track);
    to.insert(f.to_track);
    CHECK(f.from_ns <= f.to_ns + 1e-9);
  }
  CHECK(to == std::set<std::string>{"vector", "scalar", "sync"});
  CHECK(from.count("vector") == 1);
  CHECK(from.count("scalar") == 1);
  double sbuf_max = 0, last = -1;
  for (auto& c : r.counters)
    if (c.name == "sbuf_bytes_per_partition") {
      sbuf_max = std::max(sbuf_max, c.value);
      last = c.value;
    }
  // Four 256-byte tiles per partition, never all live at once; everything is dead at the end.
  CHECK(sbuf_max >= 512);
  CHECK(sbuf_max <= 1024);
  CHECK(last == 0);
}

TEST_CASE("write_stats_json has the totals and every engine") {
  auto r = sim::simulate(small_kernel(), small_inputs());
  const json top = json::parse(stats_text(r));  // one core: the one shape, cores[] of 1
  CHECK(top["schema"] == "nki-sim-stats/2");
  CHECK(top["lnc"] == 1);
  CHECK(top["total_ns"].get<double>() == r.total_ns);
  CHECK(top["device_ns"].get<double>() == r.device_ns);
  REQUIRE(top["cores"].size() == 1);
  const json& j = top["cores"][0];
  CHECK(j["target"] == "trn2");
  CHECK(j["total_ns"].get<double>() == r.total_ns);
  CHECK(j["total_cycles"].get<uint64_t>() == r.total_cycles);
  CHECK(j["instructions"] == 5);
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "sync", "dma"}) {
    CAPTURE(e);
    REQUIRE(j["engines"].contains(e));
    for (const char* k : {"busy_ns", "instructions", "utilization_percent"}) CHECK(j["engines"][e].contains(k));
    double u = j["engines"][e]["utilization_percent"].get<double>();
    CHECK(u >= 0);
    CHECK(u <= 100.0 + 1e-9);
  }
  CHECK(j["engines"]["dma"]["instructions"] == 3);
  CHECK(j["engines"]["tensor"]["busy_ns"] == 0);
  CHECK(j["mode"] == "timed");
  CHECK(j["dma"]["transfers"] == 3);
  CHECK(j["dma"]["bytes"] == 3 * 128 * 256.0);
  CHECK(j["dma"]["average_transfer_bytes"] == 128 * 256.0);
  CHECK(j["dma"]["hbm_read_bytes"] == 2 * 128 * 256.0);
  CHECK(j["dma"]["hbm_write_bytes"] == 128 * 256.0);
  CHECK(j["mfu_estimated_percent"] == 0);
  CHECK(j["mbu_estimated_percent"].get<double>() > 0);
}

TEST_CASE("functional and timing-only runs") {
  auto timed = sim::simulate(small_kernel(), small_inputs());
  sim::Options f;
  f.functional = true;
  auto rf = sim::simulate(small_kernel(), small_inputs(), f);
  CHECK(rf.mode == "functional");
  CHECK(rf.total_ns == 0);
  CHECK(rf.outputs[0].data == timed.outputs[0].data);
  CHECK(rf.engines["vector"].instructions == 1);
  sim::Options to;
  to.timing_only = true;
  auto rt = sim::simulate(small_kernel(), small_inputs(), to);
  CHECK(rt.mode == "timing-only");
  CHECK(rt.outputs.empty());
  CHECK(rt.total_ns == timed.total_ns);
  json a = json::parse(stats_text(rt)), b = json::parse(stats_text(timed));
  CHECK(a["cores"][0]["mode"] == "timing-only");
  a["cores"][0]["mode"] = "timed";
  CHECK(a == b);
  auto rt2 = sim::simulate(small_kernel(), std::vector<sim::HostArray>{}, to);  // no inputs needed
  CHECK(rt2.total_ns == timed.total_ns);
  sim::Options both = to;
  both.functional = true;
  CHECK_THROWS_AS(sim::simulate(small_kernel(), small_inputs(), both), Error);
}

TEST_CASE("runs are deterministic: identical JSON and outputs") {
  sim::Options o;
  o.trace = true;
  auto r1 = sim::simulate(small_kernel(), small_inputs(), o);
  auto r2 = sim::simulate(small_kernel(), small_inputs(), o);
  CHECK(stats_text(r1) == stats_text(r2));
  CHECK(trace_text(r1) == trace_text(r2));
  CHECK(r1.outputs[0].data == r2.outputs[0].data);
}
