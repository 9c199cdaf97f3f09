// test_diagnostic.cpp - exact rendering of compiler-style diagnostics and source-line reading.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "isa/diagnostic.h"

using nkisim::Error;
using nkisim::SourceLoc;

namespace {

// A fake file system: {file -> lines}.
auto reader(std::map<std::string, std::vector<std::string>> files) {
  return [files = std::move(files)](const std::string& f, uint32_t line) -> std::optional<std::string> {
    auto it = files.find(f);
    if (it == files.end() || line == 0 || line > it->second.size()) return std::nullopt;
    return it->second[line - 1];
  };
}

std::vector<std::string> numbered(uint32_t n, const std::string& prefix) {
  std::vector<std::string> v;
  for (uint32_t i = 1; i <= n; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

}  // namespace

TEST_CASE("error with source line, caret and a note") {
  auto lines = numbered(40, "line ");
  lines[11] = "    nisa.foo(x)";
  lines[39] = "  k(x)";
  Error e("message", SourceLoc{"kernel.py", 12, 5});
  e.notes.push_back({SourceLoc{"kernel.py", 40, 3}, "called from here"});
  CHECK(nkisim::format_diagnostic(e, reader({{"kernel.py", lines}})) ==
        "kernel.py:12:5: error: message\n"
        "   12 |     nisa.foo(x)\n"
        "      |     ^\n"
        "kernel.py:40:3: note: called from here\n"
        "   40 |   k(x)\n"
        "      |   ^\n");
}

TEST_CASE("a column past the end of the line (a program's .loc) puts the caret just after it") {
  Error e("message", SourceLoc{"k.py", 1, 2147483647});
  CHECK(nkisim::format_diagnostic(e, reader({{"k.py", {"x = 1"}}})) ==
        "k.py:1:2147483647: error: message\n"
        "    1 | x = 1\n"
        "      |      ^\n");
}

TEST_CASE("the command-line tools quote only registered (compiled) source files") {
  const std::string path = std::filesystem::temp_directory_path() / ("nkisim_reg_" + std::to_string(getpid()) + ".py");
  std::ofstream(path) << "secret line\n";
  CHECK_FALSE(nkisim::read_registered_source_line(path, 1).has_value());  // e.g. a program's .loc "/etc/passwd"
  nkisim::register_source_file(path);
  CHECK(nkisim::read_registered_source_line(path, 1) == std::optional<std::string>("secret line"));
  std::filesystem::remove(path);
}

TEST_CASE("tools other than nki-sim name themselves in unlocated messages") {
  CHECK(nkisim::format_diagnostic(Error("bad input"), reader({}), "nki-as") == "nki-as: error: bad input\n");
}

TEST_CASE("source unavailable: location lines only") {
  Error e("message", SourceLoc{"kernel.py", 12, 5});
  e.notes.push_back({SourceLoc{"other.py", 3, 1}, "called from here"});
  CHECK(nkisim::format_diagnostic(e, reader({})) ==
        "kernel.py:12:5: error: message\n"
        "other.py:3:1: note: called from here\n");
  CHECK(nkisim::format_diagnostic(e, nullptr) ==
        "kernel.py:12:5: error: message\n"
        "other.py:3:1: note: called from here\n");
}

TEST_CASE("no location, file-only location, empty file name") {
  CHECK(nkisim::format_diagnostic(Error("bad input"), reader({})) == "nki-sim: error: bad input\n");
  CHECK(nkisim::format_diagnostic(Error("bad input", SourceLoc{"k.py", 0, 0}), reader({})) ==
        "k.py: error: bad input\n");
  CHECK(nkisim::format_diagnostic(Error("x", SourceLoc{"", 0, 0}), reader({})) == "nki-sim: error: x\n");
  CHECK(nkisim::format_diagnostic(Error("x", SourceLoc{"", 3, 2}), reader({})) == "<unknown>:3:2: error: x\n");
  Error e("boom");
  e.notes.push_back({SourceLoc{"k.py", 0, 0}, "while loading"});
  e.notes.push_back({SourceLoc{}, "see --help"});
  CHECK(nkisim::format_diagnostic(e, reader({})) ==
        "nki-sim: error: boom\n"
        "k.py: note: while loading\n"
        "nki-sim: note: see --help\n");
}

TEST_CASE("tabs are copied into the caret line") {
  Error e("bad", SourceLoc{"t.py", 1, 7});
  CHECK(nkisim::format_diagnostic(e, reader({{"t.py", {"\t\tx = y"}}})) ==
        "t.py:1:7: error: bad\n"
        "    1 | \t\tx = y\n"
        "      | \t\t    ^\n");
}

TEST_CASE("column 1, unknown column, column past the end, wide line numbers, UTF-8") {
  CHECK(nkisim::format_diagnostic(Error("m", SourceLoc{"a.py", 2, 1}), reader({{"a.py", {"", "abc"}}})) ==
        "a.py:2:1: error: m\n"
        "    2 | abc\n"
        "      | ^\n");
  CHECK(nkisim::format_diagnostic(Error("m", SourceLoc{"a.py", 2, 0}), reader({{"a.py", {"", "abc"}}})) ==
        "a.py:2: error: m\n"
        "    2 | abc\n");
  CHECK(nkisim::format_diagnostic(Error("m", SourceLoc{"a.py", 1, 6}), reader({{"a.py", {"abc"}}})) ==
        "a.py:1:6: error: m\n"
        "    1 | abc\n"
        "      |      ^\n");
  auto many = numbered(123456, "");
  CHECK(nkisim::format_diagnostic(Error("m", SourceLoc{"big.py", 123456, 2}), reader({{"big.py", many}})) ==
        "big.py:123456:2: error: m\n"
        "123456 | 123456\n"
        "       |  ^\n");
  // Columns are byte offsets; a two-byte character before the column takes one display column.
  CHECK(nkisim::format_diagnostic(Error("m", SourceLoc{"u.py", 1, 10}), reader({{"u.py", {"s = '\xc3\xa9' + t"}}})) ==
        "u.py:1:10: error: m\n"
        "    1 | s = '\xc3\xa9' + t\n"
        "      |         ^\n");
}

TEST_CASE("read_source_line reads lines, strips CR LF, and notices rewritten files") {
  namespace fs = std::filesystem;
  const fs::path p = fs::temp_directory_path() / ("nkisim_diag_" + std::to_string(::getpid()) + ".py");
  {
    std::ofstream out(p, std::ios::binary);
    out << "first\r\n\tsecond\n\nlast without newline";
  }
  CHECK(nkisim::read_source_line(p.string(), 1) == "first");
  CHECK(nkisim::read_source_line(p.string(), 2) == "\tsecond");
  CHECK(nkisim::read_source_line(p.string(), 3) == "");
  CHECK(nkisim::read_source_line(p.string(), 4) == "last without newline");
  CHECK_FALSE(nkisim::read_source_line(p.string(), 5).has_value());
  CHECK_FALSE(nkisim::read_source_line(p.string(), 0).has_value());
  {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << "rewritten\n";
  }
  CHECK(nkisim::read_source_line(p.string(), 1) == "rewritten");
  CHECK_FALSE(nkisim::read_source_line(p.string(), 2).has_value());
  Error e("oops", SourceLoc{p.string(), 1, 3});
  CHECK(nkisim::format_diagnostic(e, nkisim::read_source_line) ==
        p.string() + ":1:3: error: oops\n    1 | rewritten\n      |   ^\n");
  fs::remove(p);
  CHECK_FALSE(nkisim::read_source_line(p.string(), 1).has_value());
  CHECK_FALSE(nkisim::read_source_line("/nonexistent/dir/k.py", 1).has_value());
  CHECK_FALSE(nkisim::read_source_line(fs::temp_directory_path().string(), 1).has_value());
}

TEST_CASE("diagnostic: control bytes and invalid UTF-8 in the echoed line become '?', caret stays aligned") {
  nkisim::Error e("invalid UTF-8 in source (byte 0xff)", nkisim::SourceLoc{"bin.py", 1, 4});
  auto line = [](const std::string&, uint32_t) -> std::optional<std::string> { return std::string("a\x01\xff" "b\xc3\xa9", 6); };
  CHECK(nkisim::format_diagnostic(e, line) ==
        "bin.py:1:4: error: invalid UTF-8 in source (byte 0xff)\n"
        "    1 | a??b\xc3\xa9\n"
        "      |    ^\n");
}
