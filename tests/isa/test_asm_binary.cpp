// test_asm_binary.cpp - asm parser and binary codec: exact round trips, located parse errors, corrupt binaries.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "isa/asm_parse.h"
#include "isa/binary.h"

using namespace nkisim::isa;
using nkisim::SourceLoc;

namespace {

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min(), kI64Max = std::numeric_limits<int64_t>::max();
constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min(), kI32Max = std::numeric_limits<int32_t>::max();
constexpr uint32_t kU32Max = std::numeric_limits<uint32_t>::max();

AccessPattern onchip(Memory m, DType t, uint32_t start, uint32_t parts, int64_t off,
                     std::initializer_list<ApDim> dims) {
  AccessPattern ap;
  ap.mem = m;
  ap.dtype = t;
  ap.start_partition = start;
  ap.num_partitions = parts;
  ap.offset = off;
  for (auto& d : dims) ap.dims[ap.num_dims++] = d;
  return ap;
}
AccessPattern hbm(DType t, int64_t addr, int64_t pstride, uint32_t parts, std::initializer_list<ApDim> dims) {
  AccessPattern ap = onchip(Memory::HBM, t, 0, parts, addr, dims);
  ap.partition_stride = pstride;
  return ap;
}

// The first difference between two programs, field by field ("" when equal). Floats compare by bits, so
// -0 differs from 0 and equal NaNs are equal. (Program::operator== cannot be used yet: ApDim has no
// operator==, so the defaulted comparisons of AccessPattern and Program are deleted.)
std::string diff(const AccessPattern& a, const AccessPattern& b) {
  if (a.mem != b.mem || a.dtype != b.dtype || a.start_partition != b.start_partition ||
      a.num_partitions != b.num_partitions || a.partition_stride != b.partition_stride || a.offset != b.offset ||
      a.num_dims != b.num_dims)
    return to_string(a) + " vs " + to_string(b);
  for (int d = 0; d < kMaxFreeDims; ++d)
    if (a.dims[d].stride != b.dims[d].stride || a.dims[d].count != b.dims[d].count)
      return "dim " + std::to_string(d) + " of " + to_string(a);
  return "";
}
std::string diff(const Instruction& a, const Instruction& b) {
  const InstrParams &p = a.params, &q = b.params;
  if (a.op != b.op || a.engine != b.engine || a.loc != b.loc || p.op0 != q.op0 || p.op1 != q.op1 || p.func != q.func ||
      float_to_bits(p.scale) != float_to_bits(q.scale) || float_to_bits(p.imm0) != float_to_bits(q.imm0) ||
      float_to_bits(p.imm1) != float_to_bits(q.imm1) || p.reverse0 != q.reverse0 || p.reverse1 != q.reverse1 ||
      p.dma_queue != q.dma_queue || a.waits.size() != b.waits.size() || a.updates.size() != b.updates.size())
    return print_instruction(a) + " vs " + print_instruction(b);
  for (size_t i = 0; i < a.waits.size(); ++i)
    if (a.waits[i].sem != b.waits[i].sem || a.waits[i].value != b.waits[i].value)
      return "waits of " + print_instruction(a);
  for (size_t i = 0; i < a.updates.size(); ++i)
    if (a.updates[i].sem != b.updates[i].sem || a.updates[i].add != b.updates[i].add)
      return "signals of " + print_instruction(a);
  for (int s = 0; s < kMaxOperands; ++s)
    if (std::string d = diff(a.operands[s], b.operands[s]); !d.empty())
      return "operand " + std::to_string(s) + ": " + d;
  return "";
}
std::string diff(const Program& a, const Program& b) {
  if (a.target != b.target || a.kernel_name != b.kernel_name || a.num_semaphores != b.num_semaphores ||
      a.hbm_bytes != b.hbm_bytes)
    return "header";
  if (a.hbm_tensors.size() != b.hbm_tensors.size()) return "tensor count";
  for (size_t i = 0; i < a.hbm_tensors.size(); ++i)
    if (!(a.hbm_tensors[i] == b.hbm_tensors[i])) return "tensor " + a.hbm_tensors[i].name;
  if (a.locations != b.locations) return "locations";
  for (int e = 0; e < kNumEngines; ++e) {
    if (a.streams[e].size() != b.streams[e].size()) return "stream length";
    for (size_t i = 0; i < a.streams[e].size(); ++i)
      if (std::string d = diff(a.streams[e][i], b.streams[e][i]); !d.empty()) return d;
  }
  return "";
}

// Checks all three round trips, and that encoding is deterministic.
void check_round_trips(const Program& p) {
  const std::string text = print_asm(p);
  const std::vector<uint8_t> bin = encode_program(p);
  Program from_text = parse_asm(text, "t.s");
  Program from_bin = decode_program(bin, "t.nkibin");
  CHECK(diff(from_text, p) == "");
  CHECK(diff(from_bin, p) == "");
  CHECK(encode_program(from_text) == bin);
  CHECK(encode_program(from_bin) == bin);
  CHECK(print_asm(from_bin) == text);
  CHECK(print_asm(from_text) == text);
}

std::string parse_error(const std::string& text) {
  try {
    parse_asm(text, "p.s");
  } catch (const nkisim::Error& e) {
    REQUIRE(e.loc.has_value());
    CHECK(e.loc->file == "p.s");
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "no error";
}

std::string decode_error(const std::vector<uint8_t>& b) {
  try {
    decode_program(b, "p.nkibin");
  } catch (const nkisim::Error& e) {
    REQUIRE(e.loc.has_value());
    CHECK(e.loc->file == "p.nkibin");
    CHECK(e.loc->line == 0);
    return e.what();
  }
  return "no error";
}

// Resets the fields ins.op does not take to their defaults (a well-formed instruction sets only its PARAMS).
void drop_untaken(Instruction& ins) {
  const InstrParams d{};
#define PARAM(field, key, kind, def) \
  if (!takes_param(ins.op, ParamId::field)) ins.params.field = d.field;
#include "isa/params.def"
#undef PARAM
}

// Random well-formed programs.
struct Gen {
  std::mt19937_64 rng;
  bool nans = false;
  explicit Gen(uint64_t seed) : rng(seed) {}
  uint64_t pick(uint64_t n) { return rng() % n; }
  bool coin(int one_in = 2) { return pick(uint64_t(one_in)) == 0; }
  int64_t i64() {
    switch (pick(6)) {
      case 0:
        return 0;
      case 1:
        return -int64_t(pick(100));
      case 2:
        return kI64Min;
      case 3:
        return kI64Max;
      case 4:
        return int64_t(pick(5000));
      default:
        return int64_t(rng());
    }
  }
  int32_t i32() {  // a free dim's stride: 32-bit (isa::ApStride)
    const int64_t v = i64();
    return v == kI64Min ? kI32Min : v == kI64Max ? kI32Max : int32_t(v);
  }
  uint32_t u32() { return coin(3) ? kU32Max : coin() ? uint32_t(pick(200)) : uint32_t(rng()); }
  float f32() {
    static const float special[] = {0.0f,
                                    -0.0f,
                                    1.0f,
                                    0.1f,
                                    -2.5e-38f,
                                    3.4028235e38f,
                                    1e-45f,
                                    1.17549435e-38f,
                                    std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity()};
    if (coin(3)) return special[pick(std::size(special))];
    float f = bits_to_float(uint32_t(rng()));
    while (!nans && std::isnan(f)) f = bits_to_float(uint32_t(rng()));
    return f;
  }
  std::string name() {
    static const char* const odd[] = {"k",         "",          "a b",     "quote\"d", "back\\slash",    "semi;colon",
                                      "new\nline", "tab\there", "cr\r",    "\x01\x7f", "caf\xc3\xa9.py", "[x]",
                                      "@L1",       "=",         "dir/k.py"};
    if (coin(4)) {
      std::string s(pick(12), '\0');
      for (char& c : s) c = char(rng());
      return s;
    }
    return odd[pick(std::size(odd))];
  }
  AccessPattern ap() {
    AccessPattern a;
    a.mem = Memory(1 + pick(3));
    a.dtype = DType(pick(uint64_t(kNumDTypes)));
    a.num_partitions = u32();
    if (a.mem == Memory::HBM)
      a.partition_stride = i64();
    else
      a.start_partition = u32();
    a.offset = i64();
    a.num_dims = uint8_t(pick(kMaxFreeDims + 1));
    for (int d = 0; d < a.num_dims; ++d) a.dims[d] = {i32(), u32()};
    return a;
  }
  Program program() {
    Program p;
    p.target = coin() ? "trn2" : name();
    p.kernel_name = name();
    p.num_semaphores = coin(5) ? 70000 : uint32_t(1 + pick(40));
    p.hbm_bytes = rng();
    for (uint64_t i = pick(4); i > 0; --i) {
      HbmTensor t;
      t.name = name();
      t.kind = HbmTensor::Kind(pick(3));
      t.dtype = DType(pick(uint64_t(kNumDTypes)));
      for (uint64_t r = pick(5); r > 0; --r) t.shape.push_back(i64());
      t.address = rng();
      t.bytes = rng();
      t.param_index = coin() ? -1 : int32_t(rng());
      t.output_index = coin() ? -1 : int32_t(pick(4));
      p.hbm_tensors.push_back(t);
    }
    for (uint64_t i = pick(5); i > 0; --i) p.locations.push_back({name(), u32(), u32()});
    const uint64_t max_sem = std::min<uint64_t>(p.num_semaphores, 65536);
    for (int e = 0; e < kNumEngines; ++e)
      for (uint64_t n = pick(6); n > 0; --n) {
        Instruction ins;
        ins.op = Opcode(pick(kNumOpcodes));
        ins.engine = coin(10) ? Engine(pick(kNumEngines)) : Engine(e);
        const InstrInfo& in = info(ins.op);
        for (int s = 0; s < in.num_operands; ++s)
          if (in.operands[s].required || coin()) ins.operands[s] = ap();
        InstrParams& q = ins.params;
        if (coin()) q.op0 = AluOp(pick(kNumAluOps));
        if (coin()) q.op1 = AluOp(pick(kNumAluOps));
        if (coin()) q.func = ActFunc(pick(kNumActFuncs));
        if (coin()) q.scale = f32();
        if (coin()) q.imm0 = f32();
        if (coin()) q.imm1 = f32();
        q.reverse0 = coin();
        q.reverse1 = coin();
        if (coin()) q.dma_queue = uint16_t(rng());
        for (uint64_t w = pick(4); w > 0; --w) ins.waits.push_back({uint16_t(pick(max_sem)), u32()});
        for (uint64_t w = pick(4); w > 0; --w) ins.updates.push_back({uint16_t(pick(max_sem)), u32()});
        ins.loc = uint32_t(pick(p.locations.size()));
        drop_untaken(ins);
        p.streams[size_t(e)].push_back(ins);
      }
    return p;
  }
};

// A small realistic program: the shape nki-sim's back end emits.
Program small_program() {
  Program p;
  p.kernel_name = "tensor_add";
  p.num_semaphores = 7;
  p.hbm_bytes = 0x3000;
  p.hbm_tensors.push_back({"a", HbmTensor::Kind::Input, DType::float32, {4, 256}, 0x0, 4096, 0, -1, {}});
  p.hbm_tensors.push_back({"out", HbmTensor::Kind::Output, DType::bfloat16, {4, 256}, 0x2000, 2048, -1, 0, {}});
  const uint32_t l1 = p.add_location({"k.py", 10, 5});
  Instruction dma;
  dma.op = Opcode::dma_copy;
  dma.engine = Engine::Sync;
  dma.operands[0] = onchip(Memory::SBUF, DType::float32, 0, 4, 0x40, {{1, 256}});
  dma.operands[1] = hbm(DType::float32, 0, 256, 4, {{1, 256}});
  dma.params.dma_queue = 1;
  dma.updates = {{6, 1}};
  dma.loc = l1;
  p.streams[size_t(Engine::Sync)].push_back(dma);
  Instruction act;
  act.op = Opcode::activation;
  act.engine = Engine::Scalar;
  act.operands[0] = onchip(Memory::PSUM, DType::bfloat16, 0, 4, 0, {{1, 256}});
  act.operands[1] = onchip(Memory::SBUF, DType::float32, 0, 4, 0x40, {{1, 256}});
  act.params.func = ActFunc::exp;
  act.params.scale = -0.5f;
  act.waits = {{6, 1}};
  act.updates = {{2, 1}};
  act.loc = p.add_location({"k.py", 11, 9});
  p.streams[size_t(Engine::Scalar)].push_back(act);
  return p;
}

}  // namespace

TEST_CASE("round trips: every opcode, every slot, all dtypes and memories") {
  Program p;
  p.kernel_name = "every_opcode";
  p.num_semaphores = 12;
  p.add_location({"k.py", 1, 1});
  int n = 0;
  for (int op = 0; op < kNumOpcodes; ++op) {
    const InstrInfo& in = info(Opcode(op));
    for (int e = 0; e < kNumEngines; ++e) {
      if (!(in.engines & (1u << e))) continue;
      Instruction ins;
      ins.op = Opcode(op);
      ins.engine = Engine(e);
      for (int s = 0; s < in.num_operands; ++s, ++n) {
        const DType t = DType(n % kNumDTypes);
        const bool use_hbm = (in.operands[s].memories & M_HBM) && n % 2;
        ins.operands[s] = use_hbm ? hbm(t, 0x1000 * n, -64, 8, {{-1, 16}, {2, 3}})
                                  : onchip((in.operands[s].memories & M_PS) && n % 3 == 0 ? Memory::PSUM : Memory::SBUF,
                                           t, 32, 32, -8 * n, {{-2, 4}, {1, 8}, {16, 2}, {0, 1}});
      }
      ins.params.op0 = AluOp(op % kNumAluOps);
      ins.params.imm0 = -1.25f;
      ins.params.reverse0 = e % 2;
      ins.waits = {{uint16_t(e), 1}, {uint16_t(5 + e), 2}};
      ins.updates = {{uint16_t(e), 1}, {11, 3}};
      ins.loc = uint32_t(e % 2);
      drop_untaken(ins);
      p.streams[size_t(e)].push_back(ins);
    }
    // Optional slots absent, and absent in every combination the table allows.
    Instruction bare;
    bare.op = Opcode(op);
    bare.engine = in.default_engine;
    for (int s = 0; s < in.num_operands; ++s)
      if (in.operands[s].required) bare.operands[s] = onchip(Memory::SBUF, DType::int8, 0, 128, 0, {});
    p.streams[size_t(in.default_engine)].push_back(bare);
  }
  for (int t = 0; t < kNumDTypes; ++t)
    for (Memory m : {Memory::HBM, Memory::SBUF, Memory::PSUM}) {
      Instruction c;
      c.op = Opcode::dma_copy;
      c.engine = Engine::Sync;
      c.operands[0] = m == Memory::HBM ? hbm(DType(t), kI64Max, kI64Min, kU32Max, {{kI32Min, kU32Max}})
                                       : onchip(m, DType(t), kU32Max, kU32Max, kI64Min, {{kI32Max, 0}});
      c.operands[1] = hbm(DType(t), -1, 0, 0, {});
      p.streams[size_t(Engine::Sync)].push_back(c);
    }
  check_round_trips(p);
  const std::string text = print_asm(p);
  CHECK(text.find("hbm:float32@0xffffffffffffffff[[0,0]]") != std::string::npos);
  CHECK(text.find("@0x7fffffffffffffff[[-9223372036854775808,4294967295],[-2147483648,4294967295]]") !=
        std::string::npos);
}

TEST_CASE("round trips: random well-formed programs, odd names, NaN payloads") {
  Gen g(12345);
  for (int i = 0; i < 300; ++i) {
    g.nans = i % 3 == 0;
    CAPTURE(i);
    check_round_trips(g.program());
  }
  check_round_trips(Program{});
  check_round_trips(small_program());
}

TEST_CASE("round trips: every float param value survives exactly") {
  auto one_batch = [](uint64_t first, uint64_t step, uint64_t count) {
    Program p;
    p.streams[size_t(Engine::Vector)].reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
      Instruction ins;
      ins.op = Opcode::activate2;  // takes imm0, imm1 and relu_param (three F32 fields)
      ins.engine = Engine::Vector;
      ins.operands[0] = onchip(Memory::SBUF, DType::float32, 0, 1, 0, {{1, 1}});
      ins.operands[1] = onchip(Memory::SBUF, DType::float32, 0, 1, 0, {{1, 1}});
      const uint32_t b = uint32_t(first + i * step);
      ins.params.imm0 = bits_to_float(b);
      ins.params.relu_param = bits_to_float(~b);
      ins.params.imm1 = bits_to_float(b ^ 0x80000000u);
      p.streams[size_t(Engine::Vector)].push_back(ins);
    }
    const Program q = parse_asm(print_asm(p), "f.s");
    REQUIRE(q.streams[size_t(Engine::Vector)].size() == count);
    int bad = 0;
    for (uint64_t i = 0; i < count; ++i) {
      const InstrParams &a = p.streams[1][i].params, &b = q.streams[1][i].params;
      bad += float_to_bits(a.imm0) != float_to_bits(b.imm0) || float_to_bits(a.relu_param) != float_to_bits(b.relu_param) ||
             float_to_bits(a.imm1) != float_to_bits(b.imm1);
    }
    CHECK(bad == 0);
  };
  one_batch(0, 65521, (uint64_t(1) << 32) / 65521);  // a stride through all bit patterns
  one_batch(0, 1, 4096);                             // smallest subnormals
  one_batch(0x007ff000u, 1, 8192);                   // largest subnormals into the normals
  one_batch(0x7f7ff000u, 1, 8192);                   // largest finite, inf, the first NaNs
  one_batch(0x3f800000u - 4096, 1, 8192);            // around 1.0
  one_batch(0xfffff000u, 1, 4096);                   // the last NaNs
}

