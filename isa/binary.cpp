// binary.cpp - encoder and defensive decoder of the .nkibin program format (docs/binary-format.md).
#include "isa/binary.h"

#include <cstdio>
#include <cstring>

namespace nkisim::isa {
namespace {

constexpr char kMagic[8] = {'N', 'K', 'I', 'S', 'I', 'M', 'B', '\0'};
constexpr uint32_t tag(const char (&s)[5]) {
  return uint32_t(uint8_t(s[0])) | uint32_t(uint8_t(s[1])) << 8 | uint32_t(uint8_t(s[2])) << 16 |
         uint32_t(uint8_t(s[3])) << 24;
}
constexpr uint32_t kHead = tag("HEAD"), kTens = tag("TENS"), kLocs = tag("LOCS"), kStrm = tag("STRM");
constexpr uint32_t kStrs = tag("STRS"), kCore = tag("CORE");

// Minimum encoded sizes of array elements, used to reject counts the remaining bytes cannot hold.
constexpr size_t kMinTensor = 4 + 1 + 1 + 4 + 8 + 8 + 4 + 4;
constexpr size_t kMinLocation = 4 + 4 + 4;
constexpr size_t kMinInstruction = 2 + 1 + 4 + 4 + 4;  // no fields, no waits, signals or operands
constexpr size_t kSemRecord = 2 + 4;

class Writer {
 public:
  std::vector<uint8_t> out;
  void u8(uint8_t v) { out.push_back(v); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void i32(int32_t v) { le(uint32_t(v), 4); }
  void i64(int64_t v) { le(uint64_t(v), 8); }
  void f32(float v) { u32(float_to_bits(v)); }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  size_t begin_section(uint32_t t) {
    u32(t);
    u64(0);
    return out.size();
  }
  void end_section(size_t start) {
    const uint64_t n = out.size() - start;
    for (int i = 0; i < 8; ++i) out[start - 8 + size_t(i)] = uint8_t(n >> (8 * i));
  }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
};

void write_ap(Writer& w, const AccessPattern& ap) {
  w.u8(uint8_t(ap.mem));
  if (!ap.present()) return;
  w.u8(uint8_t(ap.dtype));
  w.u32(ap.start_partition);
  w.u32(ap.num_partitions);
  w.i64(ap.partition_stride);
  w.i64(ap.offset);
  const uint8_t nd = ap.num_dims < kMaxFreeDims ? ap.num_dims : uint8_t(kMaxFreeDims);
  w.u8(nd);
  for (int d = 0; d < nd; ++d) {
    w.i64(ap.dims[d].stride);
    w.u32(ap.dims[d].count);
  }
  w.u8(uint8_t(ap.dyn.kind));  // version 5: the dynamic offset (isa::DynOffset), fields only when present
  if (!ap.dyn.present()) return;
  if (ap.dyn.kind == DynOffset::Sbuf) {
    w.u8(uint8_t(ap.dyn.dtype));
    w.u16(ap.dyn.src);
    w.i32(ap.dyn.addr);
  } else {
    w.u16(ap.dyn.src);  // the register
  }
  w.i32(ap.dyn.stride);
  w.i32(ap.dyn.lo);
  w.i32(ap.dyn.hi);
}

void write_param(Writer& w, AluOp v) { w.u8(uint8_t(v)); }
void write_param(Writer& w, ActFunc v) { w.u8(uint8_t(v)); }
void write_param(Writer& w, ReduceCmd v) { w.u8(uint8_t(v)); }
void write_param(Writer& w, float v) { w.f32(v); }
void write_param(Writer& w, bool v) { w.u8(v ? 1 : 0); }
void write_param(Writer& w, uint16_t v) { w.u16(v); }
void write_param(Writer& w, int32_t v) { w.u32(uint32_t(v)); }

void write_instruction(Writer& w, const Instruction& ins) {
  const InstrInfo& in = info(ins.op);
  w.u16(uint16_t(ins.op));
  w.u8(uint8_t(ins.engine));
  w.u32(ins.loc);
  // The fields the opcode takes (PARAMS), in params.def order: enums and Bools as u8, F32 as raw bits, U16, I32.
  if (const std::optional<ParamId> f = untaken_param(ins))
    throw Error(std::string(in.mnemonic) + " sets the field '" + std::string(param_key(*f)) +
                "' it does not take (its fields: " + param_list_text(ins.op) + "); it cannot be encoded");
  const uint64_t takes = param_mask(ins.op);
#define PARAM(field, key, kind, def) \
  if (takes >> unsigned(ParamId::field) & 1u) write_param(w, ins.params.field);
#include "isa/params.def"
#undef PARAM
  w.u32(uint32_t(ins.waits.size()));
  for (auto& s : ins.waits) {
    w.u16(s.sem);
    w.u32(s.value);
  }
  w.u32(uint32_t(ins.updates.size()));
  for (auto& s : ins.updates) {
    w.u16(s.sem);
    w.u32(s.add);
  }
  for (int i = 0; i < in.num_operands; ++i) write_ap(w, ins.operands[size_t(i)]);
}

// Reads fields from [pos, end) of the file; every read is bounds-checked and errors name the byte offset.
class Reader {
 public:
  Reader(std::span<const uint8_t> d, const std::string& file) : d_(d), file_(file), end_(d.size()) {}
  size_t pos() const { return pos_; }
  size_t left() const { return end_ - pos_; }

