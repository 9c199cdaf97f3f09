// nki_target.cpp - prints a target description (isa/target.cpp) as JSON: every --param with its value, unit,
// valid range and meaning. The guide's machine diagram is drawn from it (scripts/machine_svg.py).
//   nki-target [trn1|trn2|trn3] [--param NAME=VALUE ...]
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "isa/diagnostic.h"
#include "isa/target.h"

namespace {

std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}

std::string number(double v) {  // the shortest of %.15g .. %.17g that reads back as v
  char buf[64];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nkisim;
  std::string name = "trn2";
  isa::TargetDesc t;
  bool named = false;
  std::vector<std::pair<std::string, double>> params;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--param" && i + 1 < argc) {
      std::string kv = argv[++i];
      size_t eq = kv.find('=');
      char* end = nullptr;
      double v = eq == std::string::npos ? NAN : std::strtod(kv.c_str() + eq + 1, &end);
      if (eq == std::string::npos || !end || *end) {
        std::cerr << "nki-target: --param wants NAME=NUMBER, got '" << kv << "'\n";
        return 2;
      }
      params.emplace_back(kv.substr(0, eq), v);
    } else if (!named && !a.empty() && a[0] != '-') {
      name = a;
      named = true;
    } else {
      std::cerr << "usage: nki-target [trn1|trn2|trn3] [--param NAME=VALUE ...]\n";
      return 2;
    }
  }
  auto found = isa::find_target(name);
  if (!found) {
    std::cerr << "nki-target: unknown target '" << name << "' (trn1, trn2, trn3)\n";
    return 2;
  }
  t = *found;
  try {
    for (auto& [k, v] : params)
      if (!isa::set_target_param(t, k, v)) {
        std::cerr << "nki-target: unknown parameter '" << k << "'\n";
        return 2;
      }
  } catch (const Error& e) {
    std::cerr << "nki-target: " << e.what() << "\n";
    return 2;
  }
  std::ostringstream os;
  os << "{\n  \"name\": " << quoted(t.name) << ",\n  \"nc_version\": " << t.nc_version << ",\n  \"params\": {";
  bool first = true;
  for (const isa::TargetParam& p : isa::target_params()) {
    os << (first ? "\n" : ",\n") << "    " << quoted(p.name) << ": {\"value\": " << number(t.*p.field)
       << ", \"unit\": " << quoted(p.unit) << ", \"min\": " << number(p.lo) << ", \"max\": " << number(p.hi)
       << ", \"doc\": " << quoted(p.doc) << "}";
    first = false;
  }
  os << "\n  }\n}\n";
  std::cout << os.str();
  return 0;
}
