// verify_dma.cpp - rules of dma_copy, dma_transpose, dma_compute (executors: sim/exec_dma.cpp): the DGE rules
// (nki-isa.md §3.5) against the engine that triggers the transfer, element counts, dma_transpose's axes and
// source shape, the shapes of the indirect operands. The offset values and the rows they select are the executor's.
#include <algorithm>
#include <initializer_list>
#include <sstream>

#include "isa/cost.h"
#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
constexpr uint16_t kDgeSwdge = uint16_t(DgeMode::swdge), kDgeHwdge = uint16_t(DgeMode::hwdge),
                   kDgeNone = uint16_t(DgeMode::none);
constexpr uint16_t kIndVector = 1, kIndScalar = 2, kIndRegister = 3;  // 3: scalar_offset from register rs0

// The slot of the `idx` operand: before `base`, the last one in the table row.
int idx_slot(const Check& c) { return c.inf.num_operands - 2; }

void dge(const Check& c) {
  const uint16_t m = c.pr.dge_mode, k = c.pr.ind_kind;
  const Engine e = c.ins.engine;
  if (m > uint16_t(DgeMode::unknown_nki))
    c.fail("dge_mode " + std::to_string(m) + " is not 0 (unknown), 1 (swdge), 2 (hwdge), 3 (none) or 4 (unknown, nki.jit)");
  if (k > 3)
    c.fail("ind " + std::to_string(k) + " is not 0, 1 (vector_offset), 2 (scalar_offset) or 3 (scalar_offset from "
           "register rs0)");
  if (m == kDgeHwdge) {
    if (c.nc() < 3) c.fail("dge_mode=hwdge (hardware DGE) needs trn2 or later, not " + c.t.name);
    if (e != Engine::Sync && e != Engine::Scalar)
      c.fail("dge_mode=hwdge must be triggered from the sync or scalar engine, not " + std::string(engine_name(e)));
  }
  if (m == kDgeSwdge && e != Engine::GpSimd)
    c.fail("dge_mode=swdge (software DGE, the mode of an indirect access) builds descriptors on the gpsimd engine, "
           "not " + std::string(engine_name(e)) + "; a sync or scalar trigger needs dge_mode=hwdge");
  if (k == 1 && (m == kDgeHwdge || m == kDgeNone))  // a scalar offset is allowed in every mode (DGE deep-dive)
    c.fail(std::string("a vector_offset (gather/scatter) needs dge_mode=swdge (or unknown), not ") +
           (m == kDgeHwdge ? "hwdge" : "none"));
  if (c.pr.oob_skip && k == 0)  // only offsets read at run time can fall out of bounds
    c.fail("oob_mode.skip (oob_skip) needs an indirect access pattern (.ap() with scalar_offset or vector_offset: "
           "ind != 0)");
  const bool has_idx = c.has(idx_slot(c));
  if (k == 0 && has_idx) c.fail("operand 'idx' is given but ind=0");
  if (k == kIndRegister && has_idx) c.fail("ind=3 reads its offset from register rs0; operand 'idx' must be absent");
  if (k != 0 && k != kIndRegister && !has_idx) c.fail("ind=" + std::to_string(k) + " needs operand 'idx'");
  if (k != 0 && c.pr.ind_opnds == 0) c.fail("ind=" + std::to_string(k) + " needs ind_opnds");
}

// With indirection (ind != 0): the offsets' operand `idx` (or register rs0) and the operands `moved` that the
// offsets move (the bits of ind_opnds). `rows` = the partition rows the offsets index (dst's for dma_copy and
// dma_compute, src's for dma_transpose, whose [P, C] vector_offset is read column after column: `columns`).
void indirect(const Check& c, uint32_t rows, bool columns, std::initializer_list<int> moved) {
  const uint16_t k = c.pr.ind_kind;
  if (k == 0) return;
  if (k == kIndRegister) {
    const auto nregs = uint32_t(std::max(0.0, c.t.sequencer_registers));
    if (c.pr.rs0 >= nregs)
      c.fail("register rs0=" + std::to_string(c.pr.rs0) + " out of range [0, " + std::to_string(nregs) + ")");
  } else {
    const int s = idx_slot(c);
    const AccessPattern& ia = c.op(s);
    if (!is_integer(ia.dtype))
      c.fail("the offsets in '" + std::string(c.name(s)) + "' must have an integer dtype, got " + dt(ia.dtype), s);
    std::ostringstream os;
    if (columns) {
      if (ia.total_elements() < rows) {
        os << "the vector_offset '" << c.name(s) << "' (" << ia.num_partitions << " partitions x " << ia.free_elements()
           << " elements) holds fewer indices than the " << rows << " rows of 'src'";
        c.fail(os.str(), s);
      }
    } else if (k == kIndScalar) {
      if (ia.total_elements() != 1) {
        os << "a scalar_offset must be one element, '" << c.name(s) << "' has " << ia.total_elements();
        c.fail(os.str(), s);
      }
    } else if (ia.num_partitions != rows || ia.free_elements() < 1) {
      os << "the vector_offset '" << c.name(s) << "' must be a [" << rows << ", 1] tile (one row index per partition), got "
         << ia.num_partitions << " partitions x " << ia.free_elements() << " elements";
      c.fail(os.str(), s);
    }
  }
  for (int s : moved) {
    if (!c.has(s) || !(c.pr.ind_opnds >> s & 1)) continue;
    if (c.mem(s) != Memory::HBM)
      c.fail("operand '" + std::string(c.name(s)) + "' is indirect but not in HBM (indirection applies to the HBM side)",
             s);
    if (k == kIndVector && c.parts(s) != rows)
      c.fail("operand '" + std::string(c.name(s)) + "' has " + std::to_string(c.parts(s)) +
                 " partitions but the vector_offset has " + std::to_string(rows),
             s);
  }
}

