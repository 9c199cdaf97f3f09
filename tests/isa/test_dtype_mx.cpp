// test_dtype_mx.cpp - MX formats: exhaustive float8_e8m0fnu and fp4 e2m1 conversions against references computed
// here from the format definitions, the packed x4 dtypes (packing order, round trips) and the MX scale layout.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "isa/dtype.h"
#include "isa/mx.h"

using namespace nkisim::isa;

namespace {
bool same(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}
// e2m1 from its definition: sign, exponent e (2 bits, bias 1), mantissa m (1 bit); e = 0 is subnormal (m * 0.5).
float fp4_ref(uint32_t b) {
  const int s = (b >> 3) & 1, e = (b >> 1) & 3, m = b & 1;
  const double mag = e == 0 ? m * 0.5 : std::ldexp(1.0 + m * 0.5, e - 1);
  return float(s ? -mag : mag);
}
}  // namespace

TEST_CASE("float8_e8m0fnu: every bit pattern decodes to 2^(e-127), 0xFF is NaN, and encodes back") {
  for (uint32_t e = 0; e < 256; ++e) {
    CAPTURE(e);
    const float v = to_f32(DType::float8_e8m0fnu, e);
    if (e == 255) {
      CHECK(std::isnan(v));
      CHECK(from_f32(DType::float8_e8m0fnu, v) == 0xFFu);
      continue;
    }
    CHECK(v == float(std::ldexp(1.0, int(e) - 127)));  // exact: 2^-127 is an fp32 subnormal
    CHECK(from_f32(DType::float8_e8m0fnu, v) == e);
    // Rounding between neighbours: x1.25 rounds down, x1.5 (the tie) rounds up, x1.75 up (below 2^127).
    if (e < 254) {
      CHECK(from_f32(DType::float8_e8m0fnu, v * 1.25f) == e);
      CHECK(from_f32(DType::float8_e8m0fnu, v * 1.5f) == e + 1);
      CHECK(from_f32(DType::float8_e8m0fnu, v * 1.75f) == e + 1);
    }
  }
  CHECK(from_f32(DType::float8_e8m0fnu, 0.0f) == 0u);
  CHECK(from_f32(DType::float8_e8m0fnu, -1.0f) == 0xFFu);
  CHECK(from_f32(DType::float8_e8m0fnu, std::numeric_limits<float>::infinity()) == 0xFFu);
  CHECK(from_f32(DType::float8_e8m0fnu, std::numeric_limits<float>::max()) == 0xFFu);  // rounds to 2^128
}

TEST_CASE("fp4 e2m1: every bit pattern decodes, encodes back, and rounds to nearest even with saturation") {
  for (uint32_t b = 0; b < 16; ++b) {
    CAPTURE(b);
    CHECK(same(fp4_e2m1_to_f32(b), fp4_ref(b)));
    CHECK(f32_to_fp4_e2m1(fp4_ref(b)) == b);  // -0 keeps its sign
  }
  // Every fp32 value on a fine grid: the encoding is the nearest value, ties to the even code, saturating at 6.
  for (int i = -1000; i <= 1000; ++i) {
    const float x = float(i) / 128.0f;
    CAPTURE(x);
    const uint32_t got = f32_to_fp4_e2m1(x);
    float best = 0;
    uint32_t best_code = 99;
    double best_d = 1e30;
    for (uint32_t c = 0; c < 8; ++c) {
      const float v = fp4_ref(c);
      const double d = std::fabs(std::fabs(double(x)) - v);
      if (d < best_d || (d == best_d && c % 2 == 0)) {
        best_d = d;
        best = v;
        best_code = c;
      }
    }
    if (std::fabs(x) > 6) best_code = 7;
    CHECK((got & 7u) == best_code);
    CHECK(fp4_e2m1_to_f32(got) == (x < 0 ? -fp4_ref(best_code) : fp4_ref(best_code)));
    (void)best;
  }
  CHECK(f32_to_fp4_e2m1(std::numeric_limits<float>::infinity()) == 7u);
  CHECK(f32_to_fp4_e2m1(-std::numeric_limits<float>::infinity()) == 15u);
  CHECK(f32_to_fp4_e2m1(1e30f) == 7u);
  CHECK(f32_to_fp4_e2m1(std::numeric_limits<float>::quiet_NaN()) == 0u);
}

