// test_nki_isa_vector.cpp - nki.isa bindings of the Vector/Scalar/GpSimd extras: lowering to ISA ops and
// located errors (frontend/nki_isa_vector_*.cpp, nki_isa_elementwise.cpp).
#include "helpers.h"

using nkisim::isa::ActFunc;
using nkisim::isa::AluOp;
using nkisim::isa::DType;
using nkisim::isa::Opcode;
using nkisim::isa::ReduceCmd;
namespace ir = nkisim::ir;


TEST_CASE("nki.isa.tensor_reduce: axis folds into the operand shapes, keepdims, negate") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 4, 8, 16), dtype=nl.float32)\n"
      "    r1 = nl.ndarray((128, 4), dtype=nl.float32)\n"
      "    nisa.tensor_reduce(dst=r1, op=nl.add, data=a, axis=(2, 3))\n"
      "    r2 = nl.ndarray((128, 4, 8, 1), dtype=nl.float32)\n"
      "    nisa.tensor_reduce(r2, nl.maximum, a, -1, negate=True, keepdims=True)\n"
      "    r3 = nl.ndarray((128, 1), dtype=nl.float32)\n"
      "    nisa.tensor_reduce(dst=r3, op=nl.minimum, data=a, axis=[1, 2, 3])\n");
  std::vector<const ir::Op*> ops;
  for (auto& o : k.ops)
    if (o.opcode == Opcode::tensor_reduce) ops.push_back(&o);
  REQUIRE(ops.size() == 3);
  CHECK(ops[0]->params.op0 == AluOp::add);
  CHECK(ops[0]->operands[0]->num_elements() == 128 * 4);
  CHECK(ops[1]->params.op0 == AluOp::maximum);
  CHECK(ops[1]->params.negate);
  CHECK(ops[1]->operands[0]->num_elements() == 128 * 32);
  CHECK(ops[2]->operands[0]->num_elements() == 128);

  const std::string head = "    a = nl.ndarray((128, 4, 8), dtype=nl.float32)\n    r = nl.ndarray((128, 4), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.tensor_reduce(dst=r, op=nl.add, data=a, axis=1)\n") ==
        "8:5: tensor_reduce: axis must be the trailing free axes (e.g. 2 or a run ending at 2), got 1");
  CHECK(body_error(head + "    nisa.tensor_reduce(dst=r, op=nl.add, data=a, axis=0)\n") ==
        "8:5: tensor_reduce: cannot reduce along the partition axis 0");
  CHECK(body_error(head + "    nisa.tensor_reduce(dst=r, op=nl.add, data=a, axis=(1, 2))\n") ==
        "8:5: tensor_reduce: dst has shape (128, 4) but reducing (128, 4, 8) over axis (1, 2) gives (128,)");
  CHECK(body_error(head + "    nisa.tensor_reduce(dst=r, op=nl.divide, data=a, axis=2)\n") ==
        "8:5: tensor_reduce: 'divide' cannot be used as a reduction");
  CHECK(body_error(head + "    nisa.tensor_reduce(dst=r, op=nl.bitwise_or, data=a, axis=2, negate=True)\n") ==
        "8:5: tensor_reduce: negate is only allowed with arithmetic reductions, not 'bitwise_or'");
  CHECK(body_error(head + "    nisa.tensor_reduce(dst=r, op=nl.add, data=a, axis=3)\n") ==
        "8:5: tensor_reduce: axis 3 is out of range for a 3-dimensional tensor");
}

