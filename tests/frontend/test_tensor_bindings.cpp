// test_tensor_bindings.cpp - nki.isa Tensor Engine bindings: nc_matmul (LS + MM, accumulate inference,
// shape and dtype errors), nc_transpose (engine choice, limits) and matmul_perf_mode.
#include "helpers.h"

using nkisim::isa::DType;
using nkisim::isa::Opcode;
namespace ir = nkisim::ir;

namespace {
// x is a [128, 512] bfloat16 tensor here.
ir::Kernel bf16_body(const std::string& body, const std::string& target = "trn2") {
  return compile_body(body, target, spec({128, 512}, DType::bfloat16));
}
std::string err(const std::string& body, const std::string& target = "trn2") {
  return body_error(body, target, spec({128, 512}, DType::bfloat16));
}
// SBUF tiles a [128, 128] (stationary), b [128, 512] (moving) of bf16 and a PSUM tile p [128, 512] fp32.
const char* kTiles =
    "    a = nl.ndarray((128, 128), dtype=nl.bfloat16)\n"
    "    b = nl.ndarray((128, 512), dtype=nl.bfloat16)\n"
    "    p = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n";
}  // namespace

TEST_CASE("nc_matmul: load_stationary then multiply_moving at the call, accumulate inferred per PSUM element") {
  ir::Kernel k = bf16_body(std::string(kTiles) +
                              "    for i in nl.sequential_range(3):\n"
                              "        nisa.nc_matmul(dst=p, stationary=a, moving=b)\n"  // line 10
                              "    q = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
                              "    nisa.nc_matmul(q, a, b)\n"
                              "    nisa.nc_matmul(q[0:128, 0:256], a, b[:, 0:256], accumulate=False)\n"
                              "    nisa.nc_matmul(q[0:128, 0:256], a, b[:, 0:256])\n"
                              "    nisa.memset(dst=q, value=0.0)\n"
                              "    nisa.nc_matmul(q, a, b)\n"
                              "    nisa.nc_matmul(p, a, b, accumulate=False)\n"
                              "    nisa.nc_matmul(q, a, b, accumulate=True)\n");
  std::vector<std::pair<Opcode, bool>> seen;
  for (auto& op : k.ops)
    if (op.opcode == Opcode::load_stationary || op.opcode == Opcode::multiply_moving)
      seen.emplace_back(op.opcode, op.params.accumulate);
  REQUIRE(seen.size() == 18);
  const bool acc[] = {false, true, true, false, false, true, false, false, true};
  for (size_t i = 0; i < 9; ++i) {
    CAPTURE(i);
    CHECK(seen[2 * i].first == Opcode::load_stationary);
    CHECK(seen[2 * i + 1].first == Opcode::multiply_moving);
    CHECK(seen[2 * i + 1].second == acc[i]);
  }
  // LS and MM share the call's location; LS reads the stationary, MM the moving and writes dst.
  const ir::Op* ls = nullptr;
  const ir::Op* mm = nullptr;
  for (auto& op : k.ops) {
    if (!ls && op.opcode == Opcode::load_stationary) ls = &op;
    if (!mm && op.opcode == Opcode::multiply_moving) mm = &op;
  }
  REQUIRE((ls && mm));
  CHECK(ls->loc.line == 10);
  CHECK(mm->loc.line == 10);
  CHECK(k.tensors[ls->operands[0]->tensor].name == "a");
  CHECK(k.tensors[mm->operands[0]->tensor].name == "p");
  CHECK(k.tensors[mm->operands[1]->tensor].name == "b");
}

TEST_CASE("nc_matmul: accumulate inference over pieces of a PSUM tile (column halves, a strided overwrite)") {
  // Two column halves written by matmuls make the whole tile "matmul-written": the next full-tile matmul
  // accumulates. A memset of a [64, 100] corner then leaves a mix, which is an error naming the counts.
  ir::Kernel k = bf16_body(std::string(kTiles) +
                           "    nisa.nc_matmul(p[:, 0:256], a, b[:, 0:256])\n"
                           "    nisa.nc_matmul(p[:, 256:512], a, b[:, 256:512])\n"
                           "    nisa.nc_matmul(p, a, b)\n"
                           "    nisa.nc_matmul(p[:, 128:384], a, b[:, 0:256])\n");
  std::vector<bool> acc;
  for (auto& op : k.ops)
    if (op.opcode == Opcode::multiply_moving) acc.push_back(op.params.accumulate);
  CHECK(acc == std::vector<bool>{false, false, true, true});
  CHECK(err(std::string(kTiles) + "    nisa.nc_matmul(p, a, b)\n    nisa.memset(dst=p[0:64, 0:100], value=0.0)\n"
                                  "    nisa.nc_matmul(p, a, b)\n") ==
        "11:5: nc_matmul: cannot infer accumulate for dst 'p': 59136 of its 65536 elements hold an earlier matmul "
        "result and the others do not; pass accumulate=True or accumulate=False");
  // A memset of every other column leaves half: strided ranges are counted element by element.
  CHECK(err(std::string(kTiles) + "    nisa.nc_matmul(p, a, b)\n    nisa.memset(dst=p[:, 0:512:2], value=0.0)\n"
                                  "    nisa.nc_matmul(p, a, b)\n") ==
        "11:5: nc_matmul: cannot infer accumulate for dst 'p': 32768 of its 65536 elements hold an earlier matmul "
        "result and the others do not; pass accumulate=True or accumulate=False");
}