TEST_CASE("printer: exact forms of special values, quoting, engine and queue") {
  Program p = small_program();
  Instruction& act = p.streams[size_t(Engine::Scalar)][0];
  act.params.bias_imm = -0.0f;
  act.params.scale = std::numeric_limits<float>::infinity();
  act.engine = Engine::Vector;
  Instruction& dma = p.streams[size_t(Engine::Sync)][0];
  dma.params.dma_queue = 0;  // a DMA always shows its queue
  p.kernel_name = "my kernel";
  p.locations[1].file = "dir/\"q\"\\x;\n\t\x01.py";
  const std::string text = print_asm(p);
  CHECK(text.find(".kernel \"my kernel\"\n") != std::string::npos);
  CHECK(text.find(".loc L1 \"dir/\\\"q\\\"\\\\x;\\n\\t\\x01.py\" 10 5\n") != std::string::npos);
  CHECK(text.find(" scale=inf bias_imm=-0 engine=vector wait=s6>=1") != std::string::npos);
  CHECK(text.find(" queue=0 signal=s6+1") != std::string::npos);
  check_round_trips(p);
  // activation's operand slot and float parameter are both called scale; the value tells them apart.
  act.operands[3] = onchip(Memory::SBUF, DType::float32, 0, 4, 0, {{0, 1}});
  act.params.scale = 2.0f;
  CHECK(print_instruction(act).find(" scale=sbuf:float32@p0:4+0x0[[0,1]] op0=") == std::string::npos);
  CHECK(print_instruction(act).find(" scale=sbuf:float32@p0:4+0x0[[0,1]] func=exp scale=2 ") != std::string::npos);
  check_round_trips(p);
  act.params.bias_imm = std::nanf("");
  act.params.scale = -std::numeric_limits<float>::infinity();
  CHECK(print_instruction(act).find(" scale=-inf bias_imm=nan ") != std::string::npos);
  act.params.bias_imm = bits_to_float(0x7f800001u);
  CHECK(print_instruction(act).find(" bias_imm=nan(0x7f800001) ") != std::string::npos);
  check_round_trips(p);
}

