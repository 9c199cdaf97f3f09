// test_dma_dup.cpp - dma_compute's dup_idx parameter (unique_indices=False, nki-isa.md §3.5) in a
// hand-written program: it needs an indirect access, and it prints / parses as `dup_idx`.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "timing_test_util.h"

using namespace ttest;

TEST_CASE("dma_compute dup_idx without an indirect access is a located error") {
  Builder b;
  size_t x = b.input("x", DType::float32, {8, 8});
  auto ins = make(Opcode::dma_compute, {sbuf(DType::float32, 0, 8, 0, 8), b.whole(x), b.whole(x)});
  ins.params.dup_idx = true;
  ins.loc = b.loc("k.py", 4, 5);
  b.add(Engine::Sync, ins);
  sim::HostArray in;
  in.dtype = DType::float32;
  in.shape = {8, 8};
  in.data.assign(64 * 4, 0);
  try {
    sim::simulate(b.p, std::vector<sim::HostArray>{in});
    FAIL("expected an nkisim::Error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "dma_compute: dup_idx (unique_indices=False) needs an indirect access (ind != 0)");
    REQUIRE(e.loc);
    CHECK(e.loc->file == "k.py");
    CHECK(e.loc->line == 4);
  }
}

TEST_CASE("indirect dma_transpose in a hand-written program: only the axes 10, 210 and 3120") {
  Builder b;
  size_t x = b.input("x", DType::bfloat16, {32, 16});
  // A permutation the indirect form does not have, with a vector offset (uint32 [16, 1] in SBUF): rejected
  // before any data is read.
  auto src = b.whole(x);
  auto ins = make(Opcode::dma_transpose, {sbuf(DType::bfloat16, 0, 16, 0, 16), src,
                                          sbuf(DType::uint32, 0, 16, 64, 1), b.whole(x)});
  ins.engine = Engine::GpSimd;
  ins.params.dge_mode = 1;
  ins.params.ind_kind = 1;
  ins.params.ind_opnds = 2;
  ins.params.ind_stride = 16;
  ins.params.ind_size = 512;
  ins.params.axes = 120;  // not one of the indirect permutations (10, 210, 3120)
  ins.params.tdim0 = 16;
  ins.params.tdim1 = 1;
  ins.params.tdim2 = 16;
  ins.loc = b.loc("t.py", 7, 5);
  b.add(Engine::GpSimd, ins);
  sim::HostArray in;
  in.dtype = DType::bfloat16;
  in.shape = {32, 16};
  in.data.assign(32 * 16 * 2, 0);
  sim::Options o;
  o.target = *isa::find_target("trn2");
  try {
    sim::simulate(b.p, std::vector<sim::HostArray>{in}, o);
    FAIL("expected an nkisim::Error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "dma_transpose: an indirect src must be 2D (axes=10), 3D (axes=210) or 4D (axes=3120), got "
                                "axes=120");
    REQUIRE(e.loc);
    CHECK(e.loc->line == 7);
  }
}
