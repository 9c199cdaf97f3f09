// parallel.cpp - the fork-join helper of parallel.h: lazily started helper threads, blocks claimed from an
// atomic counter by the caller and the helpers alike.
#include "sim/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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
      published_.store(~uint64_t(0), std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
  }
  unsigned threads() const { return threads_; }

  void run(size_t n, const std::function<void(size_t)>& body) {
    if (!start(n, &body)) {  // a nested or concurrent call (another simulation on another thread): run it inline
      for (size_t i = 0; i < n; ++i) body(i);
      return;
    }
    join();
  }
  // Publishes a job to the helpers and returns at once (false, publishing nothing, when a job is running).
  // The caller must join() it; `body` must stay alive until then.
  bool start(size_t n, const std::function<void(size_t)>* body) {
    std::unique_lock<std::mutex> l(mu_);
    if (busy_) return false;
    busy_ = true;
    job_ = body;
    n_ = n;
    next_.store(0, std::memory_order_relaxed);
    ++gen_;
    published_.store(gen_, std::memory_order_release);  // spinning helpers see this without the futex
    const bool wake = sleepers_ > 0;
    l.unlock();
    if (wake) wake_.notify_all();
    return true;
  }
  // The caller claims the blocks left, then waits for the helpers' last ones.
  void join() {
    work(*job_, n_);
    std::unique_lock<std::mutex> l(mu_);
    job_ = nullptr;  // helpers that have not joined yet stay out
    l.unlock();
    // Joined helpers are finishing their last block (all blocks are claimed): wait for them by spinning,
    // which costs less than a futex round trip for blocks of a few microseconds.
    for (unsigned spins = 0; active_.load(std::memory_order_acquire) != 0; ++spins)
      if (spins > 4096) std::this_thread::yield();
    l.lock();
    busy_ = false;
  }

 private:
  void work(const std::function<void(size_t)>& body, size_t n) {
    for (size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n;) body(i);
  }
  // After a job a helper polls for the next one for a short while before it sleeps: executors call
  // parallel_for once per instruction, and instructions tens of microseconds apart would otherwise pay a
  // futex wake-up (and a context switch) each.
  bool spin_for_next(uint64_t seen) const {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
    for (unsigned i = 1;; ++i) {
      if (published_.load(std::memory_order_acquire) != seen) return true;
      if ((i & 63) == 0 && std::chrono::steady_clock::now() > until) return false;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
  void helper() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      if (!(stop_ || (job_ && gen_ != seen))) {
        l.unlock();
        spin_for_next(seen);
        l.lock();
        ++sleepers_;
        wake_.wait(l, [&] { return stop_ || (job_ && gen_ != seen); });
        --sleepers_;
      }
      if (stop_) return;
      seen = gen_;
      const std::function<void(size_t)>* body = job_;
      const size_t n = n_;
      active_.fetch_add(1, std::memory_order_relaxed);
      l.unlock();
      work(*body, n);
      active_.fetch_sub(1, std::memory_order_release);
      l.lock();
    }
  }

  static constexpr int kSpinMicros = 100;  // host tuning, not a hardware number
  const unsigned threads_;
  std::vector<std::thread> helpers_;
  std::mutex mu_;
  std::condition_variable wake_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t n_ = 0;
  std::atomic<size_t> next_{0};
  std::atomic<uint64_t> published_{0};
  std::atomic<int> active_{0};
  uint64_t gen_ = 0;
  int sleepers_ = 0;
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

// The job parallel_start published from this thread (its body), until parallel_join.
thread_local std::function<void(size_t)> t_started;
thread_local bool t_joinable = false;

}  // namespace

unsigned parallel_threads() { return pool().threads(); }

bool parallel_start(size_t n, std::function<void(size_t)> body) {
  Pool& p = pool();
  if (n == 0 || t_joinable || p.threads() <= 1) return false;
  t_started = std::move(body);
  if (!p.start(n, &t_started)) return false;
  t_joinable = true;
  return true;
}

void parallel_join() {
  if (!t_joinable) return;
  pool().join();
  t_joinable = false;
}

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
