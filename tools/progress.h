// progress.h - the command line's progress line: `nki-sim: simulating 41% (1.2M instructions, 3.1 s)` on stderr,
// updated in place with \r after the run has taken 2 s (NKISIM_PROGRESS_DELAY=SECONDS changes that), only when
// stderr is a terminal (never in files or pipes), cleared when the run ends.
#pragma once
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace nkisim::cli {

class Progress {
 public:
  Progress() : on_(isatty(2) == 1), start_(Clock::now()) {
    if (const char* d = std::getenv("NKISIM_PROGRESS_DELAY")) delay_ = std::atof(d);
  }
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The callback for sim::Options::progress (empty when stderr is not a terminal).
  std::function<void(uint64_t, uint64_t)> callback() {
    if (!on_) return {};
    return [this](uint64_t issued, uint64_t total) { update(issued, total); };
  }
  // Erases the line (at the end of the run, before anything else is printed).
  void clear() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  void update(uint64_t issued, uint64_t total) {
    const double t = std::chrono::duration<double>(Clock::now() - start_).count();
    if (t < delay_ || t - last_ < 0.2) return;
    last_ = t;
    const double pct = total ? std::min(99.0, 100.0 * double(issued) / double(total)) : 0.0;
    char count[32];
    if (issued >= 1000000)
      std::snprintf(count, sizeof count, "%.1fM", double(issued) / 1e6);
    else if (issued >= 1000)
      std::snprintf(count, sizeof count, "%.1fk", double(issued) / 1e3);
    else
      std::snprintf(count, sizeof count, "%llu", static_cast<unsigned long long>(issued));
    std::fprintf(stderr, "\r\033[Knki-sim: simulating %.0f%% (%s instructions, %.1f s)", pct, count, t);
    std::fflush(stderr);
    shown_ = true;
  }
  bool on_, shown_ = false;
  double delay_ = 2.0, last_ = -1;
  Clock::time_point start_;
};

}  // namespace nkisim::cli
