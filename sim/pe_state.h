// pe_state.h - the Tensor Engine's architectural state: the stationary matrix loaded into the PE array.
#pragma once
#include <cstdint>
#include <vector>

#include "isa/dtype.h"

namespace nkisim::sim {

// What load_stationary (and nc_transpose_pe, which loads its data the same way) leaves in the PE array
// for the following multiply_moving instructions (machine.md §4, nki-isa.md §3.1).
// Contract: when `loaded`, the array holds `rows` x `cols` weights, row r = contraction index (a partition
// of the stationary, or in double-row mode partition r/2, half r%2), column m = output partition.
// `value` holds each weight as fp32 (exact: every matmul input dtype is a subset of fp32), `bits` its raw
// element bits (for the bit-exact transpose mode), both row-major [rows][cols].
struct PeState {
  bool loaded = false;
  isa::DType dtype = isa::DType::bfloat16;
  bool double_row = false;
  bool mx = false;  // loaded by load_stationary_mx: `value` holds the dequantized [4K, M] weights
  uint32_t rows = 0;  // contraction length K (2K in double-row mode)
  uint32_t cols = 0;  // M: output partitions
  std::vector<float> value;
  std::vector<uint32_t> bits;

  // Shapes the array for a rows x cols stationary (storage is reused across loads).
  void reset(isa::DType t, uint32_t r, uint32_t c, bool dbl) {
    loaded = true;
    dtype = t;
    double_row = dbl;
    mx = false;
    rows = r;
    cols = c;
    value.resize(size_t(r) * c);
    bits.resize(size_t(r) * c);
  }
};

}  // namespace nkisim::sim
