// test_dynamic_offset.cpp - the front end and back end of dynamic offsets on on-chip operands and the remaining
// view methods (docs/dynamic-offsets.md): .ap(scalar_offset=) and select(dim, tensor|register) on SBUF feed
// compute instructions (ir::DynOperand -> isa::DynOffset, dependencies on the offset tensor); select on HBM
// and vector_select feed DMA; rearrange; the exact located errors.
#include <doctest/doctest.h>

#include "helpers.h"
#include "ir/lower.h"
#include "isa/target.h"

using namespace nkisim;
using isa::DType;
using isa::Opcode;

namespace {
std::vector<std::pair<int64_t, int64_t>> dims(const ir::View& v) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto& d : v.dims) out.emplace_back(d.stride, d.count);
  return out;
}
using Dims = std::vector<std::pair<int64_t, int64_t>>;
const char* const kSetup =
    "    t = nl.ndarray((128, 4, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
    "    i = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)\n"
    "    o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n";
}  // namespace

TEST_CASE("ap(scalar_offset=) on SBUF: a dynamic src of a compute instruction, lowered to isa::DynOffset") {
  auto k = compile_body(std::string(kSetup) +
                        "    nisa.dma_copy(dst=i, src=x[0:1, 0:1])\n"
                        "    nisa.tensor_copy(dst=o, src=t.ap([[256, 128], [1, 64]], offset=0, scalar_offset=i, indirect_dim=1))\n",
                        "trn2", spec({128, 64}, DType::int32));
  auto c = ops_of(k, Opcode::tensor_copy);
  REQUIRE(c.size() == 1);
  REQUIRE(c[0]->dynamic.size() == 1);
  const ir::DynOperand& d = c[0]->dynamic[0];
  CHECK(d.slot == 1);
  CHECK(d.row_stride == 64);  // prod(base.shape[2:])
  CHECK(d.reg == -1);
  REQUIRE(d.offsets);
  CHECK(k.tensors[size_t(d.offsets->tensor)].name == "i");
  CHECK(dims(*c[0]->operands[1]) == Dims{{256, 128}, {1, 64}});

  const isa::Program p = ir::lower(k, *isa::find_target("trn2"));
  const isa::Instruction* copy = nullptr;
  const isa::Instruction* load = nullptr;
  for (auto& s : p.streams)
    for (auto& ins : s) {
      if (ins.op == Opcode::tensor_copy) copy = &ins;
      if (ins.op == Opcode::dma_copy && ins.operands[0].dtype == DType::int32 && ins.operands[0].num_partitions == 1)
        load = &ins;
    }
  REQUIRE(copy);
  REQUIRE(load);
  const isa::DynOffset& dyn = copy->operands[1].dyn;
  CHECK(dyn.kind == isa::DynOffset::Sbuf);
  CHECK(dyn.dtype == DType::int32);
  CHECK(dyn.src == load->operands[0].start_partition);
  CHECK(dyn.addr == load->operands[0].offset);  // where the DMA put the offset
  CHECK(dyn.stride == 64);
  CHECK(dyn.lo == copy->operands[1].offset);
  CHECK(dyn.hi - dyn.lo == 4 * 64 * 4);  // the base tensor's bytes per partition
  CHECK(!copy->operands[0].dyn.present());
  // The copy waits for the DMA that wrote its offset (the offset tensor is a read of the instruction).
  CHECK(!copy->waits.empty());
}

TEST_CASE("select(dim, tensor or register): a dynamic operand moving by the dim's stride") {
  auto k = compile_body(std::string(kSetup) +
                        "    r = nisa.register_alloc(2)\n"
                        "    nisa.tensor_tensor(dst=o, data1=t.select(1, i), data2=t[:, 1:3, :].select(1, r), op=nl.add)\n"
                        "    nisa.tensor_copy(dst=t.select(1, r), src=o)\n");
  auto tt = ops_of(k, Opcode::tensor_tensor);
  REQUIRE(tt.size() == 1);
  REQUIRE(tt[0]->dynamic.size() == 2);
  CHECK(tt[0]->dynamic[0].slot == 1);
  CHECK(tt[0]->dynamic[0].row_stride == 64);
  CHECK(tt[0]->dynamic[0].offsets);
  CHECK(tt[0]->dynamic[1].slot == 2);
  CHECK(tt[0]->dynamic[1].reg >= 0);
  CHECK(!tt[0]->dynamic[1].offsets);
  CHECK(tt[0]->operands[2]->offset == 64);  // t[:, 1:3, :] starts at row 1; the register adds to it
  CHECK(dims(*tt[0]->operands[1]) == Dims{{256, 128}, {1, 64}});
  auto c = ops_of(k, Opcode::tensor_copy);
  REQUIRE(c.size() == 1);
  REQUIRE(c[0]->dynamic.size() == 1);
  CHECK(c[0]->dynamic[0].slot == 0);  // a dynamic dst
  const isa::Program p = ir::lower(k, *isa::find_target("trn2"));
  bool reg_dst = false;
  for (auto& s : p.streams)
    for (auto& ins : s)
      if (ins.op == Opcode::tensor_copy) reg_dst = ins.operands[0].dyn.kind == isa::DynOffset::Reg;
  CHECK(reg_dst);
}

