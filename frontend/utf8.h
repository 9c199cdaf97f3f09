// utf8.h - str values are Unicode: their text is UTF-8 (validated by the lexer) and lengths, indices,
// slices, widths and find positions count code points. Case mapping covers ASCII, Latin-1, Latin
// Extended-A, Greek and Cyrillic (simple one-to-one mappings).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nkisim::frontend::utf8 {

inline bool is_ascii(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80) return false;
  return true;
}

// Bytes in the sequence starting with lead byte `c` (1 for stray continuation bytes).
inline size_t seq_len(unsigned char c) { return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1; }

inline size_t length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Byte offset of each code point, plus s.size() at the end (size length(s) + 1).
inline std::vector<size_t> offsets(std::string_view s) {
  std::vector<size_t> out;
  out.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); i += seq_len((unsigned char)s[i])) out.push_back(i);
  out.push_back(s.size());
  return out;
}

// The code point at byte `i`; *n receives its length in bytes.
inline uint32_t decode(std::string_view s, size_t i, size_t* n) {
  unsigned char c = s[i];
  size_t len = seq_len(c);
  if (i + len > s.size()) len = 1;
  *n = len;
  if (len == 1) return c;
  uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
  return cp;
}

uint32_t to_upper(uint32_t cp);
uint32_t to_lower(uint32_t cp);
bool is_alpha(uint32_t cp);  // letters: cased letters of the ranges above, and CJK / kana / Hangul
inline bool is_upper(uint32_t cp) { return to_lower(cp) != cp; }
inline bool is_lower(uint32_t cp) { return to_upper(cp) != cp; }

}  // namespace nkisim::frontend::utf8