TEST_CASE("nki.isa.activation: reduce_res adds act_read_accumulator, scalar bias on trn2+, activation_reduce") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 512), dtype=nl.float32)\n"
      "    s = nl.ndarray((128, 1), dtype=nl.float32)\n"
      "    nisa.activation(dst=a, op=nl.exp, data=a, bias=-1.5, reduce_op=nl.add, reduce_res=s,\n"
      "                    reduce_cmd=nisa.reduce_cmd.reset_reduce)\n"
      "    nisa.activation_reduce(dst=a, op=nl.square, data=a, reduce_op=nl.add, reduce_res=s, scale=2.0)\n");
  REQUIRE(k.ops.size() == 4);
  CHECK(k.ops[0].opcode == Opcode::activation);
  CHECK(k.ops[0].params.bias_imm == -1.5f);
  CHECK(k.ops[0].params.reduce_cmd == ReduceCmd::reset_reduce);
  CHECK(k.ops[0].params.reduce_op == AluOp::add);
  CHECK(!k.ops[0].operands[2].has_value());
  CHECK(k.ops[1].opcode == Opcode::act_read_accumulator);
  CHECK(k.ops[1].loc.line == k.ops[0].loc.line);
  CHECK(k.ops[2].params.func == ActFunc::square);
  CHECK(k.ops[2].params.reduce_cmd == ReduceCmd::reset_reduce);
  CHECK(k.ops[2].params.scale == 2.0f);
  CHECK(k.ops[3].opcode == Opcode::act_read_accumulator);

  const std::string head = "    a = nl.ndarray((128, 512), dtype=nl.float32)\n    s = nl.ndarray((128, 1), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.activation(dst=a, op=nl.exp, data=a, bias=1.0)\n", "trn1") ==
        "8:5: activation: a scalar bias needs trn2 or later; on trn1 pass a [128, 1] bias tile");
  CHECK(body_error(head + "    nisa.activation(dst=a, op=nl.reciprocal, data=a, bias=s)\n", "trn1") ==
        "8:5: activation: op=reciprocal cannot take a bias on trn1");
  CHECK(body_error(head + "    nisa.activation(dst=a, op=nl.exp, data=a, reduce_op=nl.maximum, reduce_res=s)\n") ==
        "8:5: activation: reduce_op must be nl.add, got nl.maximum");
  CHECK(body_error(head + "    nisa.activation(dst=a, op=nl.exp, data=a, reduce_res=a)\n") ==
        "8:5: activation: reduce_res must have shape (128, 1), got (128, 512)");
  CHECK(body_error(head + "    nisa.activation(dst=a, op=nl.exp, data=a, reduce_cmd=nisa.reduce_cmd.load_reduce)\n") ==
        "8:5: activation: reduce_cmd load_reduce is not supported by activation (no initial value)");
  CHECK(body_error(head + "    nisa.activation_reduce(dst=a, op=nl.exp, data=a, reduce_op=nl.add)\n") ==
        "8:5: activation_reduce() missing required argument 'reduce_res'");
  CHECK(body_error(head + "    nisa.activation(dst=a, op=nl.exp, data=a, bias=s[0:64])\n") ==
        "8:5: activation: operand 'bias' must be a [128, 1] tile (one value per partition), got 64 partitions x 1 "
        "element");
}

TEST_CASE("nki.isa: generation-specific instructions are rejected at the kernel line") {
  const std::string head = "    a = nl.ndarray((128, 512), dtype=nl.float32)\n    b = nl.ndarray((128, 1), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.exponential(dst=a, src=a, max_value=b)\n") ==
        "8:5: exponential: not available on trn2 (trn3 only)");
  CHECK(compile_body(head + "    nisa.exponential(dst=a, src=a, max_value=b, reduce_res=b,\n"
                            "                     reduce_cmd=nisa.reduce_cmd.reset_reduce)\n", "trn3")
            .ops.size() == 1);
  CHECK(body_error(head + "    nisa.range_select(dst=a, on_true_tile=a, comp_op0=nl.less, comp_op1=nl.greater,\n"
                          "                      bound0=b, bound1=b)\n", "trn1") ==
        "8:5: range_select: not available on trn1 (trn2 and later)");
}