TEST_CASE("parser: any field order, comments, blank lines, CRLF, tabs, none operands") {
  const Program p = small_program();
  const std::string text =
      "; header comment\r\n"
      ".kernel tensor_add ; trailing comment\n"
      "\t.semaphores 7\n"
      "\n"
      ".hbm_bytes 12288\n"
      ".tensor a input float32 [4,256] @0x0 bytes=4096 param=0\n"
      ".tensor out output bfloat16 [4,256] @0x2000 out=0 bytes=2048 ; fields in any order\n"
      ".loc L1 \"k.py\" 10 5\n"
      ".loc L2 \"k.py\" 11 9\n"
      ".stream scalar\n"
      "  activation @L2 signal=s2+1 wait=s6>=1 scale=-0.5 func=exp data=sbuf:float32@p0:4+0x40[[1,256]] "
      "bias=none dst=psum:bfloat16@p0:4+0[[1,256]]\n"
      ".stream sync\n"
      "  dma_copy queue=1 src=hbm:float32@0[[256,4],[1,256]] dst=sbuf:float32@p0:4+64[[1,256]] signal=s6+1 @L1";
  const Program q = parse_asm(text, "p.s");
  CHECK(diff(q, p) == "");
  CHECK(print_asm(q) == print_asm(p));
}

