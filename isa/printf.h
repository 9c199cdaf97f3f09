// printf.h - printf into a std::string, of any length (the reports' number formatting: profile, explain, compare,
// sweep).
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

namespace nkisim::isa {

inline std::string printf_string(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string printf_string(const char* f, ...) {
  va_list ap, again;
  va_start(ap, f);
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, f, ap);
  va_end(ap);
  std::string s(n > 0 ? size_t(n) : 0, '\0');
  if (n > 0) std::vsnprintf(s.data(), size_t(n) + 1, f, again);
  va_end(again);
  return s;
}

}  // namespace nkisim::isa
