// exec_print.cpp - device_print (nl.device_print): writes `file:line: PREFIX: VALUES` to the print sink when the
// instruction executes, so prints come out in simulated-time order. VALUES are the [partitions, elements per
// partition] values of src as nested lists: integers as integers, floats in their shortest round-trip form
// (with ".0" when that looks like an integer, as Python prints floats). A tile of more than 1000 elements (numpy's
// print threshold) is summarised as numpy does: the first and last 3 partitions and the first and last 3 elements
// of each, with "..." for the rest. Options::print_dir also saves the whole tile as .npy.
#include <charconv>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "sim/exec.h"
#include "sim/npy.h"

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

// numpy's print options: summarise above `threshold` elements, keeping `edgeitems` at each end of each axis.
constexpr size_t kPrintThreshold = 1000, kPrintEdgeItems = 3;

// Saves the [partitions, n] tile (float32 for float tiles, else int32 / uint32) as <dir>/<tag><name>_<k>.npy.
void save_print(ExecContext& ctx, const isa::Instruction& ins, const std::string& name, uint32_t partitions, size_t n,
                isa::DTypeKind kind, const std::vector<uint32_t>& bits) {
  std::string safe = name.empty() ? std::string("print") : name;
  for (char& c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  const uint32_t k = ctx.print_counts[safe]++;
  HostArray a;
  a.dtype = kind == isa::DTypeKind::Float ? isa::DType::float32
            : kind == isa::DTypeKind::SInt ? isa::DType::int32 : isa::DType::uint32;
  a.shape = {int64_t(partitions), int64_t(n)};
  a.data.resize(bits.size() * 4);
  std::memcpy(a.data.data(), bits.data(), a.data.size());
  std::error_code ec;
  std::filesystem::create_directories(ctx.print_dir, ec);
  const std::string path = (std::filesystem::path(ctx.print_dir) / (ctx.print_tag + safe + "_" + std::to_string(k) + ".npy")).string();
  try {
    write_npy(path, a);
  } catch (const Error& e) {
    ctx.fail(ins, std::string("device_print: ") + e.what());
  }
}

}  // namespace

void exec_device_print(ExecContext& ctx, const isa::Instruction& ins) {
  const int32_t k = ins.params.text;
  if (k < 0 || size_t(k) >= ctx.program.strings.size())
    ctx.fail(ins, "device_print: text " + std::to_string(k) + " out of range (the program has " +
                      std::to_string(ctx.program.strings.size()) + " strings)");
  View src = ctx.read(ins, 0);
  const size_t n = src.free_elems;
  const isa::DTypeKind kind = isa::dtype_kind(src.dtype);
  const bool is_float = kind == isa::DTypeKind::Float;
  // All values as 32-bit patterns (fp32 bits or integers), partition by partition.
  std::vector<uint32_t> bits(size_t(src.partitions) * n);
  float* f = ctx.f32(0, n);
  uint32_t* u = ctx.u32(0, n);
  for (uint32_t p = 0; p < src.partitions; ++p) {
    if (is_float) {
      gather_f32(src, p, f);
      if (n) std::memcpy(&bits[size_t(p) * n], f, n * 4);
    } else {
      gather_int(src, p, u);
      if (n) std::memcpy(&bits[size_t(p) * n], u, n * 4);
    }
  }
  const std::string& name = ctx.program.strings[size_t(k)];
  std::string s;
  if (auto loc = ctx.location(ins)) s += loc->file + ":" + std::to_string(loc->line) + ": ";
  s += name;
  s += ": [";
  const bool summarise = size_t(src.partitions) * n > kPrintThreshold;
  auto put = [&](uint32_t v) {
    if (is_float) {
      float x;
      std::memcpy(&x, &v, 4);
      put_float(s, x);
    } else if (kind == isa::DTypeKind::SInt) {
      s += std::to_string(int32_t(v));
    } else {
      s += std::to_string(v);
    }
  };
  bool first_row = true;
  for (uint32_t p = 0; p < src.partitions; ++p) {
    if (summarise && src.partitions > 2 * kPrintEdgeItems && p == kPrintEdgeItems) {
      s += ", ...";
      p = src.partitions - uint32_t(kPrintEdgeItems);
    }
    s += first_row ? "[" : ", [";
    first_row = false;
    for (size_t j = 0; j < n; ++j) {
      if (summarise && n > 2 * kPrintEdgeItems && j == kPrintEdgeItems) {
        s += ", ...";
        j = n - kPrintEdgeItems;
      }
      if (j) s += ", ";
      put(bits[size_t(p) * n + j]);
    }
    s += "]";
  }
  s += "]\n";
  std::ostream& os = ctx.print_sink ? *ctx.print_sink : std::cerr;
  os << s;
  os.flush();
  if (!ctx.print_dir.empty()) save_print(ctx, ins, name, src.partitions, n, kind, bits);
}

}  // namespace nkisim::sim