TEST_CASE("parser errors: located at the offending token") {
  const std::string h = ".semaphores 8\n.loc L1 \"k.py\" 3 4\n.stream vector\n";  // instructions start on line 4
  const std::string d = "dst=sbuf:float32@p0:1+0x0[[1,4]]";
  CHECK(parse_error(".foo 1") == "1:1: unknown directive '.foo'");
  CHECK(parse_error(h + "  tensor_tensr " + d) == "4:3: unknown mnemonic 'tensor_tensr'");
  CHECK(parse_error(h + "  tensor_copy " + d + " source=" + d.substr(4)) ==
        "4:48: unknown operand slot 'source' for tensor_copy (slots: dst, src)");
  CHECK(parse_error(h + "  sem_wait dst=" + d.substr(4)) ==
        "4:12: unknown operand slot 'dst' for sem_wait (it has no operands)");
  CHECK(parse_error(h + "  tensor_copy src=" + d.substr(4)) == "4:3: missing required operand 'dst' for tensor_copy");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,4]") ==
        "4:41: malformed access pattern: expected ']' or ',' to close the dims, found the end of the access pattern");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@0:1+0x0[[1,4]]") ==
        "4:27: malformed access pattern: expected 'p' before the start partition, found '0'");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,4]]x") ==
        "4:42: malformed access pattern: expected the end of the access pattern, found 'x'");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1;4]]") ==
        "4:38: malformed access pattern: expected ',' between stride and count, found the end of the access pattern");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,4x]]") == "4:39: bad number '4x'");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,4294967296]]") ==
        "4:39: number 4294967296 out of range (maximum 4294967295)");
  // A free dim's stride is 32-bit signed (isa::ApStride); the HBM row stride and the offset are 64-bit.
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[2147483648,4]]") ==
        "4:37: free dim stride 2147483648 out of range (a free dim's stride is 32-bit signed)");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,4],[-2147483649,2]]") ==
        "4:43: free dim stride -2147483649 out of range (a free dim's stride is 32-bit signed)");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,-4]]") ==
        "4:39: bad number '-4' (must not be negative)");
  CHECK(parse_error(h + "  memset dst=hbm:float32@0x0[[1,4],[1,1],[1,1],[1,1],[1,1],[1,1]]") ==
        "4:60: more than 4 free dims in an access pattern");
  CHECK(parse_error(h + "  memset dst=sbuf:float32@p0:1+0x0[[1,1],[1,1],[1,1],[1,1],[1,1]]") ==
        "4:60: more than 4 free dims in an access pattern");
  CHECK(parse_error(h + "  memset dst=sbuf:fp32@p0:1+0x0[[1,4]]") == "4:19: unknown dtype 'fp32'");
  CHECK(parse_error(h + "  memset dst=sbfu:float32@p0:1+0x0[[1,4]]") ==
        "4:14: unknown memory 'sbfu' (expected hbm, sbuf or psum)");
  CHECK(parse_error(h + "  memset dst=:float32@p0:1+0x0[[1,4]]") ==
        "4:14: malformed access pattern: expected a memory (hbm, sbuf or psum), found ':'");
  CHECK(parse_error(h + "  memset " + d + " imm0=1.5.2") == "4:48: bad number '1.5.2'");
  CHECK(parse_error(h + "  memset " + d + " imm0=1e39") == "4:48: number 1e39 out of range for float32");
  CHECK(parse_error(h + "  memset " + d + " imm0=nan(0x7f800000)") ==
        "4:48: bad NaN 'nan(0x7f800000)' (nan(0x...) needs the 32-bit pattern of a NaN)");
  CHECK(parse_error(h + "  dma_copy " + d + " queue=65536") == "4:51: number 65536 out of range (maximum 65535)");
  CHECK(parse_error(h + "  memset " + d + " queue=1") == "4:43: memset does not take the field 'queue' (its fields: imm0)");
  CHECK(parse_error(".semaphores 0x1g") == "1:13: bad number '0x1g'");
  CHECK(parse_error(".semaphores -") == "1:13: bad number '-'");
  CHECK(parse_error(".stream vectr") ==
        "1:9: unknown engine 'vectr' (expected tensor, vector, scalar, gpsimd or sync)");
  CHECK(parse_error(h + "  memset " + d + " engine=cpu") ==
        "4:50: unknown engine 'cpu' (expected tensor, vector, scalar, gpsimd or sync)");
  CHECK(parse_error(".stream scalar\n activation " + d + " data=" + d.substr(4) +
                    " scale=sbfu:float32@p0:1+0[[1,1]]") == "2:86: unknown memory 'sbfu' (expected hbm, sbuf or psum)");
  CHECK(parse_error(".stream scalar\n activation " + d + " data=" + d.substr(4) + " scale=2x") ==
        "2:86: bad number '2x'");
  CHECK(parse_error(h + "  tensor_scalar " + d + " op0=ad") == "4:54: unknown ALU op 'ad'");
  CHECK(parse_error(h + "  activation " + d + " func=exq") == "4:52: unknown activation function 'exq'");
  CHECK(parse_error(h + "  memset " + d + " wait=s1>=1,s8>=1") ==
        "4:54: semaphore s8 out of range (the program has 8 semaphores)");
  CHECK(parse_error(h + "  memset " + d + " signal=s9+1") ==
        "4:50: semaphore s9 out of range (the program has 8 semaphores)");
  CHECK(parse_error(h + "  memset " + d + " wait=s1=1") ==
        "4:50: malformed wait list: expected '>' in sS>=V, found '='");
  CHECK(parse_error(h + "  memset " + d + " @L2") == "4:43: location L2 is not defined (no .loc L2)");
  CHECK(parse_error(h + "  memset " + d + " @X2") ==
        "4:44: malformed location: expected 'L' after '@' (a location is @L<n>), found 'X'");
  CHECK(parse_error(".semaphores 1\n  memset " + d) == "2:3: instruction before any .stream directive");
  CHECK(parse_error(h + "  tensor_scalar " + d + " op0=add op0=add") == "4:58: duplicate field 'op0'");
  CHECK(parse_error(h + "  memset " + d + " " + d) == "4:43: duplicate operand 'dst'");
  CHECK(parse_error(h + "  tensor_scalar " + d + " reverse0=1") == "4:50: 'reverse0' is a flag and takes no value");
  CHECK(parse_error(h + "  memset " + d + " fast") ==
        "4:43: unexpected 'fast' (expected slot=operand, a parameter, a flag or @Ln)");
  CHECK(parse_error(h + ".semaphores 9") == "4:1: duplicate directive '.semaphores'");
  CHECK(parse_error(".stream vector\n  sem_wait\n.semaphores 9") ==
        "3:1: '.semaphores' must come before the first instruction");
  CHECK(parse_error(".kernel") == "1:8: expected a name after '.kernel'");
  CHECK(parse_error(".kernel a b") == "1:11: unexpected 'b' after '.kernel' and its arguments");
  CHECK(parse_error(".loc L1 \"k.py\" 3") == "1:17: expected a column number after '.loc'");
  CHECK(parse_error(".loc L2 \"k.py\" 3 4") ==
        "1:6: expected label L1, found 'L2' (locations are numbered from L1 in order)");
  CHECK(parse_error(".loc L1 k.py 3 4") == "1:9: expected a quoted file name, found 'k.py'");
  CHECK(parse_error(".loc L1 \"k.py 3 4") == "1:9: unterminated string");
  CHECK(parse_error(".loc L1 \"k\\q.py\" 3 4") == "1:11: unknown escape '\\q' in string");
  CHECK(parse_error(".loc L1 \"k\\x4.py\" 3 4") == "1:11: bad escape in string: \\x needs two hex digits");
  CHECK(parse_error(".loc L1 \"k.py\"3 4") == "1:15: expected a space after the string");
  CHECK(parse_error(".tensor a inptu float32 [1] @0x0 bytes=4") ==
        "1:11: unknown tensor kind 'inptu' (expected input, output or internal)");
  CHECK(parse_error(".tensor a input f32 [1] @0x0 bytes=4") == "1:17: unknown dtype 'f32'");
  CHECK(parse_error(".tensor a input float32 [1,] @0x0") == "1:28: malformed shape: expected a number, found ']'");
  CHECK(parse_error(".tensor a input float32 [1] 0x0") == "1:29: expected the address @0x..., found '0x0'");
  CHECK(parse_error(".tensor a input float32 [1] @0x0 size=4") ==
        "1:34: unexpected 'size=4' in .tensor (expected bytes=N, param=I, out=J or init=HEX)");
  CHECK(parse_error(".tensor a input float32 [1] @0x0 param=2147483648") ==
        "1:40: number 2147483648 out of range for a 32-bit index");
  CHECK(parse_error("\"x\"") == "1:1: expected a directive or an instruction, found a string");
}