TEST_CASE("nc_matmul: shape, dtype and mode errors are located at the call") {
  const std::string t = kTiles;
  CHECK(err(t + "    nisa.nc_matmul(p, a, b[0:64])\n") ==
        "9:5: nc_matmul: stationary and moving must have the same partition (contraction) size K, got 128 and 64");
  CHECK(err(t + "    s = nl.ndarray((128, 256), dtype=nl.bfloat16)\n    nisa.nc_matmul(p, s, b)\n") ==
        "10:5: nc_matmul: stationary [K=128, M=256] does not fit the 128 x 128 PE array");
  CHECK(err(t + "    m = nl.ndarray((128, 1024), dtype=nl.bfloat16)\n"
                "    r = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)\n    nisa.nc_matmul(r, a, m)\n") ==
        "11:5: nc_matmul: moving free size N=1024 exceeds 512 (gemm_moving_fmax: one PSUM bank of float32)");
  CHECK(err(t + "    nisa.nc_matmul(p[0:64], a, b)\n") ==
        "9:5: nc_matmul: dst has shape (64, 512) but stationary.T @ moving has shape (128, 512)");
  CHECK(err(t + "    nisa.nc_matmul(p, a, b[:, 0:256])\n") ==
        "9:5: nc_matmul: dst has shape (128, 512) but stationary.T @ moving has shape (128, 256)");
  CHECK(err(t + "    s = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.nc_matmul(p, s, b)\n") ==
        "10:5: nc_matmul: float32/tfloat32 inputs must pair with float32/tfloat32, got stationary float32 and moving "
        "bfloat16");
  CHECK(err(t + "    s = nl.ndarray((128, 128), dtype=nl.int8)\n    nisa.nc_matmul(p, s, b)\n") ==
        "10:5: nc_matmul: stationary dtype int8 is not a Tensor Engine input dtype (expected float8_e4m3, "
        "float8_e5m2, bfloat16, float16, tfloat32 or float32)");
  CHECK(err(t + "    r = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.psum)\n    nisa.nc_matmul(r, a, b)\n") ==
        "10:5: nc_matmul: dst must be float32 on trn2, got bfloat16");
  CHECK(err(t + "    r = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.psum)\n    nisa.nc_matmul(r, a, b)\n",
            "trn3") == "no error");
  CHECK(err(t + "    nisa.nc_matmul(b, a, b)\n") == "9:5: nc_matmul: operand 'dst' must be in PSUM, but 'b' is in SBUF");
  CHECK(err(t + "    nisa.nc_matmul(p, p, b)\n") == "9:5: nc_matmul: operand 'stationary' must be in SBUF, but 'p' is in PSUM");
  CHECK(err(t + "    nisa.nc_matmul(p, a, b, is_transpose=True)\n") == "no error");  // fp32: exact values
  CHECK(err(t + "    r = nl.ndarray((128, 512), dtype=nl.float16, buffer=nl.psum)\n"
                "    nisa.nc_matmul(r, a, b, is_transpose=True)\n") ==
        "10:5: nc_matmul: with is_transpose=True dst must have the stationary's dtype bfloat16 or float32, got "
        "float16");
  CHECK(err(t + "    r = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.psum)\n"
                "    nisa.nc_matmul(r, a, a, is_transpose=True, accumulate=True)\n") ==
        "10:5: nc_matmul: transpose mode cannot accumulate");
  CHECK(err(t + "    nisa.nc_matmul(p, a, b, tile_position=(0, 0))\n") ==
        "9:5: nc_matmul: tile_position and tile_size must be given together");
  CHECK(err(t + "    nisa.nc_matmul(p[0:64], a[0:64, 0:64], b[0:64], tile_position=(32, 0), tile_size=(64, 64))\n") ==
        "9:5: nc_matmul: tile_position row 32 must be a multiple of the tile size 64 inside the 128 x 128 PE array");
  CHECK(err(t + "    nisa.nc_matmul(p, a, b, tile_position=(0, 0), tile_size=(64, 128))\n") ==
        "9:5: nc_matmul: stationary (K=128, M=128) does not fit tile_size (64, 128)");
  CHECK(err(t + "    nisa.nc_matmul(p[0:32], a[0:32, 0:32], b[0:32], tile_position=(32, 96), tile_size=(32, 32))\n") ==
        "no error");
  CHECK(err(t + "    nisa.nc_matmul(p[0:32], a[0:32, 0:32], b[0:32], tile_position=(32, 96), tile_size=(32, 32))\n",
            "trn1") == "9:5: nc_matmul: tile_size row size must be 64 or 128, got 32");
  CHECK(err(t + "    nisa.nc_matmul(p[:, 0:256], a, b[:, 0:256])\n    nisa.nc_matmul(p, a, b)\n") ==
        "10:5: nc_matmul: cannot infer accumulate for dst 'p': 32768 of its 65536 elements hold an earlier matmul "
        "result and the others do not; pass accumulate=True or accumulate=False");
  CHECK(err(t + "    nisa.nc_matmul(p, a, b, perf_mode='fast')\n") ==
        "9:5: nc_matmul: perf_mode must be matmul_perf_mode.none or matmul_perf_mode.double_row, got 'fast'");
}

