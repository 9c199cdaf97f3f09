// cli_common.h - what the command-line tools share: option parsing with one positional argument, file
// reading with located errors, and a main() wrapper mapping errors to exit codes (1 user error, 2 usage).
#pragma once
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "isa/diagnostic.h"
#include "isa/target.h"

namespace nkisim::cli {

namespace po = boost::program_options;

// A bad command line: printed with the usage text, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses argv against `opts` plus one hidden positional option named `positional` (`many`: a list of them).
inline po::variables_map parse(int argc, char** argv, const po::options_description& opts, const char* positional,
                               bool many = false) {
  po::options_description hidden;
  if (many)
    hidden.add_options()(positional, po::value<std::vector<std::string>>());
  else
    hidden.add_options()(positional, po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add(positional, many ? -1 : 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

// A budget option (--max-steps, ...): a whole number from 1 to `max` (2^63 - 1 by default), written in decimal.
inline uint64_t count_option(const po::variables_map& vm, const char* option, uint64_t max = uint64_t(INT64_MAX)) {
  const std::string text = vm[option].as<std::string>();
  bool ok = !text.empty() && text.size() <= 19;
  for (char c : text) ok = ok && c >= '0' && c <= '9';
  const uint64_t v = ok ? std::stoull(text) : 0;
  if (!ok || v == 0 || v > max)
    throw UsageError(std::string("--") + option + " expects a positive whole number, got '" + text + "'");
  return v;
}

// --lnc N: isa::check_lnc against the target, as a usage error.
inline void check_lnc_option(const isa::TargetDesc& t, int lnc) {
  try {
    isa::check_lnc(t, lnc);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

// Input files (programs, assembly) larger than this are refused: --help and README.md list it.
constexpr uint64_t kMaxInputFileBytes = uint64_t(4) << 30;

// The whole file; a missing, unreadable or directory path, a FIFO or device (which could block or never end),
// or a file over kMaxInputFileBytes is an Error naming the file and the reason.
inline std::vector<uint8_t> read_file(const std::string& path) {
  const std::string s = read_regular_file(path, kMaxInputFileBytes);
  return std::vector<uint8_t>(s.begin(), s.end());
}

// Runs `run` and maps its failures to messages and exit codes.
template <class Run>
int tool_main(const char* tool, const char* usage, Run&& run) {
  try {
    return run();
  } catch (const UsageError& e) {
    std::cerr << tool << ": error: " << e.what() << "\n"
              << usage << "Try '" << tool << " --help' for more information.\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << format_diagnostic(e, read_registered_source_line, tool);
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << tool << ": internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace nkisim::cli