TEST_CASE("parser errors render like a compiler diagnostic") {
  const std::string text = ".stream vector\n  sem_wait\n  tensor_tensr dst=x\n";
  try {
    parse_asm(text, "prog.s");
    FAIL("no error");
  } catch (const nkisim::Error& e) {
    auto lines = [&](const std::string&, uint32_t n) -> std::optional<std::string> {
      return n == 3 ? std::optional<std::string>("  tensor_tensr dst=x") : std::nullopt;
    };
    CHECK(nkisim::format_diagnostic(e, lines) ==
          "prog.s:3:3: error: unknown mnemonic 'tensor_tensr'\n"
          "    3 |   tensor_tensr dst=x\n"
          "      |   ^\n");
  }
}

TEST_CASE("binary: header layout and located decode errors") {
  const Program p = small_program();
  const std::vector<uint8_t> b = encode_program(p);
  REQUIRE(b.size() > 40);
  CHECK(std::memcmp(b.data(), "NKISIMB\0", 8) == 0);
  CHECK(std::vector<uint8_t>(b.begin() + 8, b.begin() + 16) ==
        std::vector<uint8_t>{uint8_t(kBinaryFormatVersion), 0, 0, 0, 'H', 'E', 'A', 'D'});
  CHECK(diff(decode_program(b, "p.nkibin"), p) == "");

  CHECK(decode_error({}) == "bad magic (not an nki-sim binary)");
  CHECK(decode_error({'N', 'K', 'I', 'S', 'I', 'M', 'B', 'X'}) == "bad magic (not an nki-sim binary)");
  CHECK(decode_error({'N', 'K', 'I'}) == "truncated file at byte 3: the magic bytes at byte 0 needs 8 bytes");
  auto patched = [&](size_t at, std::initializer_list<uint8_t> bytes) {
    std::vector<uint8_t> c = b;
    std::copy(bytes.begin(), bytes.end(), c.begin() + long(at));
    return c;
  };
  CHECK(decode_error(patched(8, {8})) == "unsupported format version 8 (this build reads version " + std::to_string(kBinaryFormatVersion) + ")");
  CHECK(decode_error(patched(12, {'H', 'E', 'A', 'X'})) ==
        "expected section 'HEAD', found tag 0x58414548 (at byte 12)");
  CHECK(decode_error(patched(16, {0xff, 0xff})) == "truncated file at byte " + std::to_string(b.size()) +
                                                       ": section 'HEAD' at byte 12 claims 65535 bytes, " +
                                                       std::to_string(b.size() - 24) + " left");
  // HEAD payload starts at 24: target string length.
  CHECK(decode_error(patched(24, {0xff, 0xff, 0, 0})) == "target: string length 65535 exceeds file size (" +
                                                             std::to_string(b[16] - 4) +
                                                             " bytes left in section 'HEAD') (at byte 24)");
  std::vector<uint8_t> padded = b;
  padded.insert(padded.begin() + 24 + b[16], 0);
  padded[16]++;
  CHECK(decode_error(padded) ==
        "section 'HEAD' has 1 unexpected trailing bytes (at byte " + std::to_string(24 + b[16]) + ")");
  std::vector<uint8_t> longer = b;
  longer.push_back(0);
  CHECK(decode_error(longer) ==
        "unexpected 1 trailing bytes after the last section (at byte " + std::to_string(b.size()) + ")");

  // Find the first instruction (the sync stream's dma_copy) and the tensor section by their encodings.
  const size_t tens = 24 + b[16] + 12;  // TENS payload: u32 count
  CHECK(decode_error(patched(tens, {0xff, 0xff, 0xff, 0x7f})).find("tensor count 2147483647 too large for the") == 0);
  CHECK(decode_error(patched(tens + 4 + 4 + 1, {3})) ==
        "tensor kind 3 out of range (expected < 3) (at byte " + std::to_string(tens + 9) + ")");
  CHECK(decode_error(patched(tens + 4 + 4 + 2, {99})) ==
        "tensor dtype 99 out of range (expected < 18) (at byte " + std::to_string(tens + 10) + ")");
  // The sync stream is the last section: its instruction starts after u8 engine + u32 count.
  const std::vector<uint8_t> sync_only = [&] {
    Program q = p;
    q.streams[size_t(Engine::Scalar)].clear();
    return encode_program(q);
  }();
  size_t ins = 0;
  for (size_t i = sync_only.size() - 1; i > 12; --i)
    if (std::memcmp(&sync_only[i], "STRM", 4) == 0) {
      ins = i + 12 + 1 + 4;
      break;
    }
  REQUIRE(ins > 0);
  auto patched_sync = [&](size_t off, std::initializer_list<uint8_t> bytes) {
    std::vector<uint8_t> c = sync_only;
    std::copy(bytes.begin(), bytes.end(), c.begin() + long(ins + off));
    return decode_error(c);
  };
  const std::string at = " (at byte " + std::to_string(ins);
  CHECK(patched_sync(0, {0xe7, 0x03}) ==
        "opcode 999 out of range (expected < " + std::to_string(kNumOpcodes) + ")" + at + ")");
  CHECK(patched_sync(2, {5}) == "engine 5 out of range (expected < 5) (at byte " + std::to_string(ins + 2) + ")");
  CHECK(patched_sync(3, {9}) ==
        "location L9 out of range (the program has 3 locations) (at byte " + std::to_string(ins + 3) + ")");
  // 7 bytes of opcode/engine/loc, then dma_copy's fields (version 7: only those it takes, params.def order):
  // queue u16, dge u16, oob_skip u8, ind u16, ind_opnds u16, ind_stride, ind_before, ind_size i32, rs0 u16.
  CHECK(patched_sync(11, {4}) == "oob_skip 4 out of range (expected < 2) (at byte " + std::to_string(ins + 11) + ")");
  const size_t waits = 7 + 2 + 2 + 1 + 2 + 2 + 4 + 4 + 4 + 2;
  CHECK(patched_sync(waits, {0, 0, 0, 1}).find("wait count 16777216 too large for the ") == 0);
  CHECK(patched_sync(waits + 4, {1, 0, 0, 0, 7}) ==
        "semaphore s7 out of range (the program has 7 semaphores) (at byte " + std::to_string(ins + waits + 8) + ")");
  // Operands follow the fixed bytes (waits + 8) and the one signal (6 bytes): dst is sbuf.
  const size_t dst = waits + 8 + 6;
  CHECK(patched_sync(dst, {0}) == "dma_copy instruction lacks its required operand 'dst'" + at + ")");
  CHECK(patched_sync(dst, {4}) ==
        "operand memory 4 out of range (expected < 4) (at byte " + std::to_string(ins + dst) + ")");
  CHECK(patched_sync(dst + 10, {1}) ==
        "sbuf operand with partition stride 1 (must be 0 on chip) (at byte " + std::to_string(ins + dst + 10) + ")");
  CHECK(patched_sync(dst + 26, {5}) ==
        "free dim count 5 out of range (expected < 5) (at byte " + std::to_string(ins + dst + 26) + ")");
  // dst has one free dim (12 bytes), then its dynamic offset kind (version 5).
  CHECK(patched_sync(dst + 39, {3}) ==
        "dynamic offset kind 3 out of range (expected < 3) (at byte " + std::to_string(ins + dst + 39) + ")");
  // A free dim's stride is an i64 in the file but 32-bit in the instruction: 2^31 is rejected, not wrapped.
  CHECK(patched_sync(dst + 27, {0, 0, 0, 0x80, 0, 0, 0, 0}) ==
        "dim stride 2147483648 out of range (a free dim's stride is 32-bit signed) (at byte " +
            std::to_string(ins + dst + 27) + ")");
  CHECK(patched_sync(dst + 27, {0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff}) ==
        "dim stride -2147483649 out of range (a free dim's stride is 32-bit signed) (at byte " +
            std::to_string(ins + dst + 27) + ")");
  const size_t src = dst + 27 + 12 + 1;  // hbm
  CHECK(patched_sync(src + 2, {1}) ==
        "HBM operand with start partition 1 (must be 0) (at byte " + std::to_string(ins + src + 2) + ")");
}