TEST_CASE("nc_matmul: perf_mode=double_row (FP8, [K, 2, M] x [K, 2, N])") {
  const std::string fp8 =
      "    s = nl.ndarray((128, 2, 128), dtype=nl.float8_e4m3)\n"
      "    m = nl.ndarray((128, 2, 512), dtype=nl.float8_e5m2)\n"
      "    r = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n";
  ir::Kernel k = bf16_body(fp8 + "    nisa.nc_matmul(r, s, m, perf_mode=nisa.matmul_perf_mode.double_row)\n");
  int n = 0;
  for (auto& op : k.ops)
    if (op.opcode == Opcode::load_stationary || op.opcode == Opcode::multiply_moving) {
      CHECK(op.params.double_row);
      ++n;
    }
  CHECK(n == 2);
  CHECK(err(fp8 + "    nisa.nc_matmul(r, s, m, perf_mode=nisa.matmul_perf_mode.double_row)\n", "trn1") ==
        "9:5: nc_matmul: double_row needs trn2 or later, not trn1");
  CHECK(err(fp8 + "    nisa.nc_matmul(r, s.reshape((128, 256)), m, perf_mode='double_row')\n") ==
        "9:5: nc_matmul: perf_mode=double_row needs stationary of shape (K, 2, M), got (128, 256)");
  CHECK(err(std::string(kTiles) + "    nisa.nc_matmul(p, a, b, perf_mode=nisa.matmul_perf_mode.double_row)\n") ==
        "9:5: nc_matmul: double_row needs an fp8 stationary, got bfloat16");
  CHECK(err(std::string(kTiles) + "    nisa.nc_matmul(p, a, b, perf_mode=nisa.matmul_perf_mode.none)\n") == "no error");
}

TEST_CASE("nc_transpose: Tensor Engine for a PSUM dst, Vector Engine for SBUF, limits and shapes") {
  ir::Kernel k = bf16_body(
      "    a = nl.ndarray((128, 64), dtype=nl.bfloat16)\n"
      "    t = nl.ndarray((64, 128), dtype=nl.bfloat16, buffer=nl.psum)\n"
      "    nisa.nc_transpose(dst=t, data=a)\n"
      "    v = nl.ndarray((16, 32), dtype=nl.bfloat16)\n"
      "    nisa.nc_transpose(v, a[0:32, 0:16])\n"
      "    w = nl.ndarray((16, 32), dtype=nl.bfloat16, buffer=nl.psum)\n"
      "    nisa.nc_transpose(w, a[0:32, 0:16], engine=nisa.engine.vector)\n");
  std::vector<Opcode> ops;
  for (auto& op : k.ops) ops.push_back(op.opcode);
  CHECK(ops == std::vector<Opcode>{Opcode::nc_transpose_pe, Opcode::nc_transpose_ve, Opcode::nc_transpose_ve});
  const std::string a = "    a = nl.ndarray((128, 64), dtype=nl.bfloat16)\n";
  CHECK(err(a + "    t = nl.ndarray((128, 64), dtype=nl.bfloat16, buffer=nl.psum)\n    nisa.nc_transpose(t, a)\n") ==
        "8:5: nc_transpose: dst has 128 partitions x 64 elements but the transpose of data is 64 x 128");
  CHECK(err(a + "    t = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.psum)\n    nisa.nc_transpose(t, a)\n") ==
        "8:5: nc_transpose: dst dtype float32 differs from data dtype bfloat16 (a transpose keeps the dtype)");
  CHECK(err(a + "    t = nl.ndarray((64, 128), dtype=nl.bfloat16)\n    nisa.nc_transpose(t, a)\n") ==
        "8:5: nc_transpose: data is 128 x 64; the Vector Engine transposes at most 32 x 32");
  CHECK(err(a + "    t = nl.ndarray((64, 128), dtype=nl.bfloat16)\n    nisa.nc_transpose(t, a, "
                "engine=nisa.engine.tensor)\n") == "8:5: nc_transpose: operand 'dst' must be in PSUM, but 't' is in SBUF");
  CHECK(err(a + "    t = nl.ndarray((64, 128), dtype=nl.bfloat16)\n    nisa.nc_transpose(t, a, "
                "engine=nisa.engine.scalar)\n") ==
        "8:5: nc_transpose: engine=scalar cannot execute this instruction (allowed: tensor, vector)");
  CHECK(err("    a = nl.ndarray((128, 256), dtype=nl.bfloat16)\n"
            "    t = nl.ndarray((128, 256), dtype=nl.bfloat16, buffer=nl.psum)\n    nisa.nc_transpose(t, a)\n") ==
        "8:5: nc_transpose: data has 256 elements per partition; the PE array transposes at most 128");
}
