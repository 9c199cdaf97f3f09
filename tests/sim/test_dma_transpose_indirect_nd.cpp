// test_dma_transpose_indirect_nd.cpp - the indirect dma_transpose beyond 2D in hand-written programs
// (sim/exec_dma.cpp): a 3D gather-transpose with a (128, 2) index tile read column after column, and the
// error when the index tile holds fewer indices than src has rows.
#include <doctest/doctest.h>

#include <string>

#include "sim_test_util.h"

using namespace simtest;

namespace {
// table: bf16 [R, 2, 4] in HBM (R = 300); idx: uint32 [128, 2] in SBUF at byte 0 (loaded from an input);
// dma_transpose dst [4, 2, S] (SBUF byte 64) <- table rows idx.T.flatten()[:S]; stored to out [4, 2 * S].
isa::Program program(uint32_t S) {
  Builder b;
  const size_t table = b.input("table", DType::bfloat16, {300, 8});
  const size_t idx = b.input("idx", DType::uint32, {128, 2});
  const size_t out = b.output("out", DType::bfloat16, {4, 2 * int64_t(S)});
  auto& ld = b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::uint32, 0, 128, 0, 2), b.whole(idx)}));
  ld.updates.push_back({5, 1});
  AccessPattern src = hbm(DType::bfloat16, 0, 0, S, {{1, 8}});  // row j: the 2 x 4 block at idx[j]
  auto t = make(Opcode::dma_transpose, {sbuf(DType::bfloat16, 0, 4, 64, 2 * S), src, sbuf(DType::uint32, 0, 128, 0, 2),
                                        b.whole(table)});
  t.params.dge_mode = 1;
  t.params.ind_kind = 1;
  t.params.ind_opnds = 2;
  t.params.ind_stride = 8;
  t.params.ind_size = 300 * 8;
  t.params.axes = 210;
  t.params.tdim0 = uint16_t(S);
  t.params.tdim1 = 2;
  t.params.tdim2 = 4;
  t.loc = b.loc("t.py", 9, 5);
  t.waits.push_back({5, 1});
  t.updates.push_back({6, 1});
  b.add(Engine::GpSimd, t);
  auto& st = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(out), sbuf(DType::bfloat16, 0, 4, 64, 2 * S)}));
  st.waits.push_back({6, 1});
  return b.p;
}
}  // namespace

TEST_CASE("indirect dma_transpose 3D with a (128, 2) index tile: rows are idx.T.flatten()[:S]") {
  std::vector<uint16_t> tv(300 * 8);
  for (size_t i = 0; i < tv.size(); ++i) tv[i] = uint16_t(i * 7 + 1);
  std::vector<uint32_t> iv(256);
  for (uint32_t k = 0; k < 256; ++k) iv[k] = (k * 37 + 11) % 300;  // idx[p][c] = iv[p * 2 + c]
  const uint32_t S = 160;
  sim::Result r = sim::simulate(program(S), std::vector<sim::HostArray>{raw_array(DType::bfloat16, {300, 8}, tv),
                                                                        raw_array(DType::uint32, {128, 2}, iv)});
  REQUIRE(r.outputs.size() == 1);
  const std::vector<uint16_t> y = values<uint16_t>(r.outputs[0]);
  REQUIRE(y.size() == 4 * 2 * S);
  int bad = 0;
  for (uint32_t j = 0; j < S; ++j) {
    const uint32_t row = iv[(j % 128) * 2 + j / 128];  // column j / 128, partition j % 128
    for (uint32_t a = 0; a < 2; ++a)
      for (uint32_t f = 0; f < 4; ++f) bad += y[f * 2 * S + a * S + j] != tv[row * 8 + a * 4 + f];
  }
  CHECK(bad == 0);
}

TEST_CASE("indirect dma_transpose: an index tile with fewer indices than src rows is a located error") {
  sim::HostArray t = raw_array(DType::bfloat16, {300, 8}, std::vector<uint16_t>(2400, 0));
  sim::HostArray i = raw_array(DType::uint32, {128, 2}, std::vector<uint32_t>(256, 0));
  try {
    sim::simulate(program(272), std::vector<sim::HostArray>{t, i});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "dma_transpose: the vector_offset 'idx' (128 partitions x 2 elements) holds fewer "
                                   "indices than the 272 rows of 'src'");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 9);
  }
}
