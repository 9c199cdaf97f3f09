// exec_tensor.cpp - Tensor Engine instructions (load_stationary, multiply_moving, nc_transpose_pe) and the
// Vector Engine's 32x32 nc_transpose_ve. Static rules: isa/verify_tensor.cpp; here only what depends on the
// stationary the PE array holds and on dst's run-time bytes.
//
// Numerics of a multiply (machine.md §4, nki-isa.md §1.4, §3.1; docs/tensor-engine.md):
// * every input element is converted to fp32 exactly (all PE input dtypes are subsets of fp32);
// * each product is rounded to fp32 and added to the running fp32 sum, in contraction order k = 0..K-1
//   starting from +0.0 (the partial sum entering the top of the systolic array). Products of bf16, fp16,
//   tf32 and fp8 inputs are exact unless they leave fp32's range; fp32 x fp32 products are rounded. The
//   product is never fused with the add, whatever the build flags, so results do not depend on FMA.
// * accumulate=false writes the sum (cast to dst's dtype); accumulate=true reads dst as fp32, adds the
//   sum in fp32 and writes the result back (for a bf16 dst on trn3: upcast, add, round to nearest even).
// * transpose mode (multiply_moving transpose, nc_transpose_pe) on trn2/trn3 moves raw element bits:
//   bit-exact for every value including NaN payloads, infinities and -0.0. On trn1 the flag only changes
//   profiler accounting: the identity matmul runs in fp32 (NaN/inf in a column poisons it, -0.0 -> +0.0).
#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>

#include "sim/exec.h"
#include "sim/gemm.h"

