// verify_vector_select.cpp - rules of reciprocal, tensor_copy_predicated, max8, nc_find_index8,
// nc_match_replace8, nc_stream_shuffle (executors: sim/exec_vector_select.cpp).
#include <sstream>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
constexpr uint64_t kMax8MaxN = 16384;  // src elements per partition (nki-isa.md §3.3 max8)

void search_size(const Check& c, int slot) {
  if (c.free(slot) >= 8 && c.free(slot) <= kMax8MaxN) return;
  c.fail("operand '" + std::string(c.name(slot)) + "' must have 8 to 16384 elements per partition, got " +
             std::to_string(c.free(slot)),
         slot);
}

void index_dtype(const Check& c, int slot) {
  if (!c.has(slot) || c.dtype(slot) == DType::uint32 || c.dtype(slot) == DType::uint16) return;
  c.fail("operand '" + std::string(c.name(slot)) + "' must be uint32 or uint16, got " + dt(c.dtype(slot)), slot);
}
}  // namespace

void verify_reciprocal(const Check& c) { c.same_shape(0, 1); }

void verify_tensor_copy_predicated(const Check& c) {
  c.same_shape(0, 2);
  const DType pd = c.dtype(2);
  if (!(pd == DType::uint8 || pd == DType::uint16 || pd == DType::uint32 || pd == DType::bool_))
    c.fail("operand '" + std::string(c.name(2)) + "' must be uint8, uint16, uint32 or bool, got " + dt(pd), 2);
  if (c.has(1)) {
    c.same_shape(0, 1);
    if (c.dtype(1) != c.dtype(0))
      c.fail("src and dst must have the same dtype, got " + dt(c.dtype(1)) + " and " + dt(c.dtype(0)), 1);
    if (c.mem(2) == Memory::PSUM && c.mem(1) == Memory::PSUM)
      c.fail(std::string(c.name(1)) + " and " + c.name(2) + " cannot both be in PSUM");
  }
}

void verify_max8(const Check& c) {
  c.same_partitions(0, 1);
  c.free_is(0, 8);
  search_size(c, 1);
}

void verify_nc_find_index8(const Check& c) {
  c.same_partitions(0, 1);
  c.same_partitions(0, 2);
  c.free_is(0, 8);
  c.free_is(2, 8);
  search_size(c, 1);
  index_dtype(c, 0);
}

void verify_nc_match_replace8(const Check& c) {
  c.same_shape(0, 1);
  c.same_partitions(0, 2);
  c.free_is(2, 8);
  if (c.free(1) > kMax8MaxN)
    c.fail("data must have at most 16384 elements per partition, got " + std::to_string(c.free(1)), 1);
  if (c.has(3)) {
    c.same_partitions(0, 3);
    c.free_is(3, 8);
    index_dtype(c, 3);
  }
}

void verify_nc_stream_shuffle(const Check& c) {
  if (c.free(0) != c.free(1) || c.dtype(0) != c.dtype(1))
    c.fail("src and dst must have the same dtype and elements per partition");
  const int32_t words[8] = {c.pr.shuffle0, c.pr.shuffle1, c.pr.shuffle2, c.pr.shuffle3,
                            c.pr.shuffle4, c.pr.shuffle5, c.pr.shuffle6, c.pr.shuffle7};
  // Partition i of dst takes src partition i / 32 * 32 + mask[i % 32] (255: unchanged).
  for (uint32_t i = 0; i < c.parts(0) && i < 1u << 16; ++i) {
    const uint8_t m = uint8_t(uint32_t(words[(i % 32) / 4]) >> (8 * (i % 4)));
    if (m == 255) continue;
    const uint32_t from = i / 32 * 32 + m;
    if (m >= 32 || from >= c.parts(1)) {
      std::ostringstream os;
      os << "mask entry " << (i % 32) << " = " << int(m) << " selects partition " << from << " but src has "
         << c.parts(1) << " partitions";
      c.fail(os.str());
    }
  }
}

}  // namespace nkisim::isa::rules
