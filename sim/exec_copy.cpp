// exec_copy.cpp - copies: copy_elements (shared with the DMA executors, sim/exec_dma.cpp) and tensor_copy.
#include <cstring>
#include <sstream>

#include "sim/exec.h"
#include "sim/parallel.h"

namespace nkisim::sim {

void copy_elements(ExecContext& ctx, const View& dst, const View& src) {
  if (dst.empty()) return;
  const bool same = dst.dtype == src.dtype;
  const size_t n = dst.free_elems;
  if (dst.partitions == src.partitions && n == src.free_elems && !may_overlap(dst, src)) {
    if (same && dst.contiguous_rows() && src.contiguous_rows()) {
      // Short rows far apart (a [128, 64] fp32 tile of a wide HBM tensor: 256 bytes per row, each row on
      // its own page) defeat the hardware prefetchers, so each row would wait for memory: fetch the rows
      // kAhead ahead of the copy (case (d) of bench/run.py).
      const size_t bytes = n * dst.esize;
      constexpr uint32_t kAhead = 6;
      auto rows = [&](uint32_t r0, uint32_t r1) {
        if (bytes <= 1024 && r1 - r0 > kAhead)
          for (uint32_t i = r0; i < r0 + kAhead; ++i)
            for (size_t b = 0; b < bytes; b += 64)
              __builtin_prefetch(src.row(i) + b), __builtin_prefetch(dst.row(i) + b, 1);
        for (uint32_t i = r0; i < r1; ++i) {
          if (bytes <= 1024 && i + kAhead < r1)
            for (size_t b = 0; b < bytes; b += 64)
              __builtin_prefetch(src.row(i + kAhead) + b), __builtin_prefetch(dst.row(i + kAhead) + b, 1);
          std::memcpy(dst.row(i), src.row(i), bytes);
        }
      };
      // A copy of 128 KiB or more is split by rows over the parallel_for threads when no product holds them
      // (sim/gemm.cpp). Case (a) of bench/run.py (the PSUM -> SBUF copy and the store of each output tile, while
      // the helper has no product) ~1% faster, (b) ~3% (docs/dev/performance-log.md, "Session 11, matrix
      // product"); an earlier split of every large copy over two threads had measured no gain on (a) and (b).
      const uint32_t P = dst.partitions;
      if (bytes * P >= (size_t(128) << 10) && P >= 8 && !ctx.gemm_running) {
        const size_t parts = parallel_threads();
        parallel_for(parts, [&](size_t h) { rows(uint32_t(h * P / parts), uint32_t((h + 1) * P / parts)); });
      } else {
        rows(0, P);
      }
    } else if (same) {
      uint8_t* buf = ctx.bytes(0, n * dst.esize);
      for (uint32_t i = 0; i < dst.partitions; ++i) {
        gather_raw(src, i, buf);
        scatter_raw(dst, i, buf);
      }
    } else {
      float* buf = ctx.f32(0, n);
      for (uint32_t i = 0; i < dst.partitions; ++i) {
        gather_f32(src, i, buf);
        scatter_f32(dst, i, buf);
      }
    }
    return;
  }
  // Different shapes or overlapping operands: stage the whole source in element order, then write it.
  const size_t total = dst.total_elems();
  if (same) {
    uint8_t* buf = ctx.bytes(0, total * dst.esize);
    for (uint32_t i = 0; i < src.partitions; ++i) gather_raw(src, i, buf + i * src.free_elems * src.esize);
    for (uint32_t i = 0; i < dst.partitions; ++i) scatter_raw(dst, i, buf + i * n * dst.esize);
  } else {
    float* buf = ctx.f32(0, total);
    for (uint32_t i = 0; i < src.partitions; ++i) gather_f32(src, i, buf + i * src.free_elems);
    for (uint32_t i = 0; i < dst.partitions; ++i) scatter_f32(dst, i, buf + i * n);
  }
}

// dst <- src on a compute engine: partition i of src goes to partition i of dst (same shape).
void exec_tensor_copy(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0);
  View src = ctx.read(ins, 1);
  copy_elements(ctx, dst, src);
}

}  // namespace nkisim::sim
