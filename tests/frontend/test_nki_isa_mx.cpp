// test_nki_isa_mx.cpp - nki.isa bindings of frontend/nki_isa_stt.cpp (scalar_tensor_tensor, activate2, nc_n_gather)
// and nki_isa_tensor_mx.cpp (the MX instructions): lowering to ISA ops and located errors with exact messages.
#include "helpers.h"

using nkisim::isa::ActFunc;
using nkisim::isa::AluOp;
using nkisim::isa::DType;
using nkisim::isa::Opcode;
using nkisim::isa::ReduceCmd;
namespace ir = nkisim::ir;


TEST_CASE("nki.isa.scalar_tensor_tensor: operands, ops, reverse flags and errors") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    b = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    s = nl.ndarray((128, 1), dtype=nl.float32)\n"
      "    d = nl.ndarray((128, 64), dtype=nl.float32)\n"
      "    nisa.scalar_tensor_tensor(d, a, nl.subtract, s, nl.multiply, b)\n"
      "    nisa.scalar_tensor_tensor(dst=d, data=a, op0=nl.add, operand0=2.5, op1=nl.maximum, operand1=b,\n"
      "                              reverse0=True, reverse1=True)\n",
      "trn1");
  auto ops = ops_of(k, Opcode::scalar_tensor_tensor);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0]->params.op0 == AluOp::subtract);
  CHECK(ops[0]->params.op1 == AluOp::multiply);
  CHECK(ops[0]->operands[2].has_value());
  CHECK(ops[0]->operands[3].has_value());
  CHECK_FALSE(ops[1]->operands[2].has_value());
  CHECK(ops[1]->params.imm0 == 2.5f);
  CHECK(ops[1]->params.reverse0);
  CHECK(ops[1]->params.reverse1);

  const std::string head =
      "    a = nl.ndarray((128, 64), dtype=nl.float32)\n"
      "    b = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)\n"
      "    c = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.psum)\n"
      "    d = nl.ndarray((128, 64), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.scalar_tensor_tensor(d, a, nl.bitwise_and, 1.0, nl.add, a)\n", "trn3") ==
        "10:5: scalar_tensor_tensor: op0 must be an arithmetic op, got 'bitwise_and'");
  CHECK(body_error(head + "    nisa.scalar_tensor_tensor(d, a, nl.add, 1.0, nl.rsqrt, a)\n", "trn3") ==
        "10:5: scalar_tensor_tensor: op1 must be an arithmetic op, got 'rsqrt'");
  CHECK(body_error(head + "    nisa.scalar_tensor_tensor(d, b, nl.add, 1.0, nl.add, c)\n", "trn3") ==
        "10:5: scalar_tensor_tensor: data and operand1 cannot both be in PSUM");
  CHECK(body_error(head + "    nisa.scalar_tensor_tensor(d, a, nl.add, a, nl.add, a)\n", "trn3") ==
        "10:5: scalar_tensor_tensor: operand 'operand0' must be a [128, 1] tile (one value per partition), got 128 "
        "partitions x 64 elements");
  CHECK(body_error(head + "    nisa.scalar_tensor_tensor(d, a, nl.add, 1.0, nl.add, a[:, 0:32])\n", "trn3") ==
        "10:5: scalar_tensor_tensor: operand 'operand1' has 128 partitions x 32 elements but 'dst' has 128 partitions x 64 elements");
}

