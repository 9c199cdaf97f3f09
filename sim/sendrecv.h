// sendrecv.h - LNC=2 sendrecv (docs/lnc.md): the scheduler reads this core's src when the instruction is
// ready, hands the bytes to the other core, and writes the peer's bytes into dst when the pair is complete.
#pragma once
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "sim/cost.h"
#include "sim/exec.h"

namespace nkisim::sim {
std::vector<uint8_t> sendrecv_read_src(ExecContext& ctx, const isa::Instruction& ins);
void sendrecv_write_dst(ExecContext& ctx, const isa::Instruction& ins, const std::vector<uint8_t>& bytes);
// sendrecv_layout / sendrecv_transfer_ns (the DMA model of the transfer): isa/cost.h, via sim/cost.h.

// The src bytes of the run's sendrecvs on their way between cores, keyed by (receiving core, semaphore,
// sequence number = the instruction's rimm). Both run modes use it (sim/functional.cpp, sim/machine.cpp).
class Mailbox {
 public:
  void send(size_t from, size_t cores, uint16_t sem, int32_t n, const std::vector<uint8_t>& bytes) {
    for (size_t d = 0; d < cores; ++d)
      if (d != from) box_[{d, sem, n}] = bytes;
  }
  std::vector<uint8_t> take(size_t to, uint16_t sem, int32_t n) {  // empty if nothing was sent
    auto it = box_.find({to, sem, n});
    if (it == box_.end()) return {};
    std::vector<uint8_t> b = std::move(it->second);
    box_.erase(it);
    return b;
  }

 private:
  std::map<std::tuple<size_t, uint16_t, int32_t>, std::vector<uint8_t>> box_;
};
}  // namespace nkisim::sim
