// nki_as.cpp - nki-as: assemble nki-sim assembly text (docs/asm.md) into a binary program (.nkibin).
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "isa/asm_parse.h"
#include "isa/binary.h"
#include "isa/diagnostic.h"

namespace po = boost::program_options;
using namespace nkisim;

namespace {

constexpr const char* kUsage = "usage: nki-as IN.s -o OUT.nkibin\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read file: is a directory", SourceLoc{path});
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(std::string("cannot read file: ") + std::strerror(errno), SourceLoc{path});
  std::string s{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  if (f.bad()) throw Error("cannot read file", SourceLoc{path});
  return s;
}

int run(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "print this help and exit")("output,o", po::value<std::string>(),
                                                           "the binary program to write (required)");
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
    std::cout << kUsage << "\nReads nki-sim assembly text (docs/asm.md) and writes the binary program format\n"
              << "(docs/binary-format.md). nki-objdump converts back.\n\n"
              << opts << "\n";
    return 0;
  }
  if (!vm.count("input")) throw UsageError("no input file given");
  if (!vm.count("output")) throw UsageError("no output file given (-o OUT.nkibin)");
  const std::string in = vm["input"].as<std::string>(), out = vm["output"].as<std::string>();

  const isa::Program p = isa::parse_asm(read_file(in), in);
  const std::vector<uint8_t> bytes = isa::encode_program(p);
  std::ofstream f(out, std::ios::binary);
  if (!f || !f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size())) || !f.flush())
    throw Error("cannot write file", SourceLoc{out});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "nki-as: error: " << e.what() << "\n" << kUsage << "Try 'nki-as --help' for more information.\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << format_diagnostic(e, read_source_line);
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "nki-as: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "nki-as: internal error: " << e.what() << "\n";
    return 1;
  }
}