TEST_CASE("nki.isa accumulator and scan instructions: parameters and argument checks") {
  const std::string head = "    a = nl.ndarray((128, 512), dtype=nl.float32)\n    b = nl.ndarray((128, 1), dtype=nl.float32)\n";
  auto k = compile_body(head +
                        "    nisa.tensor_scalar_reduce(dst=a, data=a, op0=nl.multiply, operand0=2.0, reduce_op=nl.maximum,\n"
                        "        reduce_res=b, reduce_cmd=nisa.reduce_cmd.load_reduce, reduce_init=-5.0, reduce_res_negate=True)\n"
                        "    nisa.tensor_scalar_cumulative(dst=a, src=a, op0=nl.add, op1=nl.add, imm0=b, imm1=3.0,\n"
                        "        reduce_cmd=nisa.reduce_cmd.load_reduce)\n"
                        "    nisa.tensor_tensor_scan(dst=a, data0=a, data1=a, initial=b, op0=nl.multiply, op1=nl.add,\n"
                        "        reverse1=True)\n");
  REQUIRE(k.ops.size() == 3);
  const auto& r = k.ops[0].params;
  CHECK(r.op0 == AluOp::multiply);
  CHECK(r.imm0 == 2.0f);
  CHECK(r.reduce_op == AluOp::maximum);
  CHECK(r.reduce_cmd == ReduceCmd::load_reduce);
  CHECK(r.imm1 == -5.0f);
  CHECK(r.negate);
  CHECK(k.ops[0].operands[3].has_value());
  CHECK(k.ops[1].operands[2].has_value());  // imm0 as a [P,1] tile
  CHECK(k.ops[1].params.imm1 == 3.0f);
  CHECK(k.ops[2].operands[3].has_value());
  CHECK(k.ops[2].params.reverse1);
  CHECK(body_error(head + "    nisa.tensor_scalar_reduce(dst=a, data=a, op0=nl.add, operand0=1.0, reduce_op=nl.add,\n"
                          "        reduce_cmd=nisa.reduce_cmd.load_reduce)\n") ==
        "8:5: tensor_scalar_reduce: reduce_cmd=load_reduce needs reduce_init");
  CHECK(body_error(head + "    nisa.tensor_scalar_reduce(dst=a, data=a, op0=nl.add, operand0=1.0, reduce_op=nl.divide)\n") ==
        "8:5: tensor_scalar_reduce: reduce_op must be add, subtract, multiply, maximum or minimum, got 'divide'");
  CHECK(body_error(head + "    nisa.tensor_scalar_cumulative(dst=a, src=a, op0=nl.add, op1=nl.divide, imm0=1.0)\n") ==
        "8:5: tensor_scalar_cumulative: op1 must be add, subtract, multiply, maximum or minimum, got 'divide'");
  CHECK(body_error(head + "    p = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
                          "    nisa.tensor_tensor_scan(dst=a, data0=p, data1=p, initial=0.0, op0=nl.add, op1=nl.add)\n") ==
        "9:5: tensor_tensor_scan: data0 and data1 cannot both be in PSUM");
}

