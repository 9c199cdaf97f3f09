// exec_dma.cpp - the DMA instructions' data effects (applied when the transfer completes): dma_copy,
// dma_transpose, dma_compute, with indirect rows (vector_offset / scalar_offset, nki-language.md §5) and
// the DGE rules (nki-isa.md §3.5) and the other static rules in isa/verify_dma.cpp.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "sim/exec.h"

namespace nkisim::sim {
namespace {

constexpr uint16_t kIndVector = 1, kIndScalar = 2, kIndRegister = 3;  // 3: scalar_offset from register rs0

// The slot of the `idx` operand: before `base`, the last one in the table row (dma_copy, dma_compute).
int idx_slot(const isa::Instruction& ins) { return isa::info(ins.op).num_operands - 2; }

std::string name_of(const isa::Instruction& ins, int slot) { return isa::info(ins.op).operands[slot].name; }

// An operand resolved row by row: rows[p] is the first element of partition row p in memory, or nullptr
// when oob_mode=skip dropped the row. `v` is the operand's view (its rows are views of one partition).
struct Rows {
  View v;
  std::vector<uint8_t*> rows;
  View row_view(uint32_t p) const {
    View r = v;
    r.partitions = 1;
    r.base = rows[p];
    return r;
  }
};

// Free-pattern extent of an access pattern in elements relative to its offset: [lo, hi].
void free_extent(const isa::AccessPattern& ap, int64_t& lo, int64_t& hi) {
  lo = hi = 0;
  for (int d = 0; d < ap.num_dims; ++d) {
    const int64_t span = ap.dims[d].stride * int64_t(ap.dims[d].count - 1);
    (span < 0 ? lo : hi) += span;
  }
}

// The run-time offsets of an indirect instruction: per-partition rows (vector) or one shift (scalar).
struct Offsets {
  uint16_t kind = 0;
  std::vector<int64_t> row;  // vector: row index per partition
  int64_t shift = 0;         // scalar: rows to shift
};

Offsets read_offsets(ExecContext& ctx, const isa::Instruction& ins, uint32_t partitions) {
  Offsets o;
  o.kind = ins.params.ind_kind;
  if (o.kind == 0) return o;
  if (o.kind == kIndRegister) {  // the value the register had when the DMA was triggered
    o.kind = kIndScalar;
    const auto& regs = ctx.regs[size_t(ins.engine)];  // rs0 is in range (isa/verify_dma.cpp)
    o.shift = ctx.dma_register ? *ctx.dma_register : regs[ins.params.rs0];
    return o;
  }
  const int slot = idx_slot(ins);
  View iv = ctx.read(ins, slot);  // an integer tile of the shape isa/verify_dma.cpp checks
  auto value = [&](uint32_t p) {
    uint32_t u = 0;
    load_int(iv.dtype, iv.row(p), iv.esize, 1, &u);
    // uint32 offsets are unsigned; signed dtypes keep their sign (a negative offset is out of bounds).
    return iv.dtype == isa::DType::int32 || iv.dtype == isa::DType::int16 || iv.dtype == isa::DType::int8
               ? int64_t(int32_t(u)) : int64_t(u);
  };
  if (o.kind == kIndScalar) {
    o.shift = value(0);
    return o;
  }
  o.row.resize(partitions);
  for (uint32_t p = 0; p < partitions; ++p) o.row[p] = value(p);
  return o;
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Resolves operand `slot`; for an indirect operand applies the offsets and checks every row against the
// base tensor (ind_before / ind_size): out of bounds is a located error, or a dropped row with oob_skip.
Rows resolve_rows(ExecContext& ctx, const isa::Instruction& ins, int slot, bool writes, const Offsets& off) {
  Rows r;
  r.v = writes ? ctx.write(ins, slot) : ctx.read(ins, slot);
  r.rows.resize(r.v.partitions);
  for (uint32_t p = 0; p < r.v.partitions; ++p) r.rows[p] = r.v.row(p);
  const isa::AccessPattern& ap = ins.operands[slot];
  if (off.kind == 0 || !(ins.params.ind_opnds & (1u << slot))) return r;
  // An HBM operand with one row per offset (isa/verify_dma.cpp).
  const int64_t es = isa::dtype_size(ap.dtype), stride = ins.params.ind_stride;
  int64_t flo, fhi;
  free_extent(ap, flo, fhi);
  MemorySpace& hbm = ctx.mem.hbm;
  uint8_t* const hbm0 = hbm.ptr(0, 0);
  for (uint32_t p = 0; p < r.v.partitions; ++p) {
    // Element index (relative to the base tensor's start) of partition row p's first element.
    int64_t rel;
    if (off.kind == kIndVector) rel = ins.params.ind_before + off.row[p] * stride;
    else rel = ins.params.ind_before + off.shift * stride + int64_t(p) * ap.partition_stride;
    if (rel + flo < 0 || rel + fhi >= int64_t(ins.params.ind_size)) {
      if (ins.params.oob_skip) {
        r.rows[p] = nullptr;
        continue;
      }
      std::ostringstream os;
      os << isa::info(ins.op).mnemonic << ": out-of-bounds " << (off.kind == kIndVector ? "vector_offset" : "scalar_offset")
         << " on operand '" << name_of(ins, slot) << "': partition " << p << " uses row "
         << (off.kind == kIndVector ? off.row[p] : floor_div(rel, std::max<int64_t>(1, stride)))
         << " of a tensor with " << (stride > 0 ? ins.params.ind_size / stride : 0)
         << " rows (oob_mode=error; oob_mode=skip drops the row)";
      Error e(os.str(), ctx.location(ins));
      // numpy's IndexError for the flattened tensor: the first element index outside [0, size).
      const int64_t size = int64_t(ins.params.ind_size);
      const int64_t first_bad = rel + flo < 0 ? rel + flo : std::max(rel + flo, size);
      e.index_error =
          "index " + std::to_string(first_bad) + " is out of bounds for axis 0 with size " + std::to_string(size);
      throw e;
    }
    uint8_t* first = hbm0 + (ap.offset - int64_t(ins.params.ind_before) * es) + rel * es;
    r.rows[p] = first;
    hbm.prepare(0, 1, uint64_t(first - hbm0 + flo * es), uint64_t(first - hbm0 + (fhi + 1) * es));
  }
  if (ctx.checker) [[unlikely]]  // --check hook (sim/check.h): the rows this indirect operand really touches
    for (uint32_t p = 0; p < r.v.partitions; ++p) {
      if (!r.rows[p]) continue;
      View row = r.v;
      row.partitions = 1;
      row.base = r.rows[p];
      ctx.checker->on_access(ctx, ins, slot, row, writes);
    }
  return r;
}

bool any_indirect(const isa::Instruction& ins) { return ins.params.ind_kind != 0; }

// dma_transpose's vector_offset with several columns (nki-isa.md §3.5): a [P, C] tile whose indices are read
// column after column (indices.T.flatten()), the first S of them (S <= P x C).
Offsets read_offset_columns(ExecContext& ctx, const isa::Instruction& ins, uint32_t S) {
  const int slot = idx_slot(ins);
  View iv = ctx.read(ins, slot);  // an integer tile of at least S indices (isa/verify_dma.cpp)
  const bool is_signed = iv.dtype == isa::DType::int32 || iv.dtype == isa::DType::int16 || iv.dtype == isa::DType::int8;
  std::vector<uint8_t> part(size_t(iv.free_elems) * iv.esize);
  Offsets o;
  o.kind = kIndVector;
  o.row.resize(S);
  for (uint32_t p = 0; p < iv.partitions; ++p) {
    gather_raw(iv, p, part.data());
    for (uint64_t c = 0; c < iv.free_elems; ++c) {
      const uint64_t j = c * iv.partitions + p;  // column c, partition p
      if (j >= S) continue;
      uint32_t u = 0;
      load_int(iv.dtype, part.data() + c * iv.esize, iv.esize, 1, &u);
      o.row[j] = is_signed ? int64_t(int32_t(u)) : int64_t(u);
    }
  }
  return o;
}

// The indirect form (nki-isa.md §3.5, swdge): an HBM src [S, F] (2D, axes=10), [S, A, F] (3D, axes=210) or
// [S, A, B, F] (4D, axes=3120) whose row j (the A x B x F block at dim 0) is resolved like dma_copy's
// indirect rows; dst [F, A, (B,) S] element (f, m, j) gets row j's element (m, f), m the middle index. A dropped
// row (oob_skip) leaves its dst elements untouched.
void exec_dma_transpose_indirect(ExecContext& ctx, const isa::Instruction& ins) {
  const uint16_t axes = ins.params.axes;
  const int n = axes == 10 ? 2 : axes == 210 ? 3 : 4;  // 10, 210 or 3120 (isa/verify_dma.cpp)
  const uint16_t tdims[4] = {ins.params.tdim0, ins.params.tdim1, ins.params.tdim2, ins.params.tdim3};
  const uint32_t S = ins.operands[1].num_partitions;
  const isa::AccessPattern& ia = ins.operands[size_t(idx_slot(ins))];
  const bool columns = ins.params.ind_kind == kIndVector && ia.present() && ia.free_elements() > 1;
  const Offsets off = columns ? read_offset_columns(ctx, ins, S) : read_offsets(ctx, ins, S);
  Rows src = resolve_rows(ctx, ins, 1, false, off);
  View dst = ctx.write(ins, 0);
  const uint64_t F = tdims[n - 1];
  uint64_t M = 1;  // the middle dims (A, or A x B)
  for (int k = 1; k < n - 1; ++k) M *= tdims[k];
  // dst is src's transpose [F, M x S] (isa/verify_dma.cpp).
  const unsigned es = dst.esize;
  const uint64_t W = M * S;  // dst elements per partition
  uint8_t* row = ctx.bytes(0, M * F * es);
  uint8_t* out = ctx.bytes(1, F * W * es);
  for (uint32_t f = 0; f < F; ++f) gather_raw(dst, f, out + uint64_t(f) * W * es);
  for (uint32_t j = 0; j < S; ++j) {
    if (!src.rows[j]) continue;
    gather_raw(src.row_view(j), 0, row);
    for (uint64_t m = 0; m < M; ++m)
      for (uint64_t f = 0; f < F; ++f) std::memcpy(out + (f * W + m * S + j) * es, row + (m * F + f) * es, es);
  }
  for (uint32_t f = 0; f < F; ++f) scatter_raw(dst, f, out + uint64_t(f) * W * es);
}

}  // namespace

// A dma_copy whose dst writes every byte of one contiguous byte range (HBM), or of the same byte range in
// each of its partitions (SBUF/PSUM), or of rows far apart in HBM (a tile of a wide tensor), each byte once:
// the 4 KiB chunks (HBM: 64-byte lines) inside those bytes need no sentinel fill before the copy
// (MemorySpace::prepare_overwrite; a chunk or line partly outside is still filled). Not when the src may read
// the dst's bytes (it must see the sentinel where nothing was written yet).
void overwrite_dense_dst(ExecContext& ctx, const isa::Instruction& ins) {
  const isa::AccessPattern& d = ins.operands[0];
  const isa::AccessPattern& s = ins.operands[1];
  if (!d.present() || d.dyn.present() || !s.present() || s.dyn.present()) return;
  const View dv = ctx.check(ins, 0, true);
  if (dv.empty() || !dv.contiguous_rows()) return;
  const int64_t row_bytes = int64_t(dv.free_elems) * dv.esize;
  const bool hbm_rows = d.mem == isa::Memory::HBM && dv.partitions > 1 && dv.pstep > row_bytes;
  if (d.mem == isa::Memory::HBM && !hbm_rows) {
    if (dv.partitions > 1 && dv.pstep != row_bytes) return;
    if (dv.hi - dv.lo != row_bytes * int64_t(dv.partitions)) return;
  } else if (d.mem != isa::Memory::HBM && dv.hi - dv.lo != row_bytes) {
    return;
  }
  if (s.mem == d.mem && may_overlap(dv, ctx.check(ins, 1, false))) return;
  if (hbm_rows) {
    for (uint32_t p = 0; p < dv.partitions; ++p)
      ctx.mem.hbm.prepare_overwrite(0, 1, uint64_t(dv.lo + int64_t(p) * dv.pstep),
                                    uint64_t(dv.lo + int64_t(p) * dv.pstep + row_bytes));
    return;
  }
  ctx.mem.of(d.mem).prepare_overwrite(dv.start_partition, d.mem == isa::Memory::HBM ? 1 : dv.partitions,
                                      uint64_t(dv.lo), uint64_t(dv.hi));
}

// dst <- src through the DMA engines; element counts must match, shapes may differ (element order). With
// indirection, row p of src goes to row p of dst; a dropped row leaves dst untouched.
void exec_dma_copy(ExecContext& ctx, const isa::Instruction& ins) {
  if (!any_indirect(ins)) {
    overwrite_dense_dst(ctx, ins);
    View dst = ctx.write(ins, 0);
    View src = ctx.read(ins, 1);
    copy_elements(ctx, dst, src);
    return;
  }
  const uint32_t P = ins.operands[0].num_partitions;
  const Offsets off = read_offsets(ctx, ins, P);
  Rows src = resolve_rows(ctx, ins, 1, false, off);
  Rows dst = resolve_rows(ctx, ins, 0, true, off);
  // Stage every source row first (a gather may read what the copy writes), then write.
  const size_t n = src.v.free_elems;
  uint8_t* buf = ctx.bytes(0, n * P * 4);
  float* fbuf = ctx.f32(0, n * P);
  const bool same = src.v.dtype == dst.v.dtype;
  for (uint32_t p = 0; p < P; ++p) {
    if (!src.rows[p] || !dst.rows[p]) continue;
    if (same) gather_raw(src.row_view(p), 0, buf + p * n * src.v.esize);
    else gather_f32(src.row_view(p), 0, fbuf + p * n);
  }
  for (uint32_t p = 0; p < P; ++p) {
    if (!src.rows[p] || !dst.rows[p]) continue;
    if (same) scatter_raw(dst.row_view(p), 0, buf + p * n * dst.v.esize);
    else scatter_f32(dst.row_view(p), 0, fbuf + p * n);
  }
}

// dst = src.transpose(axes), bit-exact: src is walked in element order as the shape tdim0..tdim{n-1}; dst
// in element order is the permuted shape.
void exec_dma_transpose(ExecContext& ctx, const isa::Instruction& ins) {
  if (any_indirect(ins)) {
    exec_dma_transpose_indirect(ctx, ins);
    return;
  }
  View dst = ctx.write(ins, 0);
  View src = ctx.read(ins, 1);
  // Decode axes (decimal digits, outermost first) and the source shape.
  std::vector<int> axes;
  for (unsigned a = ins.params.axes; a; a /= 10) axes.insert(axes.begin(), int(a % 10));
  const int n = int(axes.size());  // a permutation of 2 to 4 dims whose shape holds src's and dst's elements
  const uint16_t dims[4] = {ins.params.tdim0, ins.params.tdim1, ins.params.tdim2, ins.params.tdim3};
  uint64_t total = 1;
  for (int k = 0; k < n; ++k) total *= dims[k];
  const unsigned es = src.esize;
  uint8_t* in = ctx.bytes(0, total * es);
  uint8_t* out = ctx.bytes(1, total * es);
  for (uint32_t p = 0; p < src.partitions; ++p) gather_raw(src, p, in + uint64_t(p) * src.free_elems * es);
  // Source strides (elements, row-major) of each dst dim.
  uint64_t sstride[4] = {1, 1, 1, 1};
  for (int k = n - 2; k >= 0; --k) sstride[k] = sstride[k + 1] * dims[k + 1];
  uint64_t dcount[4], dstr[4];
  for (int k = 0; k < n; ++k) {
    dcount[k] = dims[axes[size_t(k)]];
    dstr[k] = sstride[axes[size_t(k)]];
  }
  uint64_t idx[4] = {0, 0, 0, 0};
  for (uint64_t j = 0; j < total; ++j) {
    uint64_t s = 0;
    for (int k = 0; k < n; ++k) s += idx[k] * dstr[k];
    std::memcpy(out + j * es, in + s * es, es);
    for (int k = n - 1; k >= 0; --k) {
      if (++idx[k] < dcount[k]) break;
      idx[k] = 0;
    }
  }
  for (uint32_t p = 0; p < dst.partitions; ++p) scatter_raw(dst, p, out + uint64_t(p) * dst.free_elems * es);
}

// dst = src0 + src1 (+ src2) in fp32, element order; with indirection row p of every operand
// pairs with row p of the others, and a dropped row leaves dst untouched.
void exec_dma_compute(ExecContext& ctx, const isa::Instruction& ins) {
  const uint32_t P = ins.operands[0].num_partitions;
  const Offsets off = read_offsets(ctx, ins, P);
  std::vector<Rows> srcs;  // each of dst's shape with indirection, else of its element count (isa/verify_dma.cpp)
  for (int s = 1; s <= 3; ++s)
    if (ins.operands[s].present()) srcs.push_back(resolve_rows(ctx, ins, s, false, off));
  Rows dst = resolve_rows(ctx, ins, 0, true, off);
  const bool ind = any_indirect(ins);
  if (ins.params.dup_idx) {
    // unique_indices=False: row by row in partition order, each reading what the earlier rows wrote, so
    // duplicate indices accumulate (np.add.at).
    const uint32_t n = dst.v.free_elems;
    float* acc = ctx.f32(0, n);
    float* tmp = ctx.f32(1, n);
    for (uint32_t p = 0; p < P; ++p) {
      bool keep = dst.rows[p] != nullptr;
      for (const Rows& s : srcs) keep = keep && s.rows[p];
      if (!keep) continue;
      for (size_t k = 0; k < srcs.size(); ++k) {
        gather_f32(srcs[k].row_view(p), 0, k == 0 ? acc : tmp);
        if (k > 0)
          for (uint32_t i = 0; i < n; ++i) acc[i] += tmp[i];
      }
      scatter_f32(dst.row_view(p), 0, acc);
    }
    return;
  }
  const uint64_t total = dst.v.total_elems();
  float* acc = ctx.f32(0, total);
  float* tmp = ctx.f32(1, total);
  std::vector<char> keep(ind ? P : 0, 1);
  for (size_t k = 0; k < srcs.size(); ++k) {
    const Rows& s = srcs[k];
    float* to = k == 0 ? acc : tmp;
    if (ind) {
      for (uint32_t p = 0; p < P; ++p) {
        if (!s.rows[p]) keep[p] = 0;
        else gather_f32(s.row_view(p), 0, to + uint64_t(p) * s.v.free_elems);
      }
    } else {
      for (uint32_t p = 0; p < s.v.partitions; ++p) gather_f32(s.v, p, to + uint64_t(p) * s.v.free_elems);
    }
    if (k > 0)
      for (uint64_t i = 0; i < total; ++i) acc[i] += tmp[i];
  }
  if (!ind) {
    for (uint32_t p = 0; p < dst.v.partitions; ++p) scatter_f32(dst.v, p, acc + uint64_t(p) * dst.v.free_elems);
    return;
  }
  for (uint32_t p = 0; p < P; ++p)
    if (keep[p] && dst.rows[p]) scatter_f32(dst.row_view(p), 0, acc + uint64_t(p) * dst.v.free_elems);
}

}  // namespace nkisim::sim
