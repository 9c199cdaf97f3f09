// fuzz_run.cpp - libFuzzer target: a binary program (one or two cores) that decodes must also RUN, timed and
// functional, on small inputs synthesised from its input tensors, or fail with nkisim::Error - never crash,
// hang, leak or throw anything else. The budgets are tight (64 MiB of HBM, 1000 taken branches per engine,
// 20M element operations) so that every input ends quickly; a program over them is refused with an Error.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>

#include "isa/binary.h"
#include "isa/target.h"
#include "sim/simulate.h"

namespace {
using namespace nkisim;

constexpr uint64_t kMaxInputBytes = 1 << 20;  // all inputs together

// One HostArray per Input tensor in param_index order, filled with small finite values (a byte pattern that
// is a small number in every float dtype and a small integer otherwise); false when they would be too large.
bool synthesise_inputs(const isa::Program& p, std::vector<sim::HostArray>& inputs) {
  std::vector<const isa::HbmTensor*> in;
  for (const isa::HbmTensor& t : p.hbm_tensors)
    if (t.kind == isa::HbmTensor::Kind::Input) in.push_back(&t);
  std::stable_sort(in.begin(), in.end(), [](auto* a, auto* b) { return a->param_index < b->param_index; });
  uint64_t total = 0;
  for (const isa::HbmTensor* t : in) {
    total += t->bytes;
    if (t->bytes > kMaxInputBytes || total > kMaxInputBytes) return false;
    sim::HostArray a;
    a.dtype = t->dtype;
    a.shape = t->shape;
    a.data.resize(t->bytes);
    for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = (i % 2) ? 0x3c : uint8_t(i * 7);
    inputs.push_back(std::move(a));
  }
  return true;
}

void run(std::span<const isa::Program> cores, std::span<const sim::HostArray> inputs, const isa::TargetDesc& t,
         bool functional) {
  sim::Options o;
  o.target = t;
  o.functional = functional;
  o.parallel = false;
  o.max_loop_iterations = 1000;
  o.max_run_elements = 20000000;
  std::ostringstream sink;  // device_print output
  o.print_sink = &sink;
  try {
    if (cores.size() == 1) (void)sim::simulate(cores[0], inputs, o);
    else (void)sim::simulate(cores, inputs, o);
  } catch (const Error&) {
    // a run-time error (deadlock, bounds, budget): the expected outcome for most programs
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<isa::Program> cores;
  try {
    cores = isa::decode_programs(std::span<const uint8_t>(data, size), "fuzz.nkibin");
  } catch (const Error&) {
    return 0;
  }
  try {
    std::optional<isa::TargetDesc> t = isa::find_target(cores[0].target);
    if (!t) return 0;
    isa::set_target_param(*t, "hbm_capacity_bytes", double(64 << 20));
    try {
      for (const isa::Program& p : cores) isa::check_program_fits(p, *t, "fuzz.nkibin");
    } catch (const Error&) {
      return 0;
    }
    if (int(cores.size()) > int(t->max_lnc)) return 0;
    std::vector<sim::HostArray> inputs;
    if (!synthesise_inputs(cores[0], inputs)) return 0;
    run(cores, inputs, *t, false);
    run(cores, inputs, *t, true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "escaped exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
