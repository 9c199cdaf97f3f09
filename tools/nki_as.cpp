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
#include "isa/target.h"
#include "isa/verify.h"
#include "tools/cli_common.h"
#include "tools/staged_files.h"

namespace po = boost::program_options;
using namespace nkisim;

namespace {

constexpr const char* kUsage = "usage: nki-as IN.s -o OUT.nkibin\n";


int run(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "print this help and exit")("output,o", po::value<std::string>(),
                                                           "the binary program to write (required)");
  const po::variables_map vm = cli::parse(argc, argv, opts, "input");
  if (vm.count("help")) {
    std::cout << kUsage << "\nReads nki-sim assembly text (docs/asm.md) and writes the binary program format\n"
              << "(docs/binary-format.md). nki-objdump converts back.\n\n"
              << opts << "\n";
    return 0;
  }
  if (!vm.count("input")) throw cli::UsageError("no input file given");
  if (!vm.count("output")) throw cli::UsageError("no output file given (-o OUT.nkibin)");
  const std::string in = vm["input"].as<std::string>(), out = vm["output"].as<std::string>();
  cli::StagedFiles staged;  // written beside OUT and renamed into place only on success
  staged.add_input(in);
  const std::string temp = staged.stage(out, "-o");

  // One program, or one per core after '.core C' directives (LNC=2).
  const std::vector<isa::Program> cores =
      isa::parse_asm_cores([&] { auto b = cli::read_file(in); return std::string(b.begin(), b.end()); }(), in);
  // The program must fit the target it names (its HBM capacity, semaphores): checked here as nki-sim does.
  // Every instruction keeps the hardware rules of that target (isa/verify.h), as a run checks them.
  for (const isa::Program& p : cores)
    if (std::optional<isa::TargetDesc> t = isa::find_target(p.target)) {
      isa::check_program_fits(p, *t, in);
      isa::verify_program(p, *t, in);
    }
  const std::vector<uint8_t> bytes = isa::encode_programs(cores);
  cli::write_file(temp, std::string(bytes.begin(), bytes.end()), out);
  staged.commit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cli::ignore_file_size_signal();
  return cli::tool_main("nki-as", kUsage, [&] { return run(argc, argv); });
}