TEST_CASE("nki.isa.activate2: lowering with reduce_res, imm tiles, and errors") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 64), dtype=nl.float32)\n"
      "    s = nl.ndarray((128, 1), dtype=nl.float32)\n"
      "    r = nl.ndarray((128, 1), dtype=nl.float32)\n"
      "    d = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    nisa.activate2(d, nl.prelu, a, s, 0.5, nl.multiply, nl.subtract, relu_param=0.2, reverse1=True,\n"
      "                   reduce_op=nl.abs_max, reduce_res=r, reduce_cmd=nisa.reduce_cmd.reset_reduce)\n"
      "    nisa.activate2(dst=d, op=nl.exp, data=a, imm0=None, imm1=None, op0=nl.bypass, op1=None)\n", "trn3");
  auto ops = ops_of(k, Opcode::activate2);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0]->params.func == ActFunc::prelu);
  CHECK(ops[0]->params.op0 == AluOp::multiply);
  CHECK(ops[0]->params.op1 == AluOp::subtract);
  CHECK(ops[0]->operands[2].has_value());
  CHECK(ops[0]->params.imm1 == 0.5f);
  CHECK(ops[0]->params.relu_param == 0.2f);
  CHECK(ops[0]->params.reverse1);
  CHECK(ops[0]->params.reduce_op == AluOp::abs_max);
  CHECK(ops[0]->params.reduce_cmd == ReduceCmd::reset_reduce);
  CHECK(ops[1]->params.op0 == AluOp::bypass);
  CHECK(ops[1]->params.op1 == AluOp::bypass);
  CHECK(ops_of(k, Opcode::act_read_accumulator).size() == 1);

  const std::string head =
      "    a = nl.ndarray((128, 64), dtype=nl.float32)\n"
      "    s = nl.ndarray((128, 1), dtype=nl.float32)\n"
      "    h = nl.ndarray((128, 1), dtype=nl.bfloat16)\n"
      "    d = nl.ndarray((128, 64), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, 1.0, 2.0, nl.multiply, nl.add)\n", "trn2") ==
        "10:5: activate2: not available on trn2 (trn3 only)");
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, 1.0, 2.0, nl.add, nl.add)\n", "trn3") ==
        "10:5: activate2: (op0, op1) = (add, add) is not supported; allowed: (multiply, add), (multiply, subtract), "
        "(multiply, bypass), (add, bypass), (subtract, bypass), (bypass, bypass)");
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, None, 2.0, nl.multiply, nl.add)\n", "trn3") ==
        "10:5: activate2: imm0 is required with op0=nl.multiply");
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, s, h, nl.multiply, nl.add)\n", "trn3") ==
        "10:5: activate2: imm0 and imm1 tiles must have the same dtype, got float32 and bfloat16");
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, 1.0, 2.0, nl.multiply, nl.add, reduce_op=nl.multiply,\n"
                          "                   reduce_cmd=nisa.reduce_cmd.reduce)\n", "trn3") ==
        "10:5: activate2: reduce_op must be add, maximum, minimum, abs_max or abs_min, got 'multiply'");
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, 1.0, 2.0, nl.multiply, nl.add,\n"
                          "                   reduce_cmd=nisa.reduce_cmd.reduce)\n", "trn3") ==
        "10:5: activate2: reduce_cmd=reduce needs reduce_op");
  CHECK(body_error(head + "    nisa.activate2(d, nl.exp, a, 1.0, 2.0, nl.multiply, nl.add, reduce_op=nl.add,\n"
                          "                   reduce_cmd=nisa.reduce_cmd.load_reduce)\n", "trn3") ==
        "10:5: activate2: reduce_cmd load_reduce is not supported by activate2 (no initial value)");
  CHECK(body_error(head + "    nisa.activate2(d, nl.add, a, 1.0, 2.0, nl.multiply, nl.add)\n", "trn3") ==
        "10:5: activate2: op must be an activation function such as nl.exp, got nl.add");
}

TEST_CASE("nki.isa.nc_n_gather: operands and errors") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 4, 100), dtype=nl.bfloat16)\n"
      "    i = nl.ndarray((128, 700), dtype=nl.uint32)\n"
      "    d = nl.ndarray((128, 700), dtype=nl.bfloat16)\n"
      "    nisa.nc_n_gather(d, a, i)\n",
      "trn1");
  CHECK(ops_of(k, Opcode::nc_n_gather).size() == 1);
  const std::string head =
      "    a = nl.ndarray((128, 100), dtype=nl.float32)\n"
      "    i = nl.ndarray((128, 50), dtype=nl.uint32)\n"
      "    j = nl.ndarray((128, 50), dtype=nl.int32)\n"
      "    d = nl.ndarray((128, 50), dtype=nl.float32)\n";
  CHECK(body_error(head + "    nisa.nc_n_gather(d, a, j)\n", "trn3") == "10:5: nc_n_gather: indices must be uint32, got int32");
  CHECK(body_error(head + "    nisa.nc_n_gather(d[:, 0:40], a, i)\n", "trn3") ==
        "10:5: nc_n_gather: operand 'indices' has 128 partitions x 50 elements but 'dst' has 128 partitions x 40 elements");
  CHECK(body_error(head + "    nisa.nc_n_gather(d, a[0:64, :], i)\n", "trn3") ==
        "10:5: nc_n_gather: operand 'data' covers 64 partitions but 'dst' covers 128");
  CHECK(body_error(head + "    nisa.nc_n_gather(i, a, i)\n", "trn3") ==
        "10:5: nc_n_gather: dst dtype uint32 differs from data dtype float32 (a gather copies raw elements)");
  CHECK(body_error(head + "    p = nl.ndarray((128, 50), dtype=nl.float32, buffer=nl.psum)\n"
                          "    nisa.nc_n_gather(p, a, i)\n", "trn3") ==
        "11:5: nc_n_gather: operand 'dst' must be in SBUF, but 'p' is in PSUM");
}