TEST_CASE("nki.isa.iota / affine_select: pattern, channel_multiplier, offset, checks") {
  auto k = compile_body(
      "    i = nl.ndarray((128, 4, 8), dtype=nl.int32)\n"
      "    nisa.iota(dst=i, pattern=[[8, 4], [-1, 8]], offset=5, channel_multiplier=32)\n"
      "    m = nl.ndarray((128, 512), dtype=nl.float32)\n"
      "    nisa.affine_select(dst=m, pattern=[[-1, 512]], channel_multiplier=1, on_true_tile=m,\n"
      "                       on_false_value=-1e9, cmp_op=nl.greater_equal, offset=-7)\n");
  REQUIRE(k.ops.size() == 2);
  const auto& p = k.ops[0].params;
  CHECK(p.offset == 5);
  CHECK(p.chan_mult == 32);
  CHECK((p.num0 == 1 && p.num1 == 1 && p.num2 == 4 && p.num3 == 8));
  CHECK((p.step2 == 8 && p.step3 == -1));
  const auto& q = k.ops[1].params;
  CHECK(q.op0 == AluOp::greater_equal);
  CHECK(q.imm0 == -1e9f);
  CHECK(q.offset == -7);
  CHECK((q.num3 == 512 && q.step3 == -1 && q.chan_mult == 1));
  const std::string head = "    i = nl.ndarray((128, 32), dtype=nl.int32)\n";
  CHECK(body_error(head + "    nisa.iota(dst=i, pattern=[[1, 30]])\n") ==
        "7:5: iota: the pattern covers 1x1x1x30 = 30 elements per partition but dst has 32");
  CHECK(body_error(head + "    nisa.iota(dst=i, pattern=[[1, 2]] * 5)\n") ==
        "7:5: iota: pattern must have 1 to 4 [step, num] pairs, got 5");
  CHECK(body_error(head + "    nisa.iota(dst=i, pattern=[[1, 32]], offset=0.5)\n") ==
        "7:5: iota: offset must be an int, got 'float'");
  CHECK(body_error(head + "    nisa.affine_select(dst=i, pattern=[[1, 32]], channel_multiplier=0, on_true_tile=i,\n"
                          "                       on_false_value=0, cmp_op=nl.add)\n") ==
        "7:5: affine_select: op0 (cmp_op) must be a comparison (equal, not_equal, greater, greater_equal, less or "
        "less_equal), got 'add'");
  CHECK(body_error("    p = nl.ndarray((128, 32), dtype=nl.int32, buffer=nl.psum)\n"
                   "    nisa.iota(dst=p, pattern=[[1, 32]])\n") ==
        "7:5: iota: operand 'dst' must be in SBUF, but 'p' is in PSUM");
}

TEST_CASE("nki.isa statistics, selection and search bindings check shapes and dtypes") {
  const std::string head = "    a = nl.ndarray((128, 512), dtype=nl.float32)\n    b = nl.ndarray((128, 6), dtype=nl.float32)\n";
  CHECK(compile_body(head + "    c = nl.ndarray((128, 2), dtype=nl.float32)\n    nisa.bn_stats(dst=b, data=a)\n"
                            "    nisa.bn_aggr(dst=c, data=b)\n    nisa.reciprocal(dst=a, data=a)\n"
                            "    e = nl.ndarray((128, 8), dtype=nl.float32)\n    nisa.max8(dst=e, src=a)\n"
                            "    u = nl.ndarray((128, 8), dtype=nl.uint32)\n"
                            "    nisa.nc_find_index8(dst=u, data=a, vals=e)\n"
                            "    nisa.nc_match_replace8(dst=a, data=a, vals=e, imm=0.0, dst_idx=u)\n"
                            "    q = nl.ndarray((128, 512), dtype=nl.uint8)\n"
                            "    nisa.tensor_copy_predicated(dst=a, src=2.5, predicate=q, reverse_pred=True)\n"
                            "    z = nl.ndarray((1, 512), dtype=nl.float32)\n"
                            "    nisa.tensor_partition_reduce(dst=z, op=nl.maximum, data=a)\n")
            .ops.size() == 8);
  CHECK(body_error(head + "    nisa.bn_stats(dst=b, data=x)\n").find("8:5: bn_stats: operand 'data' must be in SBUF or PSUM") == 0);
  // The size limit is a hardware rule: isa::verify at lowering, located at the call.
  CHECK(lowered_error(head + "    w = nl.ndarray((128, 1024), dtype=nl.float32)\n    nisa.bn_stats(dst=b, data=w)\n") ==
        "9:5: bn_stats: data has 1024 elements per partition; at most 512 (bn_stats_fmax)");
  CHECK(body_error(head + "    nisa.bn_aggr(dst=b, data=a)\n") ==
        "8:5: bn_aggr: operand 'dst' must have 2 elements per partition, got 6");
  CHECK(body_error(head + "    nisa.max8(dst=b, src=a)\n") == "8:5: max8: operand 'dst' must have 8 elements per partition, got 6");
  CHECK(body_error(head + "    e = nl.ndarray((128, 8), dtype=nl.float32)\n    nisa.nc_find_index8(dst=e, data=a, vals=e)\n") ==
        "9:5: nc_find_index8: operand 'dst' must be uint32 or uint16, got float32");
  CHECK(body_error(head + "    nisa.tensor_copy_predicated(dst=a, src=a, predicate=a)\n") ==
        "8:5: tensor_copy_predicated: operand 'predicate' must be uint8, uint16, uint32 or bool, got float32");
  CHECK(body_error(head + "    q = nl.ndarray((128, 512), dtype=nl.uint8)\n    h = nl.ndarray((128, 512), dtype=nl.bfloat16)\n"
                          "    nisa.tensor_copy_predicated(dst=a, src=h, predicate=q)\n") ==
        "10:5: tensor_copy_predicated: src and dst must have the same dtype, got bfloat16 and float32");
  CHECK(body_error(head + "    z = nl.ndarray((2, 512), dtype=nl.float32)\n"
                          "    nisa.tensor_partition_reduce(dst=z, op=nl.add, data=a)\n") ==
        "9:5: tensor_partition_reduce: dst must be a [1, 512] tile for data of 128 partitions x 512 elements, got 2 partitions x 512 elements");
  CHECK(body_error(head + "    q = nl.ndarray((128, 512), dtype=nl.uint8)\n"
                          "    nisa.select_reduce(dst=a, predicate=q, on_true=a, on_false=0.0, reduce_op=nl.add)\n") ==
        "9:5: select_reduce: reduce_op must be nl.maximum, got nl.add");
}