// With indirection, row p of a source pairs with row p of dst: the same shape.
void rows_match(const Check& c, int a, int b) {
  if (c.parts(a) == c.parts(b) && c.free(a) == c.free(b)) return;
  std::ostringstream os;
  os << "with an indirect access, operand '" << c.name(b) << "' (" << c.parts(b) << " partitions x " << c.free(b)
     << " elements) must have the shape of '" << c.name(a) << "' (" << c.parts(a) << " partitions x " << c.free(a)
     << " elements)";
  c.fail(os.str(), b);
}

// dma_transpose's indirect form: src [S, F] / [S, A, F] / [S, A, B, F] (tdim0..), dst its transpose [F, A (x B) x S].
void transposed_rows(const Check& c, int n) {
  const uint16_t tdims[4] = {c.pr.tdim0, c.pr.tdim1, c.pr.tdim2, c.pr.tdim3};
  const uint64_t S = c.parts(1), F = tdims[n - 1];
  uint64_t M = 1;  // the middle dims (A, or A x B)
  for (int k = 1; k < n - 1; ++k) M *= tdims[k];
  if (c.parts(0) == F && c.free(0) == M * S && c.free(1) == M * F && c.dtype(0) == c.dtype(1) && tdims[0] == S) return;
  std::ostringstream os;
  os << "'dst' (" << c.parts(0) << " partitions x " << c.free(0) << " elements, " << dtype_name(c.dtype(0))
     << ") must be the transpose of 'src' (" << S << " rows x " << c.free(1) << " elements, " << dtype_name(c.dtype(1))
     << "; tdim0..tdim" << n - 1 << " =";
  for (int k = 0; k < n; ++k) os << (k ? ", " : " ") << tdims[k];
  os << ")";
  c.fail(os.str());
}

// The DGE transpose's source rules (nki-isa.md §3.5): a 2-byte dtype and, with tdim0..tdim{n-1} = src's shape, the
// indirect form's gathered rows (dim 0; `columns`: a [P, C] vector_offset of P x C indices) or the hardware DGE's
// direct-form block shape.
void dge_transpose_src(const Check& c, int n, bool indirect, bool columns) {
  const uint64_t d[4] = {c.pr.tdim0, c.pr.tdim1, c.pr.tdim2, c.pr.tdim3};
  std::ostringstream sh;
  sh << "got src of shape (";
  for (int k = 0; k < n; ++k) sh << (k ? ", " : "") << d[k];
  sh << ")";
  if (dtype_size(c.dtype(1)) != 2) c.fail("the dtype must be 2 bytes (e.g. bfloat16), got " + dt(c.dtype(1)));
  const std::string dn = std::to_string(n) + "D src";
  if (indirect && columns && (d[0] % 16 || d[0] < 16)) {
    const AccessPattern& ia = c.op(idx_slot(c));
    c.fail("an indirect src needs src.shape[0] to be a multiple of 16 (at most the " +
           std::to_string(ia.total_elements()) + " indices of the (" + std::to_string(ia.num_partitions) + ", " +
           std::to_string(ia.free_elements()) + ") vector_offset), " + sh.str());
  }
  if (indirect && !columns && (d[0] % 16 || d[0] < 16 || d[0] > 128))
    c.fail("an indirect src needs src.shape[0] to be a multiple of 16 in [16, 128], " + sh.str());
  if (!indirect && n == 2 && d[0] != 16) c.fail("a 2D src needs src.shape[0] == 16, " + sh.str());
  if (!indirect && n >= 3 && d[0] != 1 && d[0] != 2 && d[0] != 4 && d[0] != 8 && d[0] != 16)
    c.fail("a " + dn + " needs src.shape[0] in (1, 2, 4, 8, 16), " + sh.str());
  if (!indirect && n >= 3 && d[0] * d[n - 2] % 16 != 0)
    c.fail("a " + dn + " needs src.shape[0] * src.shape[-2] to be a multiple of 16, " + sh.str());
  if (d[n - 1] > 128) c.fail("src.shape[-1] must be at most 128, " + sh.str());
  if (indirect && n == 4 && d[1] != 1 && d[2] != 1)
    c.fail("an indirect 4D src needs src.shape[1] or src.shape[2] to be 1, " + sh.str());
}