TEST_CASE("nki.isa.quantize_mx: lowering, trn3 only, and errors") {
  auto k = compile_body(
      "    a = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    q = nl.ndarray((128, 16), dtype=nl.float8_e4m3fn_x4)\n"
      "    s = nl.ndarray((128, 16), dtype=nl.float8_e8m0fnu)\n"
      "    nisa.quantize_mx(q, a, s)\n", "trn3");
  CHECK(ops_of(k, Opcode::quantize_mx).size() == 1);
  const std::string head =
      "    a = nl.ndarray((64, 64), dtype=nl.bfloat16)\n"
      "    f = nl.ndarray((64, 64), dtype=nl.float32)\n"
      "    q = nl.ndarray((64, 16), dtype=nl.float8_e5m2_x4)\n"
      "    s = nl.ndarray((64, 16), dtype=nl.uint8)\n";
  CHECK(body_error(head + "    nisa.quantize_mx(q, a, s)\n", "trn2") == "10:5: quantize_mx: not available on trn2 (trn3 only)");
  CHECK(body_error(head + "    nisa.quantize_mx(q, f, s)\n", "trn3") == "10:5: quantize_mx: src must be bfloat16 or float16, got float32");
  CHECK(body_error(head + "    nisa.quantize_mx(s, a, s)\n", "trn3") ==
        "10:5: quantize_mx: dst must be float8_e4m3fn_x4 or float8_e5m2_x4, got uint8");
  CHECK(body_error(head + "    nisa.quantize_mx(q[:, 0:8], a, s)\n", "trn3") ==
        "10:5: quantize_mx: dst has 64 partitions x 8 elements but src [64, 64] quantizes to [64, 16] x4 elements");
  CHECK(body_error(head + "    nisa.quantize_mx(q[0:32, :], a[0:32, 0:64], s[0:2, :])\n", "trn3") ==
        "10:5: quantize_mx: dst_scale has 2 partitions x 16 elements; the scales of 32 data partitions x 16 elements need at least 4 partitions (scale of partition p at row (p/8/4)*32 + (p/8)%4) x 16 elements");
  CHECK(body_error(head + "    nisa.quantize_mx(q[0:16, :], a[0:16, :], s)\n", "trn3") ==
        "10:5: quantize_mx: src has 16 partitions; MX data needs a multiple of 32 (at most 128)");
  CHECK(body_error(head + "    nisa.quantize_mx(q, a, f[:, 0:16])\n", "trn3") ==
        "10:5: quantize_mx: dst_scale must be float8_e8m0fnu or uint8, got float32");
}

