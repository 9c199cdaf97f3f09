// fuzz_kernel.cpp - libFuzzer target: the front end and back end on arbitrary kernel source. Any input must
// compile (frontend::compile: parse, evaluate, lower) or fail with nkisim::Error, never crash, hang or
// throw anything else. The kernel is bound to two float32 [128, 512] inputs; the evaluation limits are
// small so that loops in the fuzzed source end quickly (a located "limit exceeded" error).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "frontend/compile.h"
#include "isa/diagnostic.h"
#include "isa/target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nkisim;
  static const std::string path = "/tmp/nkisim_fuzz_kernel_" + std::to_string(getpid()) + ".py";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  frontend::CompileOptions opts;
  opts.inputs = {{isa::DType::float32, {128, 512}}, {isa::DType::float32, {128, 512}}};
  opts.max_steps = 20'000;
  opts.max_instructions = 2'000;
  opts.max_recursion = 50;
  opts.lnc = 0;
  static const isa::TargetDesc target = *isa::find_target("trn2");
  try {
    (void)frontend::compile(path, opts, target);
  } catch (const Error&) {
    return 0;  // a located compile error: the expected outcome for most inputs
  } catch (const std::exception& e) {
    std::fprintf(stderr, "escaped exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
