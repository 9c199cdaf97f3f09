// verify_sendrecv.cpp - rules of sendrecv (executor: sim/exec_sendrecv.cpp): src and dst of one dtype and shape, and
// dma_engine.gpsimd_dma's bytes per partition (nki-isa.md §3.6). Generation availability is shared (isa/verify.cpp);
// its semaphore is the program's (check_sequencer) and whether the peer's src fits dst is known when the peer's
// matching sendrecv arrives.
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

void verify_sendrecv(const Check& c) {
  if (c.dtype(0) != c.dtype(1))
    c.fail("src and dst must have the same dtype, got " + dt(c.dtype(1)) + " and " + dt(c.dtype(0)));
  c.same_shape(1, 0);
  if (!c.pr.gpsimd_dma) return;
  const uint64_t es = dtype_size(c.dtype(1)), bytes = c.free(1) * es;
  const uint64_t limit = es >= 4 ? 1024 : es == 2 ? 512 : 256;  // per partition, by dtype width
  if (bytes > limit)
    c.fail("dma_engine.gpsimd_dma moves at most " + std::to_string(limit) + " bytes per partition for " +
               std::to_string(es * 8) + "-bit dtypes, src has " + std::to_string(bytes),
           1);
}

}  // namespace nkisim::isa::rules
