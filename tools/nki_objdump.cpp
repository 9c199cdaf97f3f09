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
#include "tools/cli_common.h"
#include "tools/staged_files.h"

namespace po = boost::program_options;
using namespace nkisim;

namespace {

constexpr const char* kUsage = "usage: nki-objdump IN.nkibin [-o OUT.s]\n";


int run(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "print this help and exit")("output,o", po::value<std::string>(),
                                                           "write the assembly to FILE instead of stdout");
  const po::variables_map vm = cli::parse(argc, argv, opts, "input");
  if (vm.count("help")) {
    std::cout << kUsage << "\nReads a binary program (docs/binary-format.md) and prints it as nki-sim assembly\n"
              << "(docs/asm.md), the same text nki-sim --emit asm writes. nki-as converts back.\n\n"
              << opts << "\n";
    return 0;
  }
  if (!vm.count("input")) throw cli::UsageError("no input file given");
  const std::string in = vm["input"].as<std::string>();

  const std::vector<uint8_t> bytes = cli::read_file(in);
  const std::string text = isa::print_asm_cores(isa::decode_programs(bytes, in));  // LNC=2: '.core' per core
  if (!vm.count("output")) {
    std::cout << text;
    if (!std::cout.flush()) throw Error("cannot write to standard output", SourceLoc{"nki-objdump"});
    return 0;
  }
  const std::string out = vm["output"].as<std::string>();
  cli::StagedFiles staged;  // written beside OUT and renamed into place only on success
  staged.add_input(in);
  cli::write_file(staged.stage(out, "-o"), text, out);
  staged.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cli::ignore_file_size_signal();
  return cli::tool_main("nki-objdump", kUsage, [&] { return run(argc, argv); });
}