TEST_CASE("binary: every truncation and thousands of corruptions decode or throw Error, never crash") {
  const std::vector<uint8_t> b = encode_program(small_program());
  for (size_t n = 1; n < b.size(); ++n) {
    const std::string msg = decode_error(std::vector<uint8_t>(b.begin(), b.begin() + long(n)));
    CHECK_MESSAGE(msg.rfind("truncated file at byte " + std::to_string(n) + ":", 0) == 0, msg);
  }
  std::mt19937_64 rng(7);
  Gen g(99);
  int decoded = 0, rejected = 0;
  for (int i = 0; i < 6000; ++i) {
    std::vector<uint8_t> c = i % 4 == 0 ? encode_program(g.program()) : b;
    const int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; ++k) c[rng() % c.size()] ^= uint8_t(1 + rng() % 255);
    if (i % 5 == 0) c.resize(rng() % (c.size() + 1));
    try {
      const Program p = decode_program(c, "fuzz.nkibin");
      ++decoded;
      // Whatever decodes is well formed: it re-encodes to the same bytes and survives the text round trip.
      REQUIRE(encode_program(p) == c);
      REQUIRE(encode_program(parse_asm(print_asm(p), "fuzz.s")) == c);
    } catch (const nkisim::Error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 1000);
  CHECK(decoded > 100);
  // Random bytes after a valid magic and version.
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> c(b.begin(), b.begin() + 12);
    for (uint64_t k = rng() % 200; k > 0; --k) c.push_back(uint8_t(rng() % 4 ? rng() : 0));
    try {
      decode_program(c, "fuzz.nkibin");
    } catch (const nkisim::Error&) {
    }
  }
}