// Without indirection, dst and each source hold the same number of elements (shapes may differ).
void same_total(const Check& c, int a, int b) {
  const uint64_t ta = c.op(a).total_elements(), tb = c.op(b).total_elements();
  if (ta == tb) return;
  std::ostringstream os;
  os << "operand '" << c.name(a) << "' has " << c.parts(a) << " x " << c.free(a) << " = " << ta << " elements but '"
     << c.name(b) << "' has " << c.parts(b) << " x " << c.free(b) << " = " << tb;
  c.fail(os.str(), b);
}
}  // namespace

void verify_dma_copy(const Check& c) {
  dge(c);
  if (c.pr.ind_kind == 0) return same_total(c, 0, 1);
  indirect(c, c.parts(0), false, {1, 0});
  rows_match(c, 0, 1);
}

void verify_dma_transpose(const Check& c) {
  dge(c);
  const uint16_t axes_field = c.pr.axes;
  if (c.pr.ind_kind != 0) {  // the indirect form: 2D, 3D or 4D HBM src (the rows are the executor's)
    if (axes_field != 10 && axes_field != 210 && axes_field != 3120)
      c.fail("an indirect src must be 2D (axes=10), 3D (axes=210) or 4D (axes=3120), got axes=" +
             std::to_string(axes_field));
    const AccessPattern& ia = c.op(idx_slot(c));
    const bool columns = c.pr.ind_kind == kIndVector && ia.present() && ia.free_elements() > 1;
    const int n = axes_field == 10 ? 2 : axes_field == 210 ? 3 : 4;
    dge_transpose_src(c, n, true, columns);
    if (c.pr.ind_kind == kIndVector && ia.dtype != DType::uint32)
      c.fail("the vector_offset indices must be uint32, got " + dt(ia.dtype), idx_slot(c));
    indirect(c, c.parts(1), columns, {1});
    transposed_rows(c, n);
    return;
  }
  if (c.dtype(0) != c.dtype(1))
    c.fail("dst and src must have the same dtype, got " + dt(c.dtype(0)) + " and " + dt(c.dtype(1)));
  // axes: decimal digits, outermost first, a permutation of 0 .. n-1 for n = 2 .. 4.
  int axes[8], n = 0;
  for (unsigned a = axes_field; a && n < 8; a /= 10) axes[n++] = int(a % 10);
  bool ok = n >= 2 && n <= 4;
  bool seen[10] = {};
  for (int k = 0; k < n && ok; ++k) {
    if (axes[k] >= n || seen[axes[k]]) ok = false;
    else seen[axes[k]] = true;
  }
  if (!ok) c.fail("axes=" + std::to_string(axes_field) + " is not a permutation of 2 to 4 dims");
  if (c.pr.dge_mode == kDgeHwdge) dge_transpose_src(c, n, false, false);
  const uint16_t dims[4] = {c.pr.tdim0, c.pr.tdim1, c.pr.tdim2, c.pr.tdim3};
  uint64_t total = 1;
  for (int k = 0; k < n; ++k) total *= dims[k];
  const uint64_t ts = c.op(1).total_elements(), td = c.op(0).total_elements();
  if (total != ts || total != td) {
    std::ostringstream os;
    os << "the source shape (tdim0..tdim" << n - 1 << ") has " << total << " elements but 'src' has " << ts
       << " and 'dst' " << td;
    c.fail(os.str());
  }
}

void verify_dma_compute(const Check& c) {
  dge(c);
  if (c.pr.ind_kind != 0) indirect(c, c.parts(0), false, {1, 2, 3, 0});
  for (int s = 1; s <= 3; ++s)
    if (c.has(s)) c.pr.ind_kind == 0 ? same_total(c, 0, s) : rows_match(c, 0, s);
  if (c.pr.dup_idx && c.pr.ind_kind == 0) c.fail("dup_idx (unique_indices=False) needs an indirect access (ind != 0)");
}

}  // namespace nkisim::isa::rules