  [[noreturn]] void fail(const std::string& msg) const { throw Error(msg, SourceLoc{file_, 0, 0}); }
  [[noreturn]] void fail_at(size_t at, const std::string& msg) const {
    fail(msg + " (at byte " + std::to_string(at) + ")");
  }
  void need(size_t n, const char* what) const {
    if (left() >= n) return;
    if (end_ == d_.size())
      fail("truncated file at byte " + std::to_string(d_.size()) + ": " + what + " at byte " + std::to_string(pos_) +
           " needs " + std::to_string(n) + " bytes");
    fail("corrupt section '" + section_ + "': " + what + " at byte " + std::to_string(pos_) +
         " runs past the section end at byte " + std::to_string(end_));
  }
  uint64_t le(int n, const char* what) {
    need(size_t(n), what);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(d_[pos_ + size_t(i)]) << (8 * i);
    pos_ += size_t(n);
    return v;
  }
  uint8_t u8(const char* what) { return uint8_t(le(1, what)); }
  uint16_t u16(const char* what) { return uint16_t(le(2, what)); }
  uint32_t u32(const char* what) { return uint32_t(le(4, what)); }
  uint64_t u64(const char* what) { return le(8, what); }
  // n raw bytes (bounds-checked).
  std::vector<uint8_t> raw(uint64_t n, const char* what) {
    need(n > left() ? left() + 1 : size_t(n), what);
    std::vector<uint8_t> v(d_.begin() + long(pos_), d_.begin() + long(pos_ + n));
    pos_ += size_t(n);
    return v;
  }
  int32_t i32(const char* what) { return int32_t(uint32_t(le(4, what))); }
  int64_t i64(const char* what) { return int64_t(le(8, what)); }
  float f32(const char* what) { return bits_to_float(u32(what)); }
  // An enum stored as an integer; must be < n.
  uint32_t index(int bytes, uint32_t n, const char* what) {
    const size_t at = pos_;
    const uint64_t v = le(bytes, what);
    if (v >= n)
      fail_at(at, std::string(what) + " " + std::to_string(v) + " out of range (expected < " + std::to_string(n) + ")");
    return uint32_t(v);
  }
  std::string str(const char* what) {
    const size_t at = pos_;
    const uint32_t n = u32(what);
    if (n > left())
      fail_at(at, std::string(what) + ": string length " + std::to_string(n) + " exceeds file size (" +
                      std::to_string(left()) + " bytes left" +
                      (end_ == d_.size() ? "" : " in section '" + section_ + "'") + ")");
    std::string s(reinterpret_cast<const char*>(d_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  // An array length; each element takes at least `min_size` bytes, so a count the rest cannot hold is corrupt.
  uint32_t count(size_t min_size, const char* what) {
    const size_t at = pos_;
    const uint32_t n = u32(what);
    if (n > left() / min_size)
      fail_at(at, std::string(what) + " " + std::to_string(n) + " too large for the " + std::to_string(left()) +
                      " remaining bytes");
    return n;
  }
  // Enters section `t` (restricting reads to its payload); leave_section checks it was consumed exactly.
  void enter_section(uint32_t t, const std::string& name) {
    const size_t at = pos_;
    const uint32_t got = u32("section tag");
    if (got != t) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%08x", unsigned(got));
      fail_at(at, "expected section '" + name + "', found tag " + buf);
    }
    const uint64_t n = u64("section length");
    if (n > left())
      fail("truncated file at byte " + std::to_string(d_.size()) + ": section '" + name + "' at byte " +
           std::to_string(at) + " claims " + std::to_string(n) + " bytes, " + std::to_string(left()) + " left");
    section_ = name;
    end_ = pos_ + size_t(n);
  }
  void leave_section() {
    if (pos_ != end_)
      fail_at(pos_, "section '" + section_ + "' has " + std::to_string(end_ - pos_) + " unexpected trailing bytes");
    end_ = d_.size();
    section_.clear();
  }

 private:
  std::span<const uint8_t> d_;
  const std::string& file_;
  size_t pos_ = 0, end_;
  std::string section_;
};

AccessPattern read_ap(Reader& r) {
  AccessPattern ap;
  ap.mem = Memory(r.index(1, 4, "operand memory"));
  if (!ap.present()) return ap;
  ap.dtype = DType(r.index(1, uint32_t(kNumDTypes), "operand dtype"));
  size_t at = r.pos();
  ap.start_partition = r.u32("start partition");
  if (ap.mem == Memory::HBM && ap.start_partition != 0)
    r.fail_at(at, "HBM operand with start partition " + std::to_string(ap.start_partition) + " (must be 0)");
  ap.num_partitions = r.u32("partition count");
  at = r.pos();
  ap.partition_stride = r.i64("partition stride");
  if (ap.mem != Memory::HBM && ap.partition_stride != 0)
    r.fail_at(at, std::string(memory_name(ap.mem)) + " operand with partition stride " +
                      std::to_string(ap.partition_stride) + " (must be 0 on chip)");
  ap.offset = r.i64("offset");
  ap.num_dims = uint8_t(r.index(1, kMaxFreeDims + 1, "free dim count"));
  for (int d = 0; d < ap.num_dims; ++d) {
    at = r.pos();
    const int64_t stride = r.i64("dim stride");
    if (!fits_stride(stride))
      r.fail_at(at, "dim stride " + std::to_string(stride) + " out of range (a free dim's stride is 32-bit signed)");
    ap.dims[d].stride = int32_t(stride);
    ap.dims[d].count = r.u32("dim count");
  }
  at = r.pos();
  ap.dyn.kind = DynOffset::Kind(r.index(1, 3, "dynamic offset kind"));
  if (!ap.dyn.present()) return ap;
  if (ap.mem == Memory::HBM) r.fail_at(at, "HBM operand with a dynamic offset (only on-chip operands have one)");
  if (ap.dyn.kind == DynOffset::Sbuf) {
    at = r.pos();
    ap.dyn.dtype = DType(r.index(1, uint32_t(kNumDTypes), "dynamic offset dtype"));
    if (!is_integer(ap.dyn.dtype))
      r.fail_at(at, "dynamic offset dtype " + std::string(dtype_name(ap.dyn.dtype)) + " is not an integer type");
    ap.dyn.src = r.u16("dynamic offset partition");
    at = r.pos();
    ap.dyn.addr = r.i32("dynamic offset address");
    if (ap.dyn.addr < 0) r.fail_at(at, "negative dynamic offset address " + std::to_string(ap.dyn.addr));
  } else {
    ap.dyn.src = r.u16("dynamic offset register");
  }
  ap.dyn.stride = r.i32("dynamic offset stride");
  at = r.pos();
  ap.dyn.lo = r.i32("dynamic offset low bound");
  if (ap.dyn.lo < 0) r.fail_at(at, "negative dynamic offset bound " + std::to_string(ap.dyn.lo));
  at = r.pos();
  ap.dyn.hi = r.i32("dynamic offset high bound");
  if (ap.dyn.hi < 0) r.fail_at(at, "negative dynamic offset bound " + std::to_string(ap.dyn.hi));
  return ap;
}

void read_param(Reader& r, AluOp& v, const char*) { v = AluOp(r.index(1, kNumAluOps, "ALU op")); }
void read_param(Reader& r, ActFunc& v, const char*) { v = ActFunc(r.index(1, kNumActFuncs, "activation function")); }
void read_param(Reader& r, ReduceCmd& v, const char*) { v = ReduceCmd(r.index(1, kNumReduceCmds, "reduce_cmd")); }
void read_param(Reader& r, float& v, const char* key) { v = r.f32(key); }
void read_param(Reader& r, bool& v, const char* key) { v = r.index(1, 2, key) != 0; }
void read_param(Reader& r, uint16_t& v, const char* key) { v = r.u16(key); }
void read_param(Reader& r, int32_t& v, const char* key) { v = int32_t(r.u32(key)); }

Instruction read_instruction(Reader& r, const Program& p) {
  Instruction ins;
  const size_t at = r.pos();
  ins.op = Opcode(r.index(2, uint32_t(kNumOpcodes), "opcode"));
  const InstrInfo& in = info(ins.op);
  ins.engine = Engine(r.index(1, kNumEngines, "engine"));
  const size_t loc_at = r.pos();
  ins.loc = r.u32("location index");
  if (ins.loc >= p.locations.size())
    r.fail_at(loc_at, "location L" + std::to_string(ins.loc) + " out of range (the program has " +
                          std::to_string(p.locations.size()) + " locations)");
  const uint64_t takes = param_mask(ins.op);  // only the fields it takes are stored; the rest keep defaults
#define PARAM(field, key, kind, def) \
  if (takes >> unsigned(ParamId::field) & 1u) read_param(r, ins.params.field, key);
#include "isa/params.def"
#undef PARAM
  auto sem = [&](const char* what) {
    const size_t s_at = r.pos();
    const uint16_t s = r.u16(what);
    if (s >= p.num_semaphores)
      r.fail_at(s_at, "semaphore s" + std::to_string(s) + " out of range (the program has " +
                          std::to_string(p.num_semaphores) + " semaphores)");
    return s;
  };
  const uint32_t nw = r.count(kSemRecord, "wait count");
  ins.waits.reserve(nw);
  for (uint32_t i = 0; i < nw; ++i) {
    const uint16_t s = sem("wait semaphore");
    ins.waits.push_back({s, r.u32("wait value")});
  }
  const uint32_t nu = r.count(kSemRecord, "signal count");
  ins.updates.reserve(nu);
  for (uint32_t i = 0; i < nu; ++i) {
    const uint16_t s = sem("signal semaphore");
    ins.updates.push_back({s, r.u32("signal increment")});
  }
  for (int i = 0; i < in.num_operands; ++i) {
    ins.operands[size_t(i)] = read_ap(r);
    if (in.operands[i].required && !ins.operands[size_t(i)].present())
      r.fail_at(at, std::string(in.mnemonic) + " instruction lacks its required operand '" + in.operands[i].name + "'");
  }
  return ins;
}

// One core's program: HEAD, TENS, LOCS, STRS and the five STRM sections.
void write_core(Writer& w, const Program& p) {
  size_t s = w.begin_section(kHead);
  w.str(p.target);
  w.str(p.kernel_name);
  w.u32(p.num_semaphores);
  w.u64(p.hbm_bytes);
  w.end_section(s);

  s = w.begin_section(kTens);
  w.u32(uint32_t(p.hbm_tensors.size()));
  for (auto& t : p.hbm_tensors) {
    w.str(t.name);
    w.u8(uint8_t(t.kind));
    w.u8(uint8_t(t.dtype));
    w.u32(uint32_t(t.shape.size()));
    for (int64_t d : t.shape) w.i64(d);
    w.u64(t.address);
    w.u64(t.bytes);
    w.i32(t.param_index);
    w.i32(t.output_index);
    w.u64(t.init.size());  // version 6: the constant data
    w.out.insert(w.out.end(), t.init.begin(), t.init.end());
  }
  w.end_section(s);

  s = w.begin_section(kLocs);
  w.u32(uint32_t(p.locations.size()));
  for (auto& l : p.locations) {
    w.str(l.file);
    w.u32(l.line);
    w.u32(l.col);
  }
  w.end_section(s);

  s = w.begin_section(kStrs);
  w.u32(uint32_t(p.strings.size()));
  for (auto& str : p.strings) w.str(str);
  w.end_section(s);

  for (int e = 0; e < kNumEngines; ++e) {
    s = w.begin_section(kStrm);
    w.u8(uint8_t(e));
    w.u32(uint32_t(p.streams[size_t(e)].size()));
    for (auto& ins : p.streams[size_t(e)]) write_instruction(w, ins);
    w.end_section(s);
  }
}

Program read_core(Reader& r) {
  Program p;
  r.enter_section(kHead, "HEAD");
  p.target = r.str("target");
  p.kernel_name = r.str("kernel name");
  p.num_semaphores = r.u32("semaphore count");
  p.hbm_bytes = r.u64("HBM size");
  r.leave_section();

  r.enter_section(kTens, "TENS");
  const uint32_t nt = r.count(kMinTensor, "tensor count");
  p.hbm_tensors.reserve(nt);
  for (uint32_t i = 0; i < nt; ++i) {
    HbmTensor t;
    t.name = r.str("tensor name");
    t.kind = HbmTensor::Kind(r.index(1, 3, "tensor kind"));
    t.dtype = DType(r.index(1, uint32_t(kNumDTypes), "tensor dtype"));
    const uint32_t rank = r.count(8, "tensor rank");
    t.shape.reserve(rank);
    for (uint32_t k = 0; k < rank; ++k) t.shape.push_back(r.i64("tensor dimension"));
    t.address = r.u64("tensor address");
    t.bytes = r.u64("tensor size");
    t.param_index = r.i32("parameter index");
    t.output_index = r.i32("output index");
    const uint64_t ni = r.u64("constant data size");
    const size_t at = r.pos();
    t.init = r.raw(ni, "constant data");
    try {
      check_constant_data(t);
    } catch (const Error& e) {
      r.fail_at(at, e.what());
    }
    p.hbm_tensors.push_back(std::move(t));
  }
  r.leave_section();

  r.enter_section(kLocs, "LOCS");
  const size_t nl_at = r.pos();
  const uint32_t nl = r.count(kMinLocation, "location count");
  if (nl == 0) r.fail_at(nl_at, "the location table is empty (L0, the unknown location, must come first)");
  p.locations.clear();
  p.locations.reserve(nl);
  for (uint32_t i = 0; i < nl; ++i) {
    const size_t at = r.pos();
    SourceLoc l;
    l.file = r.str("location file");
    l.line = r.u32("location line");
    l.col = r.u32("location column");
    if (i == 0 && !(l == SourceLoc{})) r.fail_at(at, "location L0 must be the unknown location (\"\" 0 0)");
    p.locations.push_back(std::move(l));
  }
  r.leave_section();

  r.enter_section(kStrs, "STRS");
  const uint32_t ns = r.count(4, "string count");
  p.strings.reserve(ns);
  for (uint32_t i = 0; i < ns; ++i) p.strings.push_back(r.str("string"));
  r.leave_section();

  for (int e = 0; e < kNumEngines; ++e) {
    r.enter_section(kStrm, "STRM");
    const size_t at = r.pos();
    const uint8_t engine = r.u8("stream engine");
    if (engine != e)
      r.fail_at(at, "stream section for engine " + std::to_string(engine) + " where engine " + std::to_string(e) +
                        " (" + std::string(engine_name(Engine(e))) + ") was expected");
    const uint32_t n = r.count(kMinInstruction, "instruction count");
    auto& stream = p.streams[size_t(e)];
    stream.reserve(n);
    for (uint32_t i = 0; i < n; ++i) stream.push_back(read_instruction(r, p));
    r.leave_section();
  }
  return p;
}

// A 4-byte tag at the reader's position (without consuming it), or 0 when fewer than 4 bytes remain.
uint32_t peek_tag(std::span<const uint8_t> bytes, size_t at) {
  if (bytes.size() - at < 4) return 0;
  return uint32_t(bytes[at]) | uint32_t(bytes[at + 1]) << 8 | uint32_t(bytes[at + 2]) << 16 |
         uint32_t(bytes[at + 3]) << 24;
}

}  // namespace

std::vector<uint8_t> encode_programs(std::span<const Program> cores) {
  if (cores.empty() || cores.size() > kMaxBinaryCores)
    throw Error("encode_programs: " + std::to_string(cores.size()) + " cores (expected 1 to " +
                std::to_string(kMaxBinaryCores) + ")");
  Writer w;
  w.out.insert(w.out.end(), std::begin(kMagic), std::end(kMagic));
  w.u32(kBinaryFormatVersion);
  for (size_t c = 0; c < cores.size(); ++c) {
    if (c > 0) {  // LNC=2: a CORE marker with the core's index before each further core's sections
      const size_t s = w.begin_section(kCore);
      w.u32(uint32_t(c));
      w.end_section(s);
    }
    write_core(w, cores[c]);
  }
  return std::move(w.out);
}

std::vector<uint8_t> encode_program(const Program& p) { return encode_programs(std::span<const Program>(&p, 1)); }

std::vector<Program> decode_programs(std::span<const uint8_t> bytes, const std::string& filename) {
  Reader r(bytes, filename);
  const size_t m = bytes.size() < sizeof kMagic ? bytes.size() : sizeof kMagic;
  if (bytes.empty() || std::memcmp(bytes.data(), kMagic, m) != 0) r.fail("bad magic (not an nki-sim binary)");
  r.need(sizeof kMagic, "the magic bytes");
  r.le(sizeof kMagic, "the magic bytes");
  const uint32_t version = r.u32("format version");
  if (version != kBinaryFormatVersion)
    r.fail("unsupported format version " + std::to_string(version) + " (this build reads version " +
           std::to_string(kBinaryFormatVersion) + std::string(version > 0 && version < kBinaryFormatVersion
                                                                   ? "; re-create the file with this build's "
                                                                     "nki-sim --emit bin or nki-as"
                                                                   : "") +
           ")");
  std::vector<Program> cores;
  cores.push_back(read_core(r));
  while (r.left() != 0 && peek_tag(bytes, r.pos()) == kCore) {
    r.enter_section(kCore, "CORE");
    const size_t at = r.pos();
    const uint32_t c = r.u32("core index");
    if (c != cores.size())
      r.fail_at(at, "core index " + std::to_string(c) + " where core " + std::to_string(cores.size()) +
                        " was expected");
    if (c >= kMaxBinaryCores)
      r.fail_at(at, "core index " + std::to_string(c) + " out of range (at most " + std::to_string(kMaxBinaryCores) +
                        " cores)");
    r.leave_section();
    cores.push_back(read_core(r));
  }
  if (r.left() != 0)
    r.fail_at(r.pos(), "unexpected " + std::to_string(r.left()) + " trailing bytes after the last section");
  return cores;
}

Program decode_program(std::span<const uint8_t> bytes, const std::string& filename) {
  std::vector<Program> cores = decode_programs(bytes, filename);
  if (cores.size() != 1)
    throw Error("the file holds an LNC=" + std::to_string(cores.size()) + " program (" +
                    std::to_string(cores.size()) + " cores); run it with nki-sim --program (it needs all cores)",
                SourceLoc{filename, 0, 0});
  return std::move(cores[0]);
}

}  // namespace nkisim::isa
