// test_nki_isa_dma.cpp - nki.isa DMA bindings (frontend/nki_isa_dma.cpp): DGE mode and trigger engine per
// instruction, indirect operands (.ap(vector_offset / scalar_offset)) lowered to idx/base slots and ind_*
// parameters, dma_transpose parameters, dma_compute chaining.
#include "helpers.h"

using nkisim::isa::DType;
using nkisim::isa::Engine;
using nkisim::isa::Opcode;
namespace ir = nkisim::ir;


TEST_CASE("nki.isa.dma_copy: dge_mode and engine= choose the DGE mode and the trigger") {
  auto k = compile_body(
      "    t = nl.ndarray((128, 64), dtype=nl.float32)\n"
      "    nisa.dma_copy(dst=t, src=x)\n"
      "    nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.hwdge)\n"
      "    nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.scalar)\n"
      "    nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.swdge)\n"
      "    nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.none)\n", "trn2", spec({128, 64}));
  auto d = ops_of(k, Opcode::dma_copy);
  REQUIRE(d.size() == 5);
  CHECK(d[0]->params.dge_mode == 4);  // unknown in an nki.jit kernel: the target's dma_dge_mode_nki
  CHECK(!d[0]->engine);
  CHECK(d[1]->params.dge_mode == 2);
  CHECK(d[1]->engine == Engine::Sync);
  CHECK(d[2]->params.dge_mode == 2);
  CHECK(d[2]->engine == Engine::Scalar);
  CHECK(d[3]->params.dge_mode == 1);
  CHECK(d[3]->engine == Engine::GpSimd);
  CHECK(d[4]->params.dge_mode == 3);
  CHECK(!d[4]->engine);
}

TEST_CASE("nki.isa.dma_copy: dge_mode.unknown is dge 4 in an nki.jit kernel, 0 in a legacy one (and in neither "
          "for a transpose's explicit modes)") {
  auto cur = compile_body("    t = nl.ndarray((16, 128), dtype=nl.bfloat16)\n"
                          "    nisa.dma_copy(dst=t, src=x)\n"
                          "    u = nl.ndarray((128, 16), dtype=nl.bfloat16)\n"
                          "    nisa.dma_transpose(dst=u, src=x)\n"
                          "    nisa.dma_transpose(dst=u, src=x, dge_mode=nisa.dge_mode.hwdge)\n",
                          "trn2", spec({16, 128}, DType::bfloat16));
  auto c = ops_of(cur, Opcode::dma_copy), t = ops_of(cur, Opcode::dma_transpose);
  REQUIRE((c.size() == 1 && t.size() == 2));
  CHECK(c[0]->params.dge_mode == 4);
  CHECK(t[0]->params.dge_mode == 4);
  CHECK(t[1]->params.dge_mode == 2);
  TempKernel lk("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n"
                "@nki.jit\ndef k(x):\n"
                "    t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)\n"
                "    nisa.dma_copy(dst=t, src=x)\n"
                "    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
                "    nisa.dma_copy(dst=out, src=t)\n"
                "    return out\n");
  auto legacy = fe::compile_to_ir(lk.path, kernel_options("trn2", spec({128, 64})));
  auto l = ops_of(legacy, Opcode::dma_copy);
  REQUIRE(l.size() == 2);
  CHECK(l[0]->params.dge_mode == 0);
  CHECK(l[1]->params.dge_mode == 0);
}

TEST_CASE("nki.isa.dma_copy: a vector_offset gather is software DGE with idx/base slots and row geometry") {
  auto k = compile_body(
      "    it = nl.ndarray((32, 1), dtype=nl.uint32)\n"
      "    t = nl.ndarray((32, 16), dtype=nl.float32)\n"
      "    nisa.dma_copy(dst=t, src=x.ap([[64, 32], [1, 16]], offset=8, vector_offset=it, indirect_dim=0),\n"
      "                  oob_mode=nisa.oob_mode.skip)\n"
      "    o = nl.ndarray((1, 1), dtype=nl.int32)\n"
      "    w = nl.ndarray((2, 64), dtype=nl.float32)\n"
      "    nisa.dma_copy(dst=x.ap([[64, 2], [1, 64]], scalar_offset=o), src=w)\n"
      "    nisa.dma_copy(dst=t[0:2], src=x.ap([[64, 2], [1, 16]], scalar_offset=3))\n", "trn2", spec({128, 64}));
  auto d = ops_of(k, Opcode::dma_copy);
  REQUIRE(d.size() == 3);
  const ir::Op& g = *d[0];
  CHECK(g.params.dge_mode == 1);
  CHECK(g.engine == Engine::GpSimd);
  CHECK(g.params.ind_kind == 1);
  CHECK(g.params.ind_opnds == 2);
  CHECK(g.params.ind_stride == 64);
  CHECK(g.params.ind_before == 8);
  CHECK(g.params.ind_size == 128 * 64);
  CHECK(g.params.oob_skip);
  REQUIRE(g.operands[1]);
  CHECK(g.operands[1]->dims[0].stride == 0);  // rows come from the offsets at run time
  REQUIRE(g.operands[2]);
  CHECK(g.operands[2]->dims[0].count == 32);
  REQUIRE(g.operands[3]);
  CHECK(g.operands[3]->num_elements() == 128 * 64);
  const ir::Op& s = *d[1];
  CHECK(s.params.ind_kind == 2);
  CHECK(s.params.ind_opnds == 1);
  CHECK(s.operands[0]->dims[0].stride == 64);
  // A compile-time scalar_offset is folded into the static offset: no indirection.
  CHECK(d[2]->params.ind_kind == 0);
  CHECK(d[2]->operands[1]->offset == 3 * 64);
}

