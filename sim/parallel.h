// parallel.h - a tiny fork-join helper for executors whose work splits into independent blocks
// (e.g. column blocks of a Tensor Engine multiply). Results never depend on the thread count: callers
// give each block a disjoint part of the output.
#pragma once
#include <cstddef>
#include <functional>

namespace nkisim::sim {

// Threads parallel_for may use (including the caller): min(hardware threads, 4), or the value of the
// environment variable NKISIM_THREADS (1 = everything on the calling thread). Fixed at first use.
unsigned parallel_threads();

// Calls body(i) for i in [0, n), spread over parallel_threads() threads; returns when all calls are done.
// The calling thread always takes part (it claims blocks from a shared counter), so a helper that is slow
// to wake on a loaded machine costs nothing but its unclaimed share. body must not throw.
void parallel_for(size_t n, const std::function<void(size_t)>& body);

}  // namespace nkisim::sim
