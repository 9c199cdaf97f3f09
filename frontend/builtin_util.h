// builtin_util.h - argument helpers shared by the built-in function files (builtins.cpp, stdlib.cpp).
#pragma once
#include <cmath>
#include <initializer_list>
#include <string>

#include "frontend/interp.h"

namespace nkisim::frontend::detail {

inline void nargs(const char* name, CallArgs& a, size_t lo, size_t hi, bool kw_ok = false) {
  if (!kw_ok && a.nkw) raise("TypeError", std::string(name) + "() takes no keyword arguments");
  if (a.npos < lo || a.npos > hi) {
    std::string expect = lo == hi         ? std::to_string(lo)
                         : hi == SIZE_MAX ? "at least " + std::to_string(lo)
                                          : "from " + std::to_string(lo) + " to " + std::to_string(hi);
    raise("TypeError", std::string(name) + "() takes " + expect + " argument" + (hi == 1 && lo == 1 ? "" : "s") + " (" +
                           std::to_string(a.npos) + " given)");
  }
}
inline const Value* kwarg(CallArgs& a, const char* name) {
  for (size_t i = 0; i < a.nkw; ++i)
    if (sym_name(a.kw[i].first) == name) return &a.kw[i].second;
  return nullptr;
}
inline void only_kwargs(const char* fname, CallArgs& a, std::initializer_list<const char*> allowed) {
  for (size_t i = 0; i < a.nkw; ++i) {
    bool ok = false;
    for (const char* n : allowed) ok |= sym_name(a.kw[i].first) == n;
    if (!ok)
      raise("TypeError", std::string(fname) + "() got an unexpected keyword argument '" + sym_str(a.kw[i].first) + "'");
  }
}

inline double to_float(Interp& in, const Value& v, const char* what) {
  if (v.is_number()) return v.num();
  raise("TypeError", std::string(what) + ": must be real number, not " + type_name(v));
}

// Truncates toward zero; NaN/inf/out-of-range raise like Python's int().
inline int64_t float_to_int(double d) {
  if (std::isnan(d)) raise("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(d)) raise("OverflowError", "cannot convert float infinity to integer");
  double t = std::trunc(d);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
    raise("OverflowError", "float too large to convert to a 64-bit integer");
  return int64_t(t);
}

}  // namespace nkisim::frontend::detail
