// parallel.cpp - the fork-join helper of parallel.h: lazily started helper threads, blocks claimed from an
// atomic counter by the caller and the helpers alike.
#include "sim/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace nkisim::sim {

namespace {

class Pool {
 public:
  explicit Pool(unsigned threads) : threads_(threads) {
    for (unsigned i = 1; i < threads; ++i) helpers_.emplace_back([this] { helper(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
  }
  unsigned threads() const { return threads_; }

  void run(size_t n, const std::function<void(size_t)>& body) {
    std::unique_lock<std::mutex> l(mu_);
    if (busy_) {  // a nested or concurrent call (another simulation on another thread): run it inline
      l.unlock();
      for (size_t i = 0; i < n; ++i) body(i);
      return;
    }
    busy_ = true;
    job_ = &body;
    n_ = n;
    next_.store(0, std::memory_order_relaxed);
    ++gen_;
    l.unlock();
    wake_.notify_all();
    work(body, n);
    l.lock();
    job_ = nullptr;  // helpers that have not joined yet stay out
    idle_.wait(l, [&] { return active_ == 0; });
    busy_ = false;
  }

 private:
  void work(const std::function<void(size_t)>& body, size_t n) {
    for (size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n;) body(i);
  }
  void helper() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      wake_.wait(l, [&] { return stop_ || (job_ && gen_ != seen); });
      if (stop_) return;
      seen = gen_;
      const std::function<void(size_t)>* body = job_;
      const size_t n = n_;
      ++active_;
      l.unlock();
      work(*body, n);
      l.lock();
      if (--active_ == 0) idle_.notify_all();
    }
  }

  const unsigned threads_;
  std::vector<std::thread> helpers_;
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
  uint64_t gen_ = 0;
  int active_ = 0;
  bool busy_ = false, stop_ = false;
};

unsigned threads_from_env() {
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  unsigned n = std::min(hw, 4u);
  if (const char* s = std::getenv("NKISIM_THREADS")) {
    char* end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (end != s && *end == '\0' && v >= 1) n = unsigned(std::min<long>(v, 64));
  }
  return n;
}

Pool& pool() {
  static Pool p(threads_from_env());
  return p;
}

}  // namespace

unsigned parallel_threads() { return pool().threads(); }

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  Pool& p = pool();
  if (n == 1 || p.threads() <= 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  p.run(n, body);
}

}  // namespace nkisim::sim
