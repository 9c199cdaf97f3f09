// regions_match.cpp - the test tool `regions-match`: compiles a kernel as an nki-sim command line would and lowers it
// through both semaphore paths (ir::SemaphorePath: the straight-line fast path and the region emitter of dynamic
// loops); on a loop-free kernel the two programs must be identical, instruction by instruction (ir/deps.h).
//
//   regions-match KERNEL.py [nki-sim options]
//
// Reads the options that decide the compile (-k, --inputs FILE[:DTYPE], --arg, --target, --param, --lnc, --grid,
// -I, --max-steps, --max-instructions, --max-recursion, --max-compile-memory) and ignores the others. Prints
// "same N" (N instructions), "loops" (the kernel has registers or dynamic loops: only one path applies) or the
// first difference; exit 0, 0, 1; 2 for a bad command line or a kernel that does not compile.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "api/run.h"
#include "isa/instruction.h"
#include "sim/npy.h"

using namespace nkisim;

namespace {

std::pair<std::string, std::string> split(const std::string& s) {
  const size_t eq = s.find('=');
  return {s.substr(0, eq), eq == std::string::npos ? "" : s.substr(eq + 1)};
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

int run(int argc, char** argv) {
  api::CompileRequest req;
  std::string target = "trn2";
  bool target_given = false;
  std::vector<std::string> params;
  // Options with a value; --inputs takes every following argument up to the next option.
  const std::vector<std::string> valued = {"-k",
                                           "--kernel",
                                           "--arg",
                                           "--target",
                                           "--param",
                                           "--lnc",
                                           "--grid",
                                           "-I",
                                           "--include",
                                           "--max-steps",
                                           "--max-instructions",
                                           "--max-recursion",
                                           "--max-compile-memory",
                                           "--max-loop-iterations",
                                           "--max-run-elements",
                                           "-o",
                                           "--output-dir",
                                           "--stats",
                                           "--trace",
                                           "--trace-detail",
                                           "--html",
                                           "--print-dir",
                                           "--profile-json",
                                           "--check-json",
                                           "--sweep-format"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], v;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos)
      std::tie(a, v) = split(a);
    else if (std::find(valued.begin(), valued.end(), a) != valued.end() && i + 1 < argc)
      v = argv[++i];
    if (a == "--inputs") {
      for (; i + 1 < argc && argv[i + 1][0] != '-'; ++i) {
        std::string path = argv[i + 1];
        std::optional<isa::DType> dtype;
        const size_t colon = path.rfind(':');
        if (colon != std::string::npos && path.find('/', colon) == std::string::npos) {
          dtype = isa::parse_dtype(path.substr(colon + 1));
          path.resize(colon);
        }
        const sim::HostArray h = sim::to_host_array(sim::open_npy(path), dtype);
        req.copts.inputs.push_back({h.dtype, h.shape});
      }
    } else if (a == "-k" || a == "--kernel")
      req.copts.kernel_name = v;
    else if (a == "--arg")
      req.copts.args.push_back(split(v));
    else if (a == "--target")
      target = v, target_given = true;
    else if (a == "--param")
      params.push_back(v);
    else if (a == "--lnc")
      req.lnc = std::stoi(v);
    else if (a == "--grid") {
      std::istringstream is(v);
      for (std::string n; std::getline(is, n, ',');) req.copts.grid.push_back(std::stoll(n));
    } else if (a == "-I" || a == "--include")
      req.copts.include_dirs.push_back(v);
    else if (a == "--max-steps")
      req.copts.max_steps = std::stoull(v);
    else if (a == "--max-instructions")
      req.copts.max_instructions = std::stoull(v);
    else if (a == "--max-recursion")
      req.copts.max_recursion = std::stoi(v);
    else if (a == "--max-compile-memory")
      req.copts.max_compile_memory = std::stoull(v);
    else if (a == "--emit" && i + 2 < argc)
      i += 2;
    else if (a[0] != '-' && req.kernel_path.empty())
      req.kernel_path = a;
  }
  std::optional<isa::TargetDesc> t = isa::find_target(target);
  if (req.kernel_path.empty() || !t) {
    std::cerr << "usage: regions-match KERNEL.py [nki-sim options]\n";
    return 2;
  }
  req.copts.target_from_kernel = !target_given;
  for (const std::string& p : params) {
    auto [name, value] = split(p);
    isa::set_target_param(*t, name, std::stod(value));
    req.params.emplace_back(name, std::stod(value));
  }
  if (req.copts.grid.size() && !req.lnc) req.lnc = 1;
  req.target = *t;

  api::Compiled fast = api::compile_kernel(req);
  for (const isa::Program& p : fast.programs)
    for (const auto& s : p.streams)
      for (const isa::Instruction& ins : s)
        if (ins.op == isa::Opcode::branch || ins.op == isa::Opcode::reg_set || ins.op == isa::Opcode::reg_alu ||
            ins.op == isa::Opcode::reg_load || ins.op == isa::Opcode::reg_store ||
            ins.op == isa::Opcode::sem_wait_reg) {
          std::cout << "loops\n";
          return 0;
        }
  req.semaphore_path = ir::SemaphorePath::regions;
  api::Compiled regions = api::compile_kernel(req);
  // Instruction by instruction: one asm line each, in stream order, after the program header.
  const std::vector<std::string> a = lines(isa::print_asm_cores(fast.programs));
  const std::vector<std::string> b = lines(isa::print_asm_cores(regions.programs));
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    if (i >= a.size() || i >= b.size() || a[i] != b[i]) {
      std::cout << req.kernel_path << ": the two semaphore paths differ at asm line " << i + 1
                << ":\n  straight-line: " << (i < a.size() ? a[i] : "(end)")
                << "\n  regions:       " << (i < b.size() ? b[i] : "(end)") << "\n";
      return 1;
    }
  size_t n = 0;
  for (const isa::Program& p : fast.programs)
    for (const auto& s : p.streams) n += s.size();
  std::cout << "same " << n << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "regions-match: " << e.what() << "\n";
    return 2;
  }
}