TEST_CASE("packed x4 dtypes: sizes, names, kind, packing order and round trips") {
  CHECK(dtype_size(DType::float8_e5m2_x4) == 4);
  CHECK(dtype_size(DType::float8_e4m3fn_x4) == 4);
  CHECK(dtype_size(DType::float4_e2m1fn_x4) == 2);
  CHECK(parse_dtype("float4_e2m1fn_x4") == DType::float4_e2m1fn_x4);
  CHECK(dtype_kind(DType::float8_e5m2_x4) == DTypeKind::Packed);
  CHECK_FALSE(is_float(DType::float8_e5m2_x4));
  CHECK_FALSE(is_integer(DType::float8_e5m2_x4));
  CHECK_FALSE(is_numpy_native(DType::float8_e4m3fn_x4));
  CHECK(is_mx_packed(DType::float4_e2m1fn_x4));
  CHECK_FALSE(is_mx_packed(DType::float8_e8m0fnu));
  // Value q in byte q (fp8) / nibble q (fp4).
  float out[4];
  mx_unpack(DType::float8_e4m3fn_x4, 0x7F384038u, out);  // bytes 0x38 (1.0), 0x40 (2.0), 0x38, 0x7F (NaN)
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 2.0f);
  CHECK(out[2] == 1.0f);
  CHECK(std::isnan(out[3]));
  mx_unpack(DType::float8_e5m2_x4, 0xC07C3C00u, out);  // 0x00 (0), 0x3C (1.0), 0x7C (inf), 0xC0 (-2.0)
  CHECK(same(out[0], 0.0f));
  CHECK(out[1] == 1.0f);
  CHECK(out[2] == std::numeric_limits<float>::infinity());
  CHECK(out[3] == -2.0f);
  mx_unpack(DType::float4_e2m1fn_x4, 0xF912u, out);  // nibbles 2 (1.0), 1 (0.5), 9 (-0.5), F (-6)
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == 0.5f);
  CHECK(out[2] == -0.5f);
  CHECK(out[3] == -6.0f);
  for (DType t : {DType::float8_e5m2_x4, DType::float8_e4m3fn_x4, DType::float4_e2m1fn_x4}) {
    const uint32_t mask = dtype_size(t) == 4 ? 0xFFFFFFFFu : 0xFFFFu;
    for (uint32_t w : {0x00000000u, 0x12345678u, 0x3C3C4040u, 0x01020304u, 0x7E7D7B00u & 0x7F7F7F7Fu}) {
      const uint32_t word = w & mask;
      mx_unpack(t, word, out);
      bool has_nan = false;
      for (float v : out) has_nan |= std::isnan(v);
      if (!has_nan) CHECK(mx_pack(t, out) == word);
    }
  }
  // memset-style conversion replicates the value; reading a packed element as one scalar is NaN.
  CHECK(from_f32(DType::float8_e4m3fn_x4, 0.0f) == 0u);
  CHECK(from_f32(DType::float4_e2m1fn_x4, 1.0f) == 0x2222u);
  CHECK(std::isnan(to_f32(DType::float8_e5m2_x4, 0)));
}

TEST_CASE("MX scale layout: row (p/8/4)*32 + (p/8)%4, operand partitions") {
  CHECK(mx_scale_row(0) == 0);
  CHECK(mx_scale_row(7) == 0);
  CHECK(mx_scale_row(8) == 1);
  CHECK(mx_scale_row(31) == 3);
  CHECK(mx_scale_row(32) == 32);
  CHECK(mx_scale_row(127) == 99);
  CHECK(mx_scale_partitions(32) == 4);
  CHECK(mx_scale_partitions(64) == 36);
  CHECK(mx_scale_partitions(128) == 100);
}