TEST_CASE("nki.isa shuffle, random numbers and GpSimd gathers: parameters and checks") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 64), dtype=nl.float32)\n"
      "    nisa.nc_stream_shuffle(dst=a, src=a, shuffle_mask=[(i + 1) % 32 for i in range(31)] + [255])\n"
      "    r = nl.ndarray((128, 64), dtype=nl.uint32)\n"
      "    nisa.rng(dst=r, engine=nisa.engine.gpsimd)\n"
      "    nisa.dropout(dst=a, data=a, prob=0.1)\n"
      "    s = nl.ndarray((1, 1), dtype=nl.uint32)\n"
      "    nisa.set_rng_seed(src_seeds=s)\n"
      "    st = nl.ndarray((128, 6), dtype=nl.uint32)\n"
      "    nisa.rand_get_state(dst=st)\n"
      "    ix = nl.ndarray((128, 2), dtype=nl.uint16)\n"
      "    g = nl.ndarray((128, 40), dtype=nl.float32)\n"
      "    nisa.local_gather(dst=g, src_buffer=a, index=ix, num_elem_per_idx=2, num_valid_indices=20)\n"
      "    z = nl.ndarray((128, 65), dtype=nl.int32)\n"
      "    nisa.nonzero_with_count(dst=z, src=a, index_offset=3, padding_val=-2)\n"
      "    v = nl.ndarray((128, 4), dtype=nl.bfloat16)\n"
      "    w = nl.ndarray((128, 4), dtype=nl.uint32)\n"
      "    h = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    nisa.topk(val_dst=v, idx_dst=w, src=h, n=1000)\n");
  REQUIRE(k.ops.size() == 8);
  CHECK(k.ops[0].params.shuffle0 == int32_t(0x04030201));
  CHECK(k.ops[0].params.shuffle7 == int32_t(0xff1f1e1d));
  CHECK(k.ops[1].engine == nkisim::isa::Engine::GpSimd);
  CHECK(k.ops[2].params.imm0 == 0.1f);
  CHECK((k.ops[5].params.elem_per_idx == 2 && k.ops[5].params.num_valid == 20));
  CHECK((k.ops[6].params.offset == 3 && k.ops[6].params.pad_val == -2));
  CHECK(k.ops[7].params.num_valid == 1000);

  const std::string head = "    a = nl.ndarray((128, 64), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.nc_stream_shuffle(dst=a, src=a, shuffle_mask=[0] * 31)\n") ==
        "7:5: nc_stream_shuffle: shuffle_mask must be a list of 32 source partitions (0-31, or 255 to keep)");
  CHECK(body_error(head + "    nisa.nc_stream_shuffle(dst=a, src=a, shuffle_mask=[40] * 32)\n") ==
        "7:5: nc_stream_shuffle: shuffle_mask[0] = 40 must be a partition 0-31 of the quadrant or 255");
  CHECK(body_error(head + "    nisa.rng(dst=a)\n") == "7:5: rng: operand 'dst' needs an integer dtype (random bits), got float32");
  CHECK(body_error("    r = nl.ndarray((128, 4), dtype=nl.uint32)\n    nisa.rng(dst=r, engine=nisa.engine.gpsimd)\n",
                   "trn1") == "7:5: rng: the GpSimd engine has no random number generator on trn1 (trn2 and later)");
  CHECK(body_error(head + "    nisa.rand2(dst=a, min=0.0, max=1.0)\n") == "7:5: rand2: not available on trn2 (trn3 only)");
  CHECK(body_error("    st = nl.ndarray((128, 6), dtype=nl.uint32)\n    nisa.rand_set_state(src_seeds=st)\n", "trn1") ==
        "7:5: rand_set_state: not available on trn1 (trn2 and later)");
  CHECK(body_error("    st = nl.ndarray((128, 6), dtype=nl.uint32)\n"
                   "    nisa.rand_set_state(src_seeds=st, engine=nisa.engine.vector)\n", "trn3") ==
        "7:5: rand_set_state: operand 'src_seeds' must have 24 elements per partition, got 6");
  CHECK(body_error(head + "    nisa.dropout(dst=a, data=a, prob=1.5)\n") == "7:5: dropout: prob must be in [0, 1], got 1.5");
  CHECK(body_error(head + "    ix = nl.ndarray((128, 2), dtype=nl.uint16)\n"
                          "    nisa.local_gather(dst=a, src_buffer=a, index=ix, num_elem_per_idx=3)\n") ==
        "8:5: local_gather: elem_per_idx (num_elem_per_idx) must be 1, 2, 4, 8, 16 or 32, got 3");
  CHECK(body_error(head + "    ix = nl.ndarray((128, 2), dtype=nl.uint16)\n"
                          "    nisa.local_gather(dst=a, src_buffer=a, index=ix)\n") ==
        "8:5: local_gather: dst must have num_valid x elem_per_idx = 32 elements per partition, got 64");
  CHECK(body_error(head + "    z = nl.ndarray((128, 64), dtype=nl.int32)\n    nisa.nonzero_with_count(dst=z, src=a)\n") ==
        "8:5: nonzero_with_count: operand 'dst' must have 65 elements per partition, got 64");
  CHECK(body_error("    s = nl.ndarray((1, 8), dtype=nl.float32)\n    d = nl.ndarray((1, 2, 8), dtype=nl.float32)\n"
                   "    nisa.sequence_bounds(dst=d, segment_ids=s)\n") == "no error");
  CHECK(body_error("    v = nl.ndarray((128, 4), dtype=nl.bfloat16)\n    w = nl.ndarray((128, 4), dtype=nl.uint32)\n"
                   "    h = nl.ndarray((128, 64), dtype=nl.bfloat16)\n    nisa.topk(val_dst=v, idx_dst=w, src=h, n=2000)\n") ==
        "9:5: topk: src must have at least ceil(n / 16) = 125 elements per partition for n = 2000, got 64");
}
