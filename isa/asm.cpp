// asm.cpp - the text assembly printer (grammar in docs/asm.md). Deterministic; parse_asm reads it back exactly.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "isa/program.h"

namespace nkisim::isa {
namespace {

// %.9g is enough digits for every finite float to read back bit-exactly (strtof). NaNs print as "nan" /
// "-nan" for the two default quiet NaNs and as "nan(0xBITS)" (all 32 bits, sign included) otherwise.
std::string fmt_float(float v) {
  char buf[64];
  if (std::isnan(v)) {
    const uint32_t b = float_to_bits(v);
    if (b == 0x7fc00000u) return "nan";
    if (b == 0xffc00000u) return "-nan";
    std::snprintf(buf, sizeof buf, "nan(0x%08x)", unsigned(b));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.9g", double(v));
  return buf;
}
// Parameters are printed when their bits differ from the default (so -0 and NaN are never dropped).
bool same_bits(float a, float b) { return float_to_bits(a) == float_to_bits(b); }

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

// A name prints bare when it is a non-empty run of printable ASCII without '"', ';' or '\'; otherwise
// as a quoted string with \" \\ \n \r \t and \xHH escapes (bytes >= 0x80 are copied as they are).
bool bare_ok(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (c <= 0x20 || c >= 0x7f || c == '"' || c == ';' || c == '\\') return false;
  return true;
}
std::string quote(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        q += "\\\"";
        break;
      case '\\':
        q += "\\\\";
        break;
      case '\n':
        q += "\\n";
        break;
      case '\r':
        q += "\\r";
        break;
      case '\t':
        q += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
          q += buf;
        } else {
          q += char(c);
        }
    }
  }
  return q + "\"";
}
std::string name(const std::string& s) { return bare_ok(s) ? s : quote(s); }

// Parameter values as printed after `key` (a Bool prints as the bare key).
bool param_equal(float a, float b) { return same_bits(a, b); }
template <class T>
bool param_equal(T a, T b) { return a == b; }
std::string param_text(AluOp v) { return "=" + std::string(alu_name(v)); }
std::string param_text(ActFunc v) { return "=" + std::string(act_name(v)); }
std::string param_text(ReduceCmd v) { return "=" + std::string(reduce_cmd_name(v)); }
std::string param_text(float v) { return "=" + fmt_float(v); }
std::string param_text(bool) { return ""; }
std::string param_text(uint16_t v) { return "=" + std::to_string(v); }
std::string param_text(int32_t v) { return "=" + std::to_string(v); }

// The instruction text; `stream` is the engine of the stream it is printed in (engine= is printed when the
// instruction's own engine field differs, which a well-formed program never has).
std::string instruction_text(const Instruction& ins, std::optional<Engine> stream) {
  const InstrInfo& in = info(ins.op);
  std::string s = in.mnemonic;
  for (int i = 0; i < in.num_operands; ++i) {
    if (!ins.operands[i].present()) continue;
    s += ' ';
    s += in.operands[i].name;
    s += '=';
    s += to_string(ins.operands[i]);
  }
  const InstrParams d{};
  const InstrParams& p = ins.params;
  // The fields the opcode takes (PARAMS) that differ from their defaults, in params.def order; a DMA always
  // shows its queue. A well-formed instruction has no other field set; one that has is printed all the same
  // (the text never hides a field), and the parser rejects it.
  auto put = [&](const char* key, bool differs, const std::string& value) {
    if (differs || (has_trait(ins.op, Trait::DMA) && std::string_view(key) == "queue")) s += " " + std::string(key) + value;
  };
#define PARAM(field, key, kind, def) put(key, !param_equal(p.field, d.field), param_text(p.field));
#include "isa/params.def"
#undef PARAM
  if (stream && ins.engine != *stream) s += " engine=" + std::string(engine_name(ins.engine));
  for (size_t i = 0; i < ins.waits.size(); ++i)
    s += (i ? "," : " wait=") + ("s" + std::to_string(ins.waits[i].sem) + ">=" + std::to_string(ins.waits[i].value));
  for (size_t i = 0; i < ins.updates.size(); ++i)
    s += (i ? "," : " signal=") + ("s" + std::to_string(ins.updates[i].sem) + "+" + std::to_string(ins.updates[i].add));
  if (ins.loc) s += " @L" + std::to_string(ins.loc);
  return s;
}

}  // namespace

