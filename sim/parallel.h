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

// The same split in two halves, for work the caller overlaps with its own: parallel_start hands body(i), i in
// [0, n), to the helper threads and returns at once; parallel_join then claims the blocks left on the calling
// thread and returns when all are done. At most one started job per thread. parallel_start returns false,
// starting nothing, when there is no helper thread, the helpers are busy (another job) or this thread's
// previous job is not joined: the caller then runs the blocks itself. parallel_join without a job is a no-op.
bool parallel_start(size_t n, std::function<void(size_t)> body);
void parallel_join();

}  // namespace nkisim::sim
