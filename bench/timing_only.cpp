// timing_only.cpp - benchmark: timing-only simulation speed in simulated instructions per second.
//
//   nki-bench-timing [ITERATIONS=50000] [TARGET=trn2] [REPEATS=3] [serial]
//
// Builds a software-pipelined tile loop as the back end would emit it: per iteration a DMA load (Sync),
// seven Vector instructions, four Scalar instructions, a LoadStationary and four MultiplyMoving (Tensor),
// a GpSimd memset, a PSUM eviction on Vector one iteration behind, and a DMA store (Sync) two iterations
// behind; stages hand over through semaphores. 20 instructions (2 DMA transfers) per iteration:
// 50000 iterations = 1,000,000 instructions. Prints the best of REPEATS runs of sim::simulate with
// Options::timing_only (validation included). `serial` runs with Options::parallel = false (preparation and
// event loop on one thread: the figure to profile and to compare builds by).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <ctime>
#include <vector>

#include "isa/program.h"
#include "isa/target.h"
#include "sim/simulate.h"

using namespace nkisim;
using isa::AccessPattern;
using isa::DType;
using isa::Engine;
using isa::Opcode;

namespace {
AccessPattern tile(isa::Memory m, DType t, uint32_t np, int64_t off, uint32_t f) {
  AccessPattern ap;
  ap.mem = m;
  ap.dtype = t;
  ap.num_partitions = np;
  ap.offset = off;
  ap.num_dims = 1;
  ap.dims[0] = isa::ApDim{1, f};
  return ap;
}
AccessPattern sb(int64_t off, uint32_t f, DType t = DType::bfloat16) { return tile(isa::Memory::SBUF, t, 128, off, f); }

isa::Instruction ins(Opcode op, std::initializer_list<AccessPattern> ops) {
  isa::Instruction i;
  i.op = op;
  int k = 0;
  for (auto& a : ops) i.operands[size_t(k++)] = a;
  return i;
}

isa::Program build(uint32_t iters, const std::string& target) {
  isa::Program p;
  p.target = target;
  p.kernel_name = "bench_timing";
  p.num_semaphores = 8;
  const uint32_t F = 512;  // bf16 elements per partition per tile (1 KiB)
  isa::HbmTensor x{"x", isa::HbmTensor::Kind::Input, DType::bfloat16, {128, int64_t(F) * 64}, 0, 128ull * F * 2 * 64, 0, -1, {}};
  isa::HbmTensor y{"y", isa::HbmTensor::Kind::Output, DType::bfloat16, {128, int64_t(F) * 64}, x.bytes, x.bytes, -1, 0, {}};
  p.hbm_tensors = {x, y};
  p.hbm_bytes = 2 * x.bytes;
  auto hbm_tile = [&](uint64_t base, uint32_t i) {
    AccessPattern ap = tile(isa::Memory::HBM, DType::bfloat16, 128, int64_t(base + (i % 64) * F * 2), F);
    ap.partition_stride = int64_t(F) * 64;
    return ap;
  };
  auto add = [&](Engine e, isa::Instruction i) -> isa::Instruction& {
    i.engine = e;
    p.streams[size_t(e)].push_back(std::move(i));
    return p.streams[size_t(e)].back();
  };
  enum : uint16_t { kLoaded, kVec, kAct, kMm, kEvict };
  auto evict = [&](uint32_t i) {
    auto& c = add(Engine::Vector, ins(Opcode::tensor_copy, {sb(98304 + (i % 2) * 2048, F, DType::float32),
                                                           tile(isa::Memory::PSUM, DType::float32, 128, (i % 8) * 2048, F)}));
    c.waits.push_back({kMm, i + 1});
    c.updates.push_back({kEvict, 1});
  };
  auto store = [&](uint32_t i) {
    auto& s = add(Engine::Sync, ins(Opcode::dma_copy, {hbm_tile(x.bytes, i), sb(98304 + (i % 2) * 2048, F, DType::float32)}));
    s.waits.push_back({kEvict, i + 1});
  };
  for (uint32_t i = 0; i < iters; ++i) {
    const int64_t slot = (i % 4) * 8192;
    auto& ld = add(Engine::Sync, ins(Opcode::dma_copy, {sb(slot, F), hbm_tile(0, i)}));
    ld.params.dma_queue = uint16_t(i % 4);
    ld.updates.push_back({kLoaded, 1});
    if (i >= 2) store(i - 2);
    // Vector: scale, three adds, a max, a copy, a memset.
    auto& v0 = add(Engine::Vector, ins(Opcode::tensor_scalar, {sb(slot + 1024, F), sb(slot, F)}));
    v0.params.op0 = isa::AluOp::multiply;
    v0.params.imm0 = 0.5f;
    v0.waits.push_back({kLoaded, i + 1});
    for (int k = 0; k < 3; ++k) {
      auto& v = add(Engine::Vector, ins(Opcode::tensor_tensor, {sb(slot + 2048 + 1024 * k, F), sb(slot, F), sb(slot + 1024, F)}));
      v.params.op0 = isa::AluOp::add;
    }
    auto& vm = add(Engine::Vector, ins(Opcode::tensor_tensor, {sb(slot + 5120, F), sb(slot + 2048, F), sb(slot + 3072, F)}));
    vm.params.op0 = isa::AluOp::maximum;
    add(Engine::Vector, ins(Opcode::tensor_copy, {sb(slot + 6144, F), sb(slot + 4096, F)}));
    auto& vz = add(Engine::Vector, ins(Opcode::memset, {sb(65536 + (i % 4) * 1024, F)}));
    vz.updates.push_back({kVec, 1});
    if (i >= 1) evict(i - 1);
    // Scalar: exp, two activations, a copy.
    for (int k = 0; k < 4; ++k) {
      auto& a = add(Engine::Scalar, ins(k == 3 ? Opcode::tensor_copy : Opcode::activation,
                                        {sb(81920 + (i % 2) * 4096 + 1024 * k, F), sb(slot + 5120, F)}));
      if (k < 3) a.params.func = isa::ActFunc::exp;
      if (k == 0) a.waits.push_back({kVec, i + 1});
      if (k == 3) a.updates.push_back({kAct, 1});
    }
    // Tensor: load the stationary [128, 128], four multiplies of [128, 512] into one PSUM bank.
    auto& ls = add(Engine::Tensor, ins(Opcode::load_stationary, {sb(81920 + (i % 2) * 4096, 128)}));
    ls.waits.push_back({kAct, i + 1});
    if (i >= 8) ls.waits.push_back({kEvict, i - 7});  // the PSUM bank is free again
    for (int k = 0; k < 4; ++k) {
      auto& mm = add(Engine::Tensor, ins(Opcode::multiply_moving, {tile(isa::Memory::PSUM, DType::float32, 128, (i % 8) * 2048, F),
                                                                 sb(81920 + (i % 2) * 4096 + 1024 * k, F)}));
      mm.params.accumulate = k > 0;
      if (k == 3) mm.updates.push_back({kMm, 1});
    }
    auto& g = add(Engine::GpSimd, ins(Opcode::memset, {sb(180000 - 4096, 64)}));
    g.params.imm0 = 1.0f;
  }
  evict(iters - 1);
  for (uint32_t i = iters >= 2 ? iters - 2 : 0; i < iters; ++i) store(i);
  return p;
}
}  // namespace