#include "isa/asm_parse.h"
#include "isa/binary.h"
#include "isa/program.h"

TEST_CASE("asm and binary round trips of the new rows: relu_param, x4 dtypes, MX and gather operands") {
  Program p;
  p.kernel_name = "mx";
  p.num_semaphores = 2;
  auto ap = [](Memory m, DType t, uint32_t np, int64_t off, uint32_t n) {
    AccessPattern a;
    a.mem = m;
    a.dtype = t;
    a.num_partitions = np;
    a.offset = off;
    a.num_dims = 1;
    a.dims[0] = {1, n};
    return a;
  };
  auto add = [&](Engine e, Opcode op, std::initializer_list<AccessPattern> ops) -> Instruction& {
    Instruction ins;
    ins.op = op;
    ins.engine = e;
    int k = 0;
    for (auto& a : ops) ins.operands[k++] = a;
    p.streams[size_t(e)].push_back(ins);
    return p.streams[size_t(e)].back();
  };
  auto& a2 = add(Engine::Scalar, Opcode::activate2,
                 {ap(Memory::SBUF, DType::float32, 128, 0, 64), ap(Memory::SBUF, DType::float32, 128, 256, 64),
                  ap(Memory::SBUF, DType::float32, 128, 512, 1), AccessPattern{}});
  a2.params.func = ActFunc::prelu;
  a2.params.relu_param = -0.0625f;
  a2.params.op0 = AluOp::multiply;
  a2.params.op1 = AluOp::subtract;
  a2.params.imm1 = 3.5f;
  a2.params.reverse1 = true;
  a2.params.reduce_op = AluOp::abs_max;
  a2.params.reduce_cmd = ReduceCmd::reset_reduce;
  auto& st = add(Engine::Vector, Opcode::scalar_tensor_tensor,
                 {ap(Memory::SBUF, DType::bfloat16, 64, 0, 8), ap(Memory::PSUM, DType::bfloat16, 64, 0, 8),
                  AccessPattern{}, ap(Memory::SBUF, DType::bfloat16, 64, 64, 8)});
  st.params.op0 = AluOp::subtract;
  st.params.op1 = AluOp::multiply;
  st.params.imm0 = 1.25f;
  st.params.reverse0 = true;
  add(Engine::GpSimd, Opcode::nc_n_gather,
      {ap(Memory::SBUF, DType::int8, 32, 0, 700), ap(Memory::SBUF, DType::int8, 32, 1024, 600),
       ap(Memory::SBUF, DType::uint32, 32, 4096, 700)});
  add(Engine::Vector, Opcode::quantize_mx,
      {ap(Memory::SBUF, DType::float8_e4m3fn_x4, 64, 0, 4), ap(Memory::SBUF, DType::bfloat16, 64, 64, 16),
       ap(Memory::SBUF, DType::float8_e8m0fnu, 36, 128, 4)});
  add(Engine::Tensor, Opcode::load_stationary_mx,
      {ap(Memory::SBUF, DType::float4_e2m1fn_x4, 128, 0, 128), ap(Memory::SBUF, DType::uint8, 100, 512, 128)});
  add(Engine::Tensor, Opcode::multiply_moving_mx,
      {ap(Memory::PSUM, DType::bfloat16, 128, 0, 512), ap(Memory::SBUF, DType::float8_e5m2_x4, 128, 1024, 512),
       ap(Memory::SBUF, DType::float8_e8m0fnu, 100, 4096, 512)})
      .params.accumulate = true;
  const std::string text = print_asm(p);
  CHECK(text.find("relu_param=") != std::string::npos);
  CHECK(text.find("float4_e2m1fn_x4") != std::string::npos);
  CHECK(parse_asm(text, "mx.s") == p);
  CHECK(decode_program(encode_program(p), "mx.nkibin") == p);
}