TEST_CASE("nki.isa.dma_transpose and dma_compute parameters") {
  auto k = compile_body(
      "    s = nl.ndarray((2, 4, 8, 32), dtype=nl.bfloat16, buffer=nl.hbm)\n"
      "    t = nl.ndarray((32, 4, 8, 2), dtype=nl.bfloat16)\n"
      "    nisa.dma_transpose(dst=t, src=s, dge_mode=nisa.dge_mode.hwdge)\n"
      "    u = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    nisa.dma_compute(dst=u, srcs=[x, x, x, x, x, x], reduce_op=nl.add)\n", "trn2", spec({128, 64}));
  auto t = ops_of(k, Opcode::dma_transpose);
  REQUIRE(t.size() == 1);
  CHECK(t[0]->params.axes == 3120);
  CHECK(t[0]->params.tdim0 == 2);
  CHECK(t[0]->params.tdim1 == 4);
  CHECK(t[0]->params.tdim2 == 8);
  CHECK(t[0]->params.tdim3 == 32);
  CHECK(t[0]->params.dge_mode == 2);
  CHECK(t[0]->engine == Engine::Sync);
  // 6 sources into bf16: an fp32 HBM accumulator, 3 + 2 + 1 sources (the running sum is a source).
  auto c = ops_of(k, Opcode::dma_compute);
  REQUIRE(c.size() == 3);
  const int acc = c[0]->operands[0]->tensor;
  CHECK(k.tensors[size_t(acc)].dtype == DType::float32);
  CHECK(k.tensors[size_t(acc)].buffer == ir::Buffer::hbm);
  CHECK(c[0]->operands[3]);
  CHECK(c[1]->operands[0]->tensor == acc);
  CHECK(c[1]->operands[1]->tensor == acc);
  CHECK(c[2]->operands[1]->tensor == acc);
  CHECK(c[2]->operands[0]->tensor != acc);
  CHECK(!c[2]->operands[3]);
}

// nl.load_transpose2d transposes "on the fly in the DMA engine": from NC-v3 the DMA transposer (dma_transpose,
// one instruction per load) for 2- and 4-byte dtypes, a cast after it on Vector; on trn1 a transfer of the transposed
// view (which casts as it goes).
TEST_CASE("nl.load_transpose2d: the DMA transposer from trn2 (then a cast), a transfer of the transposed view on trn1") {
  const std::string body =
      "    a = nl.load_transpose2d(x[0:256, 0:128])\n"
      "    b = nl.load_transpose2d(x[0:128, 0:128], dtype=nl.bfloat16)\n";
  for (const char* target : {"trn1", "trn2", "trn3"}) {
    CAPTURE(target);
    auto k = compile_body(body, target, spec({256, 512}));
    auto tr = ops_of(k, Opcode::dma_transpose);
    auto cp = ops_of(k, Opcode::dma_copy);
    auto cast = ops_of(k, Opcode::tensor_copy);
    const bool transposer = std::string(target) != "trn1";
    REQUIRE(tr.size() == (transposer ? 2u : 0u));
    REQUIRE(cp.size() == (transposer ? 0u : 2u));
    if (transposer) {
      CHECK(tr[0]->params.axes == 10);
      CHECK(tr[0]->params.tdim0 == 256);
      CHECK(tr[0]->params.tdim1 == 128);
      CHECK(tr[0]->operands[0]->shape() == std::vector<int64_t>{128, 256});
      CHECK(tr[1]->operands[0]->dtype == DType::float32);  // staged in the source dtype, then cast
      REQUIRE(cast.size() == 1);
      CHECK(cast[0]->operands[0]->dtype == DType::bfloat16);
      CHECK(cast[0]->operands[1]->tensor == tr[1]->operands[0]->tensor);
    } else {
      CHECK(cp.back()->operands[0]->dtype == DType::bfloat16);  // the cast: in the transfer, element by element
      CHECK(cast.empty());
    }
  }
}
