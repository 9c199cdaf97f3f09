// diagnostic.cpp - compiler-style rendering of nkisim::Error (location, source line, caret, notes).
//
// Layout (columns are 1-based byte offsets into the line, as Python's col_offset + 1):
//   kernel.py:12:5: error: message
//      12 |     nisa.foo(x)
//         |     ^
//   kernel.py:40:3: note: called from here
//      40 |   k(x)
//         |   ^
// * The gutter is the line number right-aligned in 5 columns (wider numbers just widen it), then " | ".
// * The caret line copies tabs from the source line so the caret lines up; UTF-8 continuation bytes are
//   skipped so a multi-byte character before the column takes one display column.
// * A column more than 80 past the end of the line puts the caret just after its last byte.
// * col == 0 (unknown column): `file:line: error: ...`, the source line, no caret line.
// * line == 0: `file: error: ...` (no source), or `nki-sim: error: ...` when the file is empty too.
//   A known line with an empty file name prints as `<unknown>:line:col`.
// Notes use the same rules with `note` as the severity.
#include "isa/diagnostic.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

namespace nkisim {
namespace {

// The source line as it is echoed: control bytes (except tab) and bytes that are not part of valid UTF-8
// become '?', one per byte, so a binary or corrupt file cannot garble the terminal and the byte-based
// caret column still lines up.
std::string printable(const std::string& s) {
  std::string out = s;
  for (size_t i = 0; i < out.size();) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7F) out[i] = '?';
      ++i;
      continue;
    }
    size_t n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    bool ok = n != 0 && i + n <= out.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(out[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      out[i++] = '?';
      continue;
    }
    i += n;
  }
  return out;
}

void append_located(std::string& out, const std::optional<SourceLoc>& loc, const char* severity, const std::string& msg,
                    const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
                    const char* tool) {
  if (!loc || (loc->file.empty() && !loc->known())) {
    out += tool;
    out += ": ";
  } else if (!loc->known()) {
    out += loc->file + ": ";
  } else {
    out += loc->file.empty() ? std::string("<unknown>") : loc->file;
    out += ':' + std::to_string(loc->line);
    if (loc->col) out += ':' + std::to_string(loc->col);
    out += ": ";
  }
  out += severity;
  out += ": ";
  out += msg;
  out += '\n';
  if (!loc || !loc->known() || loc->file.empty() || !read_line) return;
  std::optional<std::string> text = read_line(loc->file, loc->line);
  if (!text) return;
  *text = printable(*text);
  std::string num = std::to_string(loc->line);
  if (num.size() < 5) num.insert(0, 5 - num.size(), ' ');
  const std::string blank(num.size(), ' ');
  out += num + " | " + *text + '\n';
  if (loc->col == 0) return;
  out += blank + " | ";
  // A column far past the end of the line (a program's .loc may say 2147483647) puts the caret just after it.
  const size_t col = loc->col > text->size() + 81 ? text->size() + 1 : loc->col;
  for (size_t i = 0; i + 1 < col; ++i) {
    if (i < text->size()) {
      const unsigned char c = static_cast<unsigned char>((*text)[i]);
      if (c == '\t') {
        out += '\t';
        continue;
      }
      if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    }
    out += ' ';
  }
  out += "^\n";
}

}  // namespace

std::string format_diagnostic(
    const Error& e, const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
    const char* tool) {
  std::string out;
  append_located(out, e.loc, "error", e.what(), read_line, tool);
  for (const auto& [loc, text] : e.notes) append_located(out, loc, "note", text, read_line, tool);
  return out;
}

std::string format_located(const std::optional<SourceLoc>& loc, const char* severity, const std::string& msg,
                           const std::vector<std::pair<SourceLoc, std::string>>& notes,
                           const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
                           const char* tool) {
  std::string out;
  append_located(out, loc, severity, msg, read_line, tool);
  for (const auto& [l, text] : notes) append_located(out, l, "note", text, read_line, tool);
  return out;
}

std::string read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
  const SourceLoc at{path};
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(what + ": " + std::strerror(errno), at);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0) throw Error(what + ": " + std::strerror(errno), at);
  if (S_ISDIR(st.st_mode)) throw Error(what + ": " + std::strerror(EISDIR), at);
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "a special file";
    throw Error(what + ": not a regular file (" + kind + ")", at);
  }
  if (uint64_t(st.st_size) > max_bytes)
    throw Error(what + ": the file has " + std::to_string(st.st_size) + " bytes, more than the " +
                    std::to_string(max_bytes) + " an input file may have",
                at);
  std::string data;
  data.resize(size_t(st.st_size));
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(what + ": " + std::strerror(errno), at);
    if (n == 0) break;  // the file shrank while being read
    got += size_t(n);
  }
  data.resize(got);
  return data;
}

namespace {
std::mutex registered_mu;
std::set<std::string>& registered_files() {
  static std::set<std::string> files;
  return files;
}
}  // namespace

void register_source_file(const std::string& file) {
  std::lock_guard<std::mutex> lock(registered_mu);
  registered_files().insert(file);
}

std::optional<std::string> read_registered_source_line(const std::string& file, uint32_t line) {
  {
    std::lock_guard<std::mutex> lock(registered_mu);
    if (!registered_files().count(file)) return std::nullopt;
  }
  return read_source_line(file, line);
}

std::optional<std::string> read_source_line(const std::string& file, uint32_t line) {
  // Cache the lines of the last file read (a diagnostic with a call chain reads one file many times);
  // the cache is keyed by name, size and modification time so a rewritten file is read again.
  static std::mutex mu;
  static std::string cached_file;
  static std::uintmax_t cached_size = 0;
  static std::filesystem::file_time_type cached_mtime;
  static std::vector<std::string> cached_lines;
  static bool cached_ok = false;
  if (line == 0) return std::nullopt;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (ec) return std::nullopt;
  const auto mtime = std::filesystem::last_write_time(file, ec);
  if (ec) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu);
  if (!cached_ok || cached_file != file || cached_size != size || cached_mtime != mtime) {
    cached_ok = false;
    cached_lines.clear();
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::string s;
    while (std::getline(in, s)) {
      if (!s.empty() && s.back() == '\r') s.pop_back();
      cached_lines.push_back(std::move(s));
    }
    if (in.bad()) {
      cached_lines.clear();
      return std::nullopt;
    }
    cached_file = file;
    cached_size = size;
    cached_mtime = mtime;
    cached_ok = true;
  }
  if (line > cached_lines.size()) return std::nullopt;
  return cached_lines[line - 1];
}

}  // namespace nkisim