TEST_CASE("parser: mutated text parses or throws Error, never crashes, what parses prints back stably") {
  std::mt19937_64 rng(3);
  Gen g(4);
  const char alphabet[] = " \t\n;\"\\@=,[]:+-.0123456789xLsp>ahbmnuf";
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = print_asm(i % 2 ? small_program() : g.program());
    for (int k = 1 + int(rng() % 3); k > 0; --k) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % (sizeof alphabet - 1)];
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
      }
    }
    try {
      const std::string once = print_asm(parse_asm(text, "m.s"));
      ++parsed;
      REQUIRE(print_asm(parse_asm(once, "m.s")) == once);
    } catch (const nkisim::Error& e) {
      REQUIRE(e.loc.has_value());
      CHECK(e.loc->line >= 1);
    }
  }
  CHECK(parsed > 100);
}

TEST_CASE("string table (device_print prefixes): .str round trip through asm and binary") {
  Program p = small_program();
  p.strings = {"t", "a \"quoted\"\nline", ""};
  Instruction pr;
  pr.op = Opcode::device_print;
  pr.engine = Engine::Sync;
  pr.operands[0] = onchip(Memory::SBUF, DType::float32, 0, 4, 0x40, {{1, 256}});
  pr.params.text = 1;
  p.streams[size_t(Engine::Sync)].push_back(pr);
  const std::string text = print_asm(p);
  CHECK(text.find(".str S0 \"t\"\n.str S1 \"a \\\"quoted\\\"\\nline\"\n.str S2 \"\"\n") != std::string::npos);
  CHECK(text.find("device_print src=") != std::string::npos);
  CHECK(text.find(" text=1") != std::string::npos);
  CHECK(diff(parse_asm(text, "p.s"), p) == "");
  CHECK(diff(decode_program(encode_program(p), "p.nkibin"), p) == "");
  CHECK(parse_error(".str S1 \"x\"\n") == "1:6: expected label S0, found 'S1' (strings are numbered from S0 in order)");
  CHECK(parse_error(".str S0 x\n") == "1:9: expected a quoted string, found 'x'");
}