TEST_CASE("select on HBM and vector_select: DMA scalar and vector offsets") {
  auto k = compile_body(
      "    i = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)\n"
      "    o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    h = nl.ndarray((4, 128, 64), dtype=nl.float32, buffer=nl.hbm)\n"
      "    nisa.dma_copy(dst=o, src=h.select(0, i))\n"
      "    it = nl.ndarray((128, 1), dtype=nl.int32, buffer=nl.sbuf)\n"
      "    nisa.dma_copy(dst=o, src=x.vector_select(0, it))\n",
      "trn2", spec({300, 64}));
  auto d = ops_of(k, Opcode::dma_copy);
  REQUIRE(d.size() == 2);
  CHECK(d[0]->params.ind_kind == 2);
  CHECK(d[0]->params.ind_stride == 128 * 64);
  CHECK(d[0]->params.ind_size == 4 * 128 * 64);
  CHECK(d[1]->params.ind_kind == 1);
  CHECK(d[1]->params.ind_stride == 64);
  CHECK(d[1]->params.ind_size == 300 * 64);
  CHECK(dims(*d[1]->operands[1]) == Dims{{0, 128}, {1, 64}});
}

TEST_CASE("rearrange: split, permute and merge as compile-time views") {
  auto k = compile_body(
      "    t = nl.ndarray((128, 4, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    o = nl.ndarray((128, 64, 4), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    nisa.tensor_copy(dst=o, src=t.rearrange('p a f', 'p f a'))\n"
      "    u = nl.ndarray((128, 16, 16), dtype=nl.float32, buffer=nl.sbuf)\n"
      "    nisa.tensor_copy(dst=u, src=t.rearrange(('p', 'a', ('b', 'c')), ('p', ('a', 'b'), 'c'), {'c': 16}))\n"
      "    nisa.dma_copy(dst=o, src=x.rearrange('(a b) f', 'b a f', {'b': 128}))\n",
      "trn2", spec({512, 64}));
  auto c = ops_of(k, Opcode::tensor_copy);
  REQUIRE(c.size() == 2);
  CHECK(dims(*c[0]->operands[1]) == Dims{{256, 128}, {1, 64}, {64, 4}});
  CHECK(dims(*c[1]->operands[1]) == Dims{{256, 128}, {16, 16}, {1, 16}});
  auto d = ops_of(k, Opcode::dma_copy);
  REQUIRE(d.size() == 1);
  CHECK(dims(*d[0]->operands[1]) == Dims{{64, 128}, {8192, 4}, {1, 64}});
}

