// compile_bench.cpp - times the front end (frontend::compile_to_ir) on a kernel file, and optionally the
// back end (ir::lower). A benchmark, not a test: bench/compile_1m.py drives it.
//   nki-bench-compile KERNEL.py [--lower] [--repeat N] [--target trn2] [--arg NAME=VALUE ...]
//                     [--input DTYPE:D0,D1,... ...]   (a tensor parameter, e.g. --input float32:128,131072)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "frontend/compile.h"
#include "ir/lower.h"
#include "isa/diagnostic.h"
#include "isa/dtype.h"

using namespace nkisim;

// Process CPU time (user + system), which a loaded machine disturbs less than wall time.
static double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: nki-bench-compile KERNEL.py [--lower] [--repeat N] [--target T] [--arg NAME=VALUE ...] "
                 "[--input DTYPE:D0,D1,... ...]\n");
    return 2;
  }
  frontend::CompileOptions opts;
  std::string path = argv[1];
  bool lower = false;
  int repeat = 1;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--lower") {
      lower = true;
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--target" && i + 1 < argc) {
      opts.target = argv[++i];
    } else if (a == "--arg" && i + 1 < argc) {
      std::string kv = argv[++i];
      size_t eq = kv.find('=');
      if (eq == std::string::npos) return 2;
      opts.args.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
    } else if (a == "--input" && i + 1 < argc) {
      std::string spec = argv[++i];
      size_t colon = spec.find(':');
      std::optional<isa::DType> dt = isa::parse_dtype(spec.substr(0, colon));
      if (colon == std::string::npos || !dt) {
        std::fprintf(stderr, "nki-bench-compile: --input expects DTYPE:D0,D1,..., got '%s'\n", spec.c_str());
        return 2;
      }
      frontend::TensorArgSpec t{*dt, {}};
      for (size_t at = colon + 1; at < spec.size();) {
        size_t comma = spec.find(',', at);
        if (comma == std::string::npos) comma = spec.size();
        t.shape.push_back(std::atoll(spec.substr(at, comma - at).c_str()));
        at = comma + 1;
      }
      opts.inputs.push_back(std::move(t));
    } else {
      std::fprintf(stderr, "nki-bench-compile: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  try {
    double best = 1e30, best_cpu = 1e30, best_lower = 1e30, best_lower_cpu = 1e30;
    size_t ops = 0;
    for (int r = 0; r < repeat; ++r) {
      double c0 = cpu_seconds();
      auto t0 = std::chrono::steady_clock::now();
      ir::Kernel k = frontend::compile_to_ir(path, opts);
      auto t1 = std::chrono::steady_clock::now();
      best_cpu = std::min(best_cpu, cpu_seconds() - c0);
      best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
      ops = k.ops.size();
      if (lower) {
        auto target = isa::find_target(opts.target);
        double c2 = cpu_seconds();
        auto t2 = std::chrono::steady_clock::now();
        isa::Program p = ir::lower(k, *target);
        auto t3 = std::chrono::steady_clock::now();
        best_lower_cpu = std::min(best_lower_cpu, cpu_seconds() - c2);
        best_lower = std::min(best_lower, std::chrono::duration<double>(t3 - t2).count());
      }
    }
    std::printf("instructions: %zu\ncompile_to_ir: %.4f s (cpu %.4f s)\n", ops, best, best_cpu);
    if (lower) std::printf("lower: %.4f s (cpu %.4f s)\n", best_lower, best_lower_cpu);
  } catch (const Error& e) {
    std::fputs(format_diagnostic(e, read_source_line).c_str(), stderr);
    return 1;
  }
  return 0;
}
