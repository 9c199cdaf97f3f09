// diagnostic.h - errors as values with a source location, printed like a compiler.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nkisim {

// A position in a kernel source file. `line` and `col` are 1-based; 0 means unknown.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t col = 0;
  bool known() const { return line != 0; }
  bool operator==(const SourceLoc&) const = default;
};

// Every user-facing failure (bad kernel, bad input, hardware-rule violation at run time) is an Error.
// `loc` points into the kernel when known; `notes` carry e.g. the call chain ("called from k.py:40").
struct Error : std::runtime_error {
  std::optional<SourceLoc> loc;
  std::vector<std::pair<SourceLoc, std::string>> notes;
  // An out-of-bounds index (indirect DMA): numpy's wording, e.g. "index 66048 is out of bounds for axis 0 with
  // size 65536" (the element index into the flattened tensor); the Python package raises IndexError with it.
  std::string index_error;
  explicit Error(std::string msg, std::optional<SourceLoc> l = std::nullopt)
      : std::runtime_error(std::move(msg)), loc(std::move(l)) {}
};

// Formats `file:line:col: error: msg`, then the source line and a caret under the column, then notes.
// `read_line(file, line)` returns the text of that line if available. Without a location:
// `TOOL: error: msg` (or `file: error: msg` when only the file is known, line == 0).
std::string format_diagnostic(const Error& e,
                              const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
                              const char* tool = "nki-sim");
// The same layout for any severity ("warning" for --check findings): `loc: severity: msg`, the source line, a caret,
// then each note.
std::string format_located(const std::optional<SourceLoc>& loc, const char* severity, const std::string& msg,
                           const std::vector<std::pair<SourceLoc, std::string>>& notes,
                           const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
                           const char* tool = "nki-sim");
// The whole of a regular file, read without blocking on a FIFO or device. A missing or unreadable file, a
// directory, a FIFO, device or socket, or a file over `max_bytes` is an Error located at `path` whose message
// starts with `what` (e.g. "cannot open: Is a directory", "cannot open: not a regular file (a FIFO)").
std::string read_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what = "cannot open");

// Source files whose lines a command-line tool's diagnostics may quote: the kernel files a run compiled
// (the front end registers each file it loads). A location a program names (.loc "/etc/passwd" 1 1) is
// printed but its file never read. read_registered_source_line is read_source_line for registered files only.
void register_source_file(const std::string& file);
std::optional<std::string> read_registered_source_line(const std::string& file, uint32_t line);

// Reads line `line` (1-based) of a file from disk; nullopt if unreadable.
std::optional<std::string> read_source_line(const std::string& file, uint32_t line);

}  // namespace nkisim