namespace nkisim::sim {
using isa::DType;

namespace {

bool is_fp32_class(DType t) { return t == DType::float32 || t == DType::tfloat32; }

std::string dt(DType t) { return std::string(isa::dtype_name(t)); }

// Loads every partition of `src` into the PE array: row k (or rows 2k, 2k+1 in double-row mode, from the
// two halves of the partition's free elements) = partition k.
void load_pe(ExecContext& ctx, const View& src, bool double_row) {
  const uint32_t K = src.partitions;
  const size_t F = src.free_elems;
  const uint32_t M = uint32_t(double_row ? F / 2 : F);
  PeState& pe = ctx.pe;
  pe.reset(src.dtype, double_row ? 2 * K : K, M, double_row);
  // Element j of partition k goes to (row, column) (k, j), or (2k + j / M, j % M) in double-row mode:
  // flat index k * F + j either way, so each partition is one contiguous run of the row-major arrays.
  if (src.dtype == DType::bfloat16 && src.contiguous_rows()) {  // the common stationary: both arrays in one pass
    for (uint32_t k = 0; k < K; ++k) {
      const uint8_t* row = src.row(k);
      float* value = pe.value.data() + size_t(k) * F;
      uint32_t* bits = pe.bits.data() + size_t(k) * F;
      for (size_t j = 0; j < F; ++j) {  // bf16 -> fp32 is the bits moved up (load_f32's conversion)
        uint16_t h;
        std::memcpy(&h, row + 2 * j, 2);
        bits[j] = h;
        const uint32_t u = uint32_t(h) << 16;
        std::memcpy(value + j, &u, 4);
      }
    }
    return;
  }
  uint8_t* raw = ctx.bytes(0, F * src.esize);
  for (uint32_t k = 0; k < K; ++k) {
    gather_f32(src, k, pe.value.data() + size_t(k) * F);
    gather_raw(src, k, raw);
    uint32_t* bits = pe.bits.data() + size_t(k) * F;
    switch (src.esize) {  // little-endian element bits, zero-extended (isa::load_bits), one switch per row
      case 1:
        for (size_t j = 0; j < F; ++j) bits[j] = raw[j];
        break;
      case 2:
        for (size_t j = 0; j < F; ++j) {
          uint16_t h;
          std::memcpy(&h, raw + 2 * j, 2);
          bits[j] = h;
        }
        break;
      case 4:
        std::memcpy(bits, raw, F * 4);
        break;
      default:
        for (size_t j = 0; j < F; ++j) bits[j] = isa::load_bits(raw + j * src.esize, src.esize);
    }
  }
}

// Writes the fp32 result rows acc[P x N] to dst (P partitions), adding onto dst's contents if `accumulate`.
void write_result(ExecContext& ctx, const View& dst, float* acc, bool accumulate) {
  const size_t N = dst.free_elems;
  float* old = ctx.f32(3, N);
  for (uint32_t m = 0; m < dst.partitions; ++m) {
    float* row = acc + m * N;
    if (accumulate) {
      gather_f32(dst, m, old);
      for (size_t j = 0; j < N; ++j) row[j] = old[j] + row[j];
    }
    scatter_f32(dst, m, row);
  }
}

}  // namespace

// Caches the stationary [K <= 128 partitions, M <= 128 free] (double_row: [K, 2 x M], FP8, trn2+) in the
// PE array for the following multiply_moving instructions.
void exec_load_stationary(ExecContext& ctx, const isa::Instruction& ins) {
  View s = ctx.read(ins, 0);
  load_pe(ctx, s, ins.params.double_row);
}

// dst[M, N] (+)= stationary.T @ moving[K, N] with the stationary the PE array holds.
void exec_multiply_moving(ExecContext& ctx, const isa::Instruction& ins) {
  const PeState& pe = ctx.pe;
  // The stationary packed for the product while the products started before it still run (pe_gemm_start
  // first waits for the older of two): the packing is off the path between them.
  std::optional<PreparedWeights> prepared;
  if (ctx.gemm_running && pe.loaded && !ins.params.double_row && !ins.params.transpose)
    prepared.emplace(pe.value.data(), pe.rows, pe.cols);
  View dst = ctx.write_queued_product(ins, 0), mv = ctx.read(ins, 1);
  const isa::TargetDesc& t = ctx.target;
  const int ncv = t.nc_version;
  const bool dbl = ins.params.double_row, transpose = ins.params.transpose;
  std::ostringstream os;
  if (!pe.loaded)
    ctx.fail(ins,
             "multiply_moving: the PE array holds no stationary (a load_stationary must come first on the "
             "Tensor engine)");
  if (dbl != pe.double_row)
    ctx.fail(ins, std::string("multiply_moving: double_row is ") + (dbl ? "set" : "not set") +
                      " but the stationary was loaded " + (pe.double_row ? "in" : "without") + " double-row mode");
  if (is_fp32_class(mv.dtype) != is_fp32_class(pe.dtype))
    ctx.fail(ins, "multiply_moving: float32/tfloat32 inputs must pair with float32/tfloat32, but the stationary is " +
                      dt(pe.dtype) + " and moving is " + dt(mv.dtype));
  if ((mv.dtype == DType::float8_e4m3fn && pe.dtype == DType::float8_e4m3) ||
      (mv.dtype == DType::float8_e4m3 && pe.dtype == DType::float8_e4m3fn))
    ctx.fail(ins, "multiply_moving: float8_e4m3fn cannot be mixed with the legacy float8_e4m3");
  const uint32_t K = mv.partitions, rows = dbl ? 2 * K : K, M = pe.cols;
  const uint32_t N = uint32_t(dbl ? mv.free_elems / 2 : mv.free_elems);
  if (rows != pe.rows) {
    os << "multiply_moving: moving has " << K << " partitions but the loaded stationary has "
       << (dbl ? pe.rows / 2 : pe.rows) << " (the contraction sizes K must match)";
    ctx.fail(ins, os.str());
  }
  if (dst.partitions != M || dst.free_elems != N) {
    os << "multiply_moving: dst has " << dst.partitions << " partitions x " << dst.free_elems
       << " elements but stationary.T @ moving is " << M << " x " << N;
    ctx.fail(ins, os.str());
  }
  if (transpose && dst.dtype != pe.dtype && dst.dtype != DType::float32)
    ctx.fail(ins, "multiply_moving: in transpose mode dst must have the stationary's dtype " + dt(pe.dtype) +
                      " or float32, got " + dt(dst.dtype));
  // One PSUM bank on NC-v2/v3 (the size limit is isa/verify_tensor.cpp's); a dynamic offset moves dst's bytes.
  const uint64_t bank = uint64_t(t.psum_partition_bytes / std::max(1.0, t.psum_banks));
  if (ncv < 4) {
    if (uint64_t(dst.lo) / bank != uint64_t(dst.hi - 1) / bank) {
      os << "multiply_moving: dst bytes [" << dst.lo << ", " << dst.hi << ") cross a PSUM bank boundary (banks are "
         << bank << " bytes)";
      ctx.fail(ins, os.str());
    }
  }

  const bool accumulate = ins.params.accumulate;
  const bool dense = !dbl && !transpose && mv.contiguous_rows() && !may_overlap(dst, mv);
  float* const direct = dense ? direct_f32(dst, 0) : nullptr;
  const bool queued = direct && dst.pstep % 4 == 0 && dst.mem == isa::Memory::PSUM && mv.mem == isa::Memory::SBUF &&
                      !ctx.checker;
  if (!queued) ctx.settle_gemm();  // dst was resolved without waiting for the running products
  if (dense) {
    // Dense moving rows: pe_gemm converts them panel by panel on its threads and, for a dense fp32 dst,
    // accumulates straight into it (the common PSUM case), skipping both staging copies.
    GemmMoving moving;
    moving.base = mv.row(0);
    moving.row_step = mv.pstep;
    moving.dtype = mv.dtype;
    GemmOut out;
    if (direct && dst.pstep % 4 == 0) {
      out.base = direct;
      out.row_step = dst.pstep / 4;
      out.accumulate = accumulate;
      if (queued) {
        // Left running on the helper threads while the next instructions execute (ExecContext::gemm_running),
        // behind the products still running (pe_gemm_start orders it after one it overlaps); both operands in
        // this core's own memories, which only this context's instructions touch.
        pe_gemm_start(pe.value.data(), rows, M, N, moving, out);
        ctx.gemm_running = true;
        ctx.gemm_out[1] = ctx.gemm_out[0];
        ctx.gemm_moving[1] = ctx.gemm_moving[0];
        ctx.gemm_out[0] = dst;
        ctx.gemm_moving[0] = mv;
        return;
      }
      pe_gemm(pe.value.data(), rows, M, N, moving, out);
      return;
    }
    out.base = ctx.f32(1, size_t(M) * N);
    out.row_step = N;
    pe_gemm(pe.value.data(), rows, M, N, moving, out);
    write_result(ctx, dst, out.base, accumulate);
    return;
  }

  // Moving rows in contraction order.
  float* v = ctx.f32(0, size_t(rows) * N);
  if (dbl) {
    float* part = ctx.f32(2, 2 * size_t(N));
    for (uint32_t k = 0; k < K; ++k) {
      gather_f32(mv, k, part);
      std::copy(part, part + 2 * N, v + size_t(2 * k) * N);  // halves are rows 2k and 2k+1
    }
  } else {
    for (uint32_t k = 0; k < K; ++k) gather_f32(mv, k, v + size_t(k) * N);
  }

  if (transpose && ncv >= 3) {
    // Bit-exact transpose mode: every column of moving selects at most one stationary row.
    uint32_t* sel = ctx.u32(0, N);
    for (uint32_t n = 0; n < N; ++n) {
      sel[n] = UINT32_MAX;
      for (uint32_t k = 0; k < rows; ++k) {
        const float x = v[size_t(k) * N + n];
        if (x == 0.0f) continue;
        if (x != 1.0f || sel[n] != UINT32_MAX) {
          os << "multiply_moving: transpose mode needs a moving operand of zeros and ones with at most one 1 per "
                "column (an identity); column "
             << n << " has ";
          if (x != 1.0f)
            os << "the value " << x;
          else
            os << "a second 1";
          os << " at row " << k;
          ctx.fail(ins, os.str());
        }
        sel[n] = k;
      }
    }
    // The stationary's raw bits, or (an fp32 dst of a narrower stationary) its values, converted exactly.
    const bool widen = dst.dtype != pe.dtype;
    uint8_t* row = ctx.bytes(1, size_t(N) * dst.esize);
    for (uint32_t m = 0; m < M; ++m) {
      for (uint32_t n = 0; n < N; ++n) {
        const size_t at = size_t(sel[n]) * M + m;
        isa::store_bits(row + size_t(n) * dst.esize, dst.esize,
                        sel[n] == UINT32_MAX ? 0 : widen ? std::bit_cast<uint32_t>(pe.value[at]) : pe.bits[at]);
      }
      scatter_raw(dst, m, row);
    }
    return;
  }

  float* acc = ctx.f32(1, size_t(M) * N);
  pe_gemm(pe.value.data(), v, rows, M, N, acc);
  write_result(ctx, dst, acc, accumulate);
}

// dst[F, P] = data[P, F].T through the PE array: data becomes the stationary, the identity streams as moving.
void exec_nc_transpose_pe(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const uint32_t P = data.partitions;
  const uint32_t F = uint32_t(data.free_elems);
  load_pe(ctx, data, false);
  const PeState& pe = ctx.pe;
  if (ctx.target.nc_version >= 3) {  // bit-exact transpose mode
    uint8_t* row = ctx.bytes(1, size_t(P) * dst.esize);
    for (uint32_t f = 0; f < F; ++f) {
      for (uint32_t p = 0; p < P; ++p)
        isa::store_bits(row + size_t(p) * dst.esize, dst.esize, pe.bits[size_t(p) * F + f]);
      scatter_raw(dst, f, row);
    }
    return;
  }
  float* ident = ctx.f32(0, size_t(P) * P);  // NC-v2: an fp32 matmul with the identity
  std::fill(ident, ident + size_t(P) * P, 0.0f);
  for (uint32_t p = 0; p < P; ++p) ident[size_t(p) * P + p] = 1.0f;
  float* acc = ctx.f32(1, size_t(F) * P);
  pe_gemm(pe.value.data(), ident, P, F, P, acc);
  write_result(ctx, dst, acc, false);
}

// dst[F, P] = data[P, F].T on the Vector Engine (P, F <= 32: one 32x32 block), raw element copy.
void exec_nc_transpose_ve(ExecContext& ctx, const isa::Instruction& ins) {
  View dst = ctx.write(ins, 0), data = ctx.read(ins, 1);
  const uint32_t P = data.partitions;
  const uint32_t F = uint32_t(data.free_elems);
  const unsigned es = data.esize;
  uint8_t* all = ctx.bytes(0, size_t(P) * F * es);  // read everything first: dst may overlap data
  for (uint32_t p = 0; p < P; ++p) gather_raw(data, p, all + size_t(p) * F * es);
  uint8_t* row = ctx.bytes(1, size_t(P) * es);
  for (uint32_t f = 0; f < F; ++f) {
    for (uint32_t p = 0; p < P; ++p) std::memcpy(row + size_t(p) * es, all + (size_t(p) * F + f) * es, es);
    scatter_raw(dst, f, row);
  }
}

}  // namespace nkisim::sim