TEST_CASE("constant data (nl.shared_constant): init= round trip through asm and binary, size checked") {
  Program p = small_program();
  p.hbm_tensors.push_back({"c", HbmTensor::Kind::Internal, DType::bfloat16, {2, 2}, 0x2800, 8, -1, -1,
                           {0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0xff, 0x7f}});
  const std::string text = print_asm(p);
  CHECK(text.find(".tensor c internal bfloat16 [2,2] @0x2800 bytes=8 init=803f0000 00c0ff7f") == std::string::npos);
  CHECK(text.find(".tensor c internal bfloat16 [2,2] @0x2800 bytes=8 init=803f000000c0ff7f\n") != std::string::npos);
  CHECK(diff(parse_asm(text, "p.s"), p) == "");
  CHECK(diff(decode_program(encode_program(p), "p.nkibin"), p) == "");
  CHECK(parse_error(".tensor c internal int8 [2] @0x0 bytes=2 init=0a\n") ==
        "1:1: tensor 'c': constant data of 1 bytes for a tensor of 2 bytes");
  CHECK(parse_error(".tensor c internal int8 [2] @0x0 bytes=2 init=0a0\n") ==
        "1:47: init= needs two hex digits a byte (3 digits)");
  CHECK(parse_error(".tensor c internal int8 [2] @0x0 bytes=2 init=0ag0\n") ==
        "1:49: expected a hex digit in init=, found 'g'");
  CHECK(parse_error(".tensor c input int8 [2] @0x0 bytes=2 init=0a0b\n") ==
        "1:1: tensor 'c': only an internal tensor may carry constant data");
  Program bad = p;
  bad.hbm_tensors.back().bytes = 6;
  CHECK(decode_error(encode_program(bad)).find("tensor 'c': constant data of 8 bytes for a tensor of 6 bytes (at byte ") == 0);
}