TEST_CASE("dynamic offsets and view methods: exact located errors") {
  const std::string s = kSetup;  // body lines 6..8; the tested line is 9
  CHECK(body_error(s + "    v = t.ap([[256, 128], [1, 64]], scalar_offset=i, indirect_dim=0)\n") ==
        "9:9: ap: a dynamic scalar_offset on an on-chip tensor cannot move the partition dimension (indirect_dim=0); "
        "use indirect_dim >= 1 to move along a free dimension of 't'");
  CHECK(body_error(s + "    v = t.select(0, i)\n") ==
        "9:9: select: the partition dimension of an on-chip tensor cannot be selected");
  CHECK(body_error(s + "    nisa.dma_copy(dst=o, src=t.select(1, i))\n") ==
        "9:5: dma_copy: src has a dynamic offset on the on-chip tensor 't'; DMA instructions take dynamic offsets "
        "on HBM tensors only");
  CHECK(body_error(s + "    f = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.sbuf)\n    v = t.select(1, f)\n") ==
        "10:9: select: index must have an integer dtype, got float32");
  CHECK(body_error(s + "    f = nl.ndarray((1, 2), dtype=nl.int32, buffer=nl.sbuf)\n    v = t.select(1, f)\n") ==
        "10:9: select: index must have exactly one element, got shape (1, 2)");
  CHECK(body_error(s + "    f = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.psum)\n    v = t.select(1, f)\n") ==
        "10:9: select: index must be in SBUF, but 'f' is in psum");
  CHECK(body_error(s + "    v = t.ap([[256, 128], [1, 64]], scalar_offset=1.5, indirect_dim=1)\n") ==
        "9:9: ap: scalar_offset must be an SBUF tensor, a VirtualRegister or an int, got 'float'");
  CHECK(body_error(s + "    v = t.select(1, i)[:, 0:8]\n") ==
        "9:9: an indirect access pattern (.ap() with a dynamic offset) cannot be indexed or viewed further; index "
        "the tensor before .ap()");
  // vector_select
  CHECK(body_error(s + "    v = t.vector_select(0, i)\n") ==
        "9:9: vector_select: only HBM tensors can be gathered by rows, but 't' is in sbuf");
  CHECK(body_error(s + "    v = x.vector_select(1, i)\n") ==
        "9:9: vector_select: only dimension 0 can be selected per partition, got dim 1");
  CHECK(body_error(s + "    v = x.vector_select(0, o)\n") ==
        "9:9: vector_select: offsets must have an integer dtype, got float32");
  CHECK(body_error(s + "    w = nl.ndarray((2, 2), dtype=nl.int32, buffer=nl.sbuf)\n    v = x.vector_select(0, w)\n") ==
        "10:9: vector_select: offsets must have shape (P, 1) (one row index per partition), got (2, 2)");
  CHECK(body_error(s + "    nisa.tensor_copy(dst=o, src=x.vector_select(0, i))\n") ==
        "9:5: tensor_copy: src is an indirect access pattern (.ap() with scalar_offset or vector_offset); only "
        "dma_copy and dma_compute accept one");
  // indirect(): not done yet
  CHECK(body_error(s + "    v = t.indirect(i)\n") ==
        "9:9: indirect() (trn3 tensor indirection) is not supported yet by nki-sim");
  // rearrange
  auto re = [&](const std::string& call) { return body_error(s + "    v = t.rearrange(" + call + ")\n"); };
  CHECK(re("'p (a b', 'p a b'") == "9:9: rearrange: unbalanced parentheses in src pattern 'p (a b'");
  CHECK(re("'p a f', 'p (a (f))'") == "9:9: rearrange: nested parentheses in dst pattern 'p (a (f))'");
  CHECK(re("'p () f', 'p f'") == "9:9: rearrange: an empty group '()' in src pattern 'p () f'");
  CHECK(re("'p a-f', 'p a f'") == "9:9: rearrange: unexpected character '-' in src pattern 'p a-f'");
  CHECK(re("'p a a', 'p a'") == "9:9: rearrange: name 'a' appears twice in the src pattern");
  CHECK(re("'p a', 'p a'") == "9:9: rearrange: the src pattern has 2 items but the tensor has 3 dimensions (128, 4, 64)");
  CHECK(re("'p a f', 'p a z'") == "9:9: rearrange: name 'z' of the dst pattern is not in the src pattern");
  CHECK(re("'p a f', 'p a'") == "9:9: rearrange: name 'f' of the src pattern is missing from the dst pattern");
  CHECK(re("'p a (b c d)', 'p a b c d'") ==
        "9:9: rearrange: cannot infer the sizes of (b c d) (dimension 2 of size 64): give all but one in sizes");
  CHECK(re("'p a (b c)', 'p a b c', {'b': 5}") ==
        "9:9: rearrange: (b c) cannot split dimension 2 of size 64 with the given sizes");
  CHECK(re("'p a f', 'p (f a)'") ==
        "9:9: rearrange: (f a) of the dst pattern cannot be merged: its dimensions are not contiguous in memory");
  CHECK(re("'p a f', 'a p f'") ==
        "9:9: rearrange: on an on-chip tensor the partition dimension (p in src) must stay first and alone in both "
        "patterns");
  CHECK(re("'p a f', 'p a f', {'z': 2}") == "9:9: rearrange: sizes names 'z', which is not in the src pattern");
  CHECK(re("'p a f', 'p a f', [2]") == "9:9: rearrange: sizes must be a dict {name: size}, got 'list'");
  CHECK(re("3, 'p a f'") ==
        "9:9: rearrange: the src pattern must be a string such as 'p (a b)' or a tuple of names, got 'int'");
}