int main(int argc, char** argv) {
  const uint32_t iters = argc > 1 ? uint32_t(std::strtoul(argv[1], nullptr, 10)) : 50000;
  const std::string target = argc > 2 ? argv[2] : "trn2";
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  const isa::Program p = build(iters, target);
  const size_t n = p.num_instructions();
  sim::Options o;
  o.timing_only = true;
  o.parallel = !(argc > 4 && std::string(argv[4]) == "serial");
  // Wall and CPU time (the CPU time is the fairer figure on a loaded machine).
  auto cpu_now = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  };
  double best = 1e300, best_cpu = 1e300;
  sim::Result r;
  for (int k = 0; k < std::max(1, repeats); ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_now();
    r = sim::simulate(p, std::vector<sim::HostArray>{}, o);
    best_cpu = std::min(best_cpu, cpu_now() - c0);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("timing-only benchmark: %zu instructions (%llu DMA transfers) on %s\n", n,
              (unsigned long long)r.dma_transfers, target.c_str());
  std::printf("  simulated time %.3f ms; wall %.3f s, CPU %.3f s (best of %d)\n", r.total_ns / 1e6, best, best_cpu,
              std::max(1, repeats));
  std::printf("  %.2f M simulated instructions per second (wall), %.2f M per CPU second\n", double(n) / best / 1e6,
              double(n) / best_cpu / 1e6);
  return 0;
}
