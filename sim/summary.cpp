// summary.cpp - the CLI's run summary (format documented in docs/cli.md).
#include "sim/summary.h"

#include <cstdio>

namespace nkisim::sim {

std::string format_summary(const isa::Program& p, const Result& r, const std::vector<std::string>& files) {
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s on %s: %.3f us (%llu cycles), %llu instructions\n", p.kernel_name.c_str(),
                r.target.c_str(), r.total_ns / 1000.0, (unsigned long long)r.total_cycles,
                (unsigned long long)r.instructions);
  s += buf;
  if (r.mode == "functional") {
    s += "  functional run: numerics only, no timing\n";
  } else {
    std::snprintf(buf, sizeof buf, "  %sDMA %llu transfers, %.0f bytes; MFU %.2f%%, MBU %.2f%%\n",
                  r.mode == "timing-only" ? "timing only (no outputs); " : "", (unsigned long long)r.dma_transfers,
                  r.dma_bytes, r.mfu_estimated_percent, r.mbu_estimated_percent);
    s += buf;
  }
  s += "  engine   busy(us)  busy%  instructions\n";
  for (const char* e : {"tensor", "vector", "scalar", "gpsimd", "sync", "dma"}) {
    auto it = r.engines.find(e);
    EngineStats st = it == r.engines.end() ? EngineStats{} : it->second;
    double pct = r.total_ns > 0 ? 100.0 * st.busy_ns / r.total_ns : 0.0;
    std::snprintf(buf, sizeof buf, "  %-7s %9.3f %6.1f  %12llu\n", e, st.busy_ns / 1000.0, pct,
                  (unsigned long long)st.instructions);
    s += buf;
  }
  for (auto& f : files) s += "  wrote " + f + "\n";
  return s;
}

}  // namespace nkisim::sim