TEST_CASE("nki.isa.nc_matmul_mx: load_stationary_mx + multiply_moving_mx, accumulate inference, errors") {
  auto k = compile_body(
      "    st = nl.ndarray((128, 128), dtype=nl.float8_e4m3fn_x4)\n"
      "    mv = nl.ndarray((128, 512), dtype=nl.float4_e2m1fn_x4)\n"
      "    ss = nl.ndarray((128, 128), dtype=nl.uint8)\n"
      "    ms = nl.ndarray((128, 512), dtype=nl.float8_e8m0fnu)\n"
      "    d = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
      "    nisa.nc_matmul_mx(d, st, mv, ss, ms)\n"
      "    nisa.nc_matmul_mx(dst=d, stationary=st, moving=mv, stationary_scale=ss, moving_scale=ms,\n"
      "                      tile_position=(0, 0), tile_size=(128, 128))\n"
      "    nisa.nc_matmul_mx(d, st, mv, ss, ms, accumulate=False)\n", "trn3");
  CHECK(ops_of(k, Opcode::load_stationary_mx).size() == 3);
  auto mm = ops_of(k, Opcode::multiply_moving_mx);
  REQUIRE(mm.size() == 3);
  CHECK_FALSE(mm[0]->params.accumulate);
  CHECK(mm[1]->params.accumulate);
  CHECK_FALSE(mm[2]->params.accumulate);

  const std::string head =
      "    st = nl.ndarray((32, 8), dtype=nl.float8_e5m2_x4)\n"
      "    mv = nl.ndarray((32, 16), dtype=nl.float8_e4m3fn_x4)\n"
      "    ss = nl.ndarray((4, 8), dtype=nl.uint8)\n"
      "    ms = nl.ndarray((4, 16), dtype=nl.uint8)\n"
      "    d = nl.ndarray((8, 16), dtype=nl.float32, buffer=nl.psum)\n"
      "    b = nl.ndarray((32, 8), dtype=nl.bfloat16)\n";
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d, st, mv, ss, ms)\n", "trn2") ==
        "12:5: nc_matmul_mx: not available on trn2 (trn3 only)");
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d, b, mv, ss, ms)\n", "trn3") ==
        "12:5: nc_matmul_mx: stationary must be float8_e5m2_x4, float8_e4m3fn_x4 or float4_e2m1fn_x4, got bfloat16");
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d, st, mv, ss[0:2, :], ms)\n", "trn3") ==
        "12:5: nc_matmul_mx: stationary_scale has 2 partitions x 8 elements; the scales of 32 data partitions x 8 "
        "elements need at least 4 partitions (scale of partition p at row (p/8/4)*32 + (p/8)%4) x 8 elements");
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d[0:7, :], st[:, 0:7], mv, ss[:, 0:7], ms)\n", "trn3") ==
        "12:5: nc_matmul_mx: stationary has 7 elements per partition; it needs an even count of at most 128 (the PE columns)");
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d, st, mv[:, 0:8], ss, ms[:, 0:8])\n", "trn3") ==
        "12:5: nc_matmul_mx: dst has shape (8, 16) but stationary.T @ moving has shape (8, 8)");
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d, st, mv, ss, ms, tile_position=(0, 64), tile_size=(32, 64))\n", "trn3") ==
        "12:5: nc_matmul_mx: only row tiling is supported: the column tile size must be 128 at column 0, got size 64 "
        "at 64");
  CHECK(body_error(head + "    e = nl.ndarray((8, 16), dtype=nl.float16, buffer=nl.psum)\n"
                          "    nisa.nc_matmul_mx(e, st, mv, ss, ms)\n", "trn3") ==
        "13:5: nc_matmul_mx: dst must be float32 or bfloat16, got float16");
  // accumulate=None over a PSUM tile only half of which holds an earlier product: the error names nc_matmul_mx.
  CHECK(body_error(head + "    nisa.nc_matmul_mx(d, st, mv, ss, ms)\n    nisa.memset(dst=d[0:4, :], value=0.0)\n"
                          "    nisa.nc_matmul_mx(d, st, mv, ss, ms)\n", "trn3") ==
        "14:5: nc_matmul_mx: cannot infer accumulate for dst 'd': 64 of its 128 elements hold an earlier matmul "
        "result and the others do not; pass accumulate=True or accumulate=False");
}

TEST_CASE("MX dtypes in the language: nl names, memset only with 0") {
  auto k = compile_body(
      "    q = nl.ndarray((32, 4), dtype=nl.float8_e5m2_x4)\n"
      "    f = nl.ndarray((32, 4), dtype=nl.float4_e2m1fn_x4)\n"
      "    nisa.memset(q, 0)\n"
      "    nisa.memset(dst=f, value=0.0)\n", "trn3");
  CHECK(ops_of(k, Opcode::memset).size() == 2);
  CHECK(body_error("    q = nl.ndarray((32, 4), dtype=nl.float8_e4m3fn_x4)\n    nisa.memset(q, 1.0)\n", "trn3") ==
        "7:5: memset: dst has the packed MX dtype float8_e4m3fn_x4; only value 0 is allowed");
}
