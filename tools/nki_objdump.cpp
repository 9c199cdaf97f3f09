// nki_objdump.cpp - nki-objdump: print a binary program (.nkibin) as nki-sim assembly text (docs/asm.md).
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "isa/binary.h"
#include "isa/diagnostic.h"

namespace po = boost::program_options;
using namespace nkisim;

namespace {

constexpr const char* kUsage = "usage: nki-objdump IN.nkibin [-o OUT.s]\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read file: is a directory", SourceLoc{path});
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(std::string("cannot read file: ") + std::strerror(errno), SourceLoc{path});
  std::vector<uint8_t> b{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  if (f.bad()) throw Error("cannot read file", SourceLoc{path});
  return b;
}

int run(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "print this help and exit")("output,o", po::value<std::string>(),
                                                           "write the assembly to FILE instead of stdout");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\nReads a binary program (docs/binary-format.md) and prints it as nki-sim assembly\n"
              << "(docs/asm.md), the same text nki-sim --emit asm writes. nki-as converts back.\n\n"
              << opts << "\n";
    return 0;
  }
  if (!vm.count("input")) throw UsageError("no input file given");
  const std::string in = vm["input"].as<std::string>();

  const std::vector<uint8_t> bytes = read_file(in);
  const std::string text = isa::print_asm(isa::decode_program(bytes, in));
  if (!vm.count("output")) {
    std::cout << text;
    if (!std::cout.flush()) throw Error("cannot write to standard output", SourceLoc{"nki-objdump"});
    return 0;
  }
  const std::string out = vm["output"].as<std::string>();
  std::ofstream f(out, std::ios::binary);
  if (!f || !(f << text) || !f.flush()) throw Error("cannot write file", SourceLoc{out});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "nki-objdump: error: " << e.what() << "\n"
              << kUsage << "Try 'nki-objdump --help' for more information.\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << format_diagnostic(e, read_source_line);
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "nki-objdump: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "nki-objdump: internal error: " << e.what() << "\n";
    return 1;
  }
}