// sbuf:float32@p0:128+0x400[[1,512]]      on-chip: partitions start:count, byte offset, free dims
// hbm:bfloat16@0x2000[[1024,128],[1,512]] HBM: byte address, partition pair first, then free dims
std::string to_string(const AccessPattern& ap) {
  if (!ap.present()) return "none";
  std::string s{memory_name(ap.mem)};
  s += ':';
  s += dtype_name(ap.dtype);
  s += '@';
  if (ap.mem == Memory::HBM) {
    s += hex(uint64_t(ap.offset));
    s += "[[" + std::to_string(ap.partition_stride) + "," + std::to_string(ap.num_partitions) + "]";
  } else {
    s += "p" + std::to_string(ap.start_partition) + ":" + std::to_string(ap.num_partitions) + "+" +
         hex(uint64_t(ap.offset));
    s += "[";
  }
  const int nd = ap.num_dims < kMaxFreeDims ? ap.num_dims : kMaxFreeDims;  // never read past dims[]
  for (int d = 0; d < nd; ++d) {
    if (ap.mem == Memory::HBM || d > 0) s += ",";
    s += "[" + std::to_string(ap.dims[d].stride) + "," + std::to_string(ap.dims[d].count) + "]";
  }
  s += "]";
  if (ap.dyn.present()) {  // dyn(sbuf:int32@p0+0x40,STRIDE,LO,HI) or dyn(rN,STRIDE,LO,HI)
    s += "dyn(";
    if (ap.dyn.kind == DynOffset::Sbuf)
      s += "sbuf:" + std::string(dtype_name(ap.dyn.dtype)) + "@p" + std::to_string(ap.dyn.src) + "+" +
           hex(uint64_t(uint32_t(ap.dyn.addr)));
    else
      s += "r" + std::to_string(ap.dyn.src);
    s += "," + std::to_string(ap.dyn.stride) + "," + hex(uint64_t(uint32_t(ap.dyn.lo))) + "," +
         hex(uint64_t(uint32_t(ap.dyn.hi))) + ")";
  }
  return s;
}

std::string print_instruction(const Instruction& ins) { return instruction_text(ins, std::nullopt); }

namespace {
// Everything after the first comment line: the directives and streams of one core's program.
void print_program_body(std::ostringstream& os, const Program& p) {
  os << ".target " << name(p.target) << "\n";
  os << ".kernel " << name(p.kernel_name) << "\n";
  os << ".semaphores " << p.num_semaphores << "\n";
  os << ".hbm_bytes " << hex(p.hbm_bytes) << "\n";
  for (auto& t : p.hbm_tensors) {
    const char* kind = t.kind == HbmTensor::Kind::Input    ? "input"
                       : t.kind == HbmTensor::Kind::Output ? "output"
                                                           : "internal";
    os << ".tensor " << name(t.name) << " " << kind << " " << dtype_name(t.dtype) << " [";
    for (size_t i = 0; i < t.shape.size(); ++i) os << (i ? "," : "") << t.shape[i];
    os << "] @" << hex(t.address) << " bytes=" << t.bytes;
    if (t.param_index != -1) os << " param=" << t.param_index;
    if (t.output_index != -1) os << " out=" << t.output_index;
    if (!t.init.empty()) {  // the constant data: two lowercase hex digits a byte, in address order
      static const char* hexd = "0123456789abcdef";
      os << " init=";
      for (uint8_t b : t.init) os << hexd[b >> 4] << hexd[b & 15];
    }
    os << "\n";
  }
  for (size_t i = 1; i < p.locations.size(); ++i)
    os << ".loc L" << i << " " << quote(p.locations[i].file) << " " << p.locations[i].line << " " << p.locations[i].col
       << "\n";
  for (size_t i = 0; i < p.strings.size(); ++i) os << ".str S" << i << " " << quote(p.strings[i]) << "\n";
  for (int e = 0; e < kNumEngines; ++e) {
    if (p.streams[e].empty()) continue;
    os << "\n.stream " << engine_name(Engine(e)) << "\n";
    for (auto& ins : p.streams[e]) os << "  " << instruction_text(ins, Engine(e)) << "\n";
  }
}
}  // namespace

std::string print_asm(const Program& p) {
  std::ostringstream os;
  os << "; nki-sim assembly\n";
  print_program_body(os, p);
  return os.str();
}

std::string print_asm_cores(std::span<const Program> cores) {
  if (cores.size() == 1) return print_asm(cores[0]);
  std::ostringstream os;
  os << "; nki-sim assembly, LNC=" << cores.size() << "\n";
  for (size_t c = 0; c < cores.size(); ++c) {
    os << (c ? "\n" : "") << ".core " << c << "\n";
    print_program_body(os, cores[c]);
  }
  return os.str();
}

void check_constant_data(const HbmTensor& t) {
  if (t.init.empty()) return;
  if (t.kind != HbmTensor::Kind::Internal)
    throw Error("tensor '" + t.name + "': only an internal tensor may carry constant data");
  if (t.init.size() != t.bytes)
    throw Error("tensor '" + t.name + "': constant data of " + std::to_string(t.init.size()) +
                " bytes for a tensor of " + std::to_string(t.bytes) + " bytes");
}

uint32_t Program::add_location(const SourceLoc& l) {
  if (!l.known()) return 0;
  for (size_t i = 1; i < locations.size(); ++i)
    if (locations[i] == l) return uint32_t(i);
  locations.push_back(l);
  return uint32_t(locations.size() - 1);
}

}  // namespace nkisim::isa
