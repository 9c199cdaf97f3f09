// exec_print.cpp - device_print (nl.device_print): writes `file:line: PREFIX: VALUES` to the print sink when the
// instruction executes, so prints come out in simulated-time order. VALUES are the [partitions, elements per
// partition] values of src as nested lists: integers as integers, floats in their shortest round-trip form
// (with ".0" when that looks like an integer, as Python prints floats).
#include <charconv>
#include <iostream>

#include "sim/exec.h"

namespace nkisim::sim {
namespace {

void put_float(std::string& s, float x) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  std::string t(buf, r.ptr);
  if (t == "inf" || t == "-inf" || t == "nan" || t == "-nan") {
    s += t == "-nan" ? "nan" : t;
    return;
  }
  if (t.find_first_of(".e") == std::string::npos) t += ".0";
  s += t;
}

}  // namespace

void exec_device_print(ExecContext& ctx, const isa::Instruction& ins) {
  const int32_t k = ins.params.text;
  if (k < 0 || size_t(k) >= ctx.program.strings.size())
    ctx.fail(ins, "device_print: text " + std::to_string(k) + " out of range (the program has " +
                      std::to_string(ctx.program.strings.size()) + " strings)");
  View src = ctx.read(ins, 0);
  std::string s;
  if (auto loc = ctx.location(ins)) s += loc->file + ":" + std::to_string(loc->line) + ": ";
  s += ctx.program.strings[size_t(k)];
  s += ": [";
  const size_t n = src.free_elems;
  const isa::DTypeKind kind = isa::dtype_kind(src.dtype);
  const bool is_float = kind == isa::DTypeKind::Float;
  float* f = ctx.f32(0, n);
  uint32_t* u = ctx.u32(0, n);
  for (uint32_t p = 0; p < src.partitions; ++p) {
    s += p ? ", [" : "[";
    if (is_float)
      gather_f32(src, p, f);
    else
      gather_int(src, p, u);
    for (size_t j = 0; j < n; ++j) {
      if (j) s += ", ";
      if (is_float)
        put_float(s, f[j]);
      else if (kind == isa::DTypeKind::SInt)
        s += std::to_string(int32_t(u[j]));
      else
        s += std::to_string(u[j]);
    }
    s += "]";
  }
  s += "]\n";
  std::ostream& os = ctx.print_sink ? *ctx.print_sink : std::cerr;
  os << s;
  os.flush();
}

}  // namespace nkisim::sim
