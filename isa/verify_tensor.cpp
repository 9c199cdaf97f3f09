// verify_tensor.cpp - rules of load_stationary, multiply_moving, nc_transpose_pe and nc_transpose_ve
// (executors: sim/exec_tensor.cpp). What depends on the stationary the PE array holds (its dtype and shape
// against the moving operand) is checked by the executor when the multiply runs.
#include <algorithm>
#include <sstream>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {

void pe_dtype(const Check& c, int slot) {
  const DType t = c.dtype(slot);
  if (pe_input_dtype(t, c.nc())) return;
  if (t == DType::float8_e4m3fn) c.fail(std::string(c.name(slot)) + " dtype float8_e4m3fn needs trn3", slot);
  const char* list = c.nc() >= 4 ? "float8_e4m3, float8_e5m2, float8_e4m3fn, bfloat16, float16, tfloat32 or float32"
                                 : "float8_e4m3, float8_e5m2, bfloat16, float16, tfloat32 or float32";
  c.fail(std::string(c.name(slot)) + " dtype " + dt(t) + " is not a Tensor Engine input dtype (expected " + list + ")",
         slot);
}

// A transpose keeps the dtype; dst is data's transpose [F, P].
void transposed(const Check& c) {
  const uint64_t P = c.parts(1), F = c.free(1);
  if (c.parts(0) != F || c.free(0) != P) {
    std::ostringstream os;
    os << "dst has " << c.parts(0) << " partitions x " << c.free(0) << " elements but the transpose of data is " << F
       << " x " << P;
    c.fail(os.str(), 0);
  }
  if (c.dtype(0) != c.dtype(1))
    c.fail("dst dtype " + dt(c.dtype(0)) + " differs from data dtype " + dt(c.dtype(1)) + " (a transpose keeps the dtype)",
           0);
}

}  // namespace
}  // namespace nkisim::isa::rules

namespace nkisim::isa {
bool pe_input_dtype(DType t, int nc_version) {
  switch (t) {
    case DType::float8_e4m3:
    case DType::float8_e5m2:
    case DType::bfloat16:
    case DType::float16:
    case DType::tfloat32:
    case DType::float32:
      return true;
    case DType::float8_e4m3fn:
      return nc_version >= 4;
    default:
      return false;
  }
}
}  // namespace nkisim::isa

namespace nkisim::isa::rules {

void verify_load_stationary(const Check& c) {
  pe_dtype(c, 0);
  const bool dbl = c.pr.double_row;
  if (c.empty(0)) c.fail("stationary is empty", 0);
  if (dbl) {
    if (c.nc() < 3) c.fail("double_row needs trn2 or later, not " + c.t.name);
    if (!is_fp8(c.dtype(0))) c.fail("double_row needs an fp8 stationary, got " + dt(c.dtype(0)), 0);
    if (c.free(0) % 2) c.fail("double_row needs an even free size, got " + std::to_string(c.free(0)), 0);
  }
  const uint64_t M = dbl ? c.free(0) / 2 : c.free(0);
  if (c.parts(0) > c.t.pe_rows || M > c.t.pe_cols) {
    std::ostringstream os;
    os << "stationary [K=" << c.parts(0) << ", M=" << M << "] does not fit the " << c.t.pe_rows << " x " << c.t.pe_cols
       << " PE array";
    c.fail(os.str(), 0);
  }
}

void verify_multiply_moving(const Check& c) {
  const bool dbl = c.pr.double_row, transpose = c.pr.transpose;
  pe_dtype(c, 1);
  if (dbl && (!is_fp8(c.dtype(1)) || c.free(1) % 2))
    c.fail("double_row needs an fp8 moving with an even free size, got " + dt(c.dtype(1)) + " x " +
               std::to_string(c.free(1)),
           1);
  if (transpose) {
    if (c.pr.accumulate) c.fail("transpose mode cannot accumulate");
    if (dbl) c.fail("transpose mode cannot be combined with double_row");
  } else if (!(c.dtype(0) == DType::float32 || (c.nc() >= 4 && c.dtype(0) == DType::bfloat16))) {
    c.fail("dst must be float32" + std::string(c.nc() >= 4 ? " or bfloat16" : "") + " on " + c.t.name + ", got " +
               dt(c.dtype(0)),
           0);
  }
  // Output size: one 2 KiB PSUM bank of fp32 on NC-v2/v3; 4096 (8192 into bfloat16) on NC-v4 (nki-isa.md §3.1).
  // (Whether dst's bytes cross a bank is the executor's: a dynamic offset moves them.)
  const uint64_t N = dbl ? c.free(1) / 2 : c.free(1);
  const uint64_t bank = uint64_t(c.t.psum_partition_bytes / std::max(1.0, c.t.psum_banks));
  const uint64_t nmax = c.nc() >= 4 ? (c.dtype(0) == DType::bfloat16 ? 8192 : 4096) : bank / 4;
  if (N > nmax) {
    std::ostringstream os;
    os << c.name(1) << " free size N=" << N << " exceeds " << nmax
       << (c.nc() >= 4 ? " on " + c.t.name : std::string(" (gemm_moving_fmax: one PSUM bank of float32)"));
    c.fail(os.str(), 1);
  }
}

void verify_nc_transpose_pe(const Check& c) {
  if (c.empty(1)) c.fail("data is empty", 1);
  if (c.free(1) > c.t.pe_cols) {
    std::ostringstream os;
    os << "data has " << c.free(1) << " elements per partition; the PE array transposes at most " << c.t.pe_cols;
    c.fail(os.str(), 1);
  }
  transposed(c);
}

void verify_nc_transpose_ve(const Check& c) {
  if (c.parts(1) > 32 || c.free(1) > 32) {
    std::ostringstream os;
    os << "data is " << c.parts(1) << " x " << c.free(1) << "; the Vector Engine transposes at most 32 x 32";
    c.fail(os.str(), 1);
  }
  transposed(c);
}

}  // namespace nkisim::isa::rules
