// helpers.h - shared helpers for the front-end tests: run Python snippets, capture output and errors.
#pragma once
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/compile.h"
#include "frontend/interp.h"
#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "ir/kernel.h"

namespace fe = nkisim::frontend;

// Runs `src` as a module; returns what print() wrote, without the "file:line: " prefixes.
inline std::string run_py(const std::string& src, fe::InterpOptions opts = {}) {
  std::string out;
  opts.print_sink = &out;
  fe::Interp in(opts);
  in.load_main("snippet.py", src, "snippet");
  std::string clean;
  size_t p = 0;
  while (p < out.size()) {
    size_t e = out.find('\n', p);
    std::string line = out.substr(p, e - p);
    size_t c1 = line.find(": ");
    clean += (c1 == std::string::npos ? line : line.substr(c1 + 2)) + "\n";
    p = e == std::string::npos ? out.size() : e + 1;
  }
  return clean;
}

// Runs `src` expecting an error; returns "line:col: message" ("?:?: message" when unlocated).
inline std::string py_error(const std::string& src, fe::InterpOptions opts = {}) {
  std::string out;
  opts.print_sink = &out;
  try {
    fe::Interp in(opts);
    in.load_main("snippet.py", src, "snippet");
  } catch (nkisim::Error& e) {
    if (!e.loc) return std::string("?:?: ") + e.what();
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "no error";
}

// Parses `src`; returns "" or "line:col: message".
inline std::string parse_error(const std::string& src) {
  try {
    fe::parse_module(src, "snippet.py");
  } catch (nkisim::Error& e) {
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "";
}

// A kernel source written to a fresh temporary file.
struct TempKernel {
  std::string path;
  explicit TempKernel(const std::string& src, const std::string& name = "kernel.py") {
    static std::atomic<int> counter{0};
    auto dir = std::filesystem::temp_directory_path() /
               ("nkisim_fe_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << src;
  }
  ~TempKernel() {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ec);
  }
};

inline fe::TensorArgSpec spec(std::vector<int64_t> shape, nkisim::isa::DType dt = nkisim::isa::DType::float32) {
  fe::TensorArgSpec s;
  s.dtype = dt;
  s.shape = std::move(shape);
  return s;
}

// Compiles `src` expecting an error; returns "line:col: message".
inline std::string compile_error(const std::string& src, fe::CompileOptions opts = {}) {
  TempKernel k(src);
  try {
    fe::compile_to_ir(k.path, opts);
  } catch (nkisim::Error& e) {
    if (!e.loc || !e.loc->line) return std::string("?:?: ") + e.what();
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "no error";
}

// Kernel snippets for the nki.isa binding tests: kKernelHead + body, compiled with one tensor argument x
// (default [128, 512] float32) for a target.
inline const char* const kKernelHead =
    "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n@nki.jit\ndef k(x):\n";
inline fe::CompileOptions kernel_options(const std::string& target, fe::TensorArgSpec x) {
  fe::CompileOptions o;
  o.inputs = {std::move(x)};
  o.target = target;
  return o;
}
inline nkisim::ir::Kernel compile_body(const std::string& body, const std::string& target = "trn2",
                                       fe::TensorArgSpec x = spec({128, 512})) {
  TempKernel t(std::string(kKernelHead) + body);
  return fe::compile_to_ir(t.path, kernel_options(target, std::move(x)));
}
inline std::string body_error(const std::string& body, const std::string& target = "trn2",
                              fe::TensorArgSpec x = spec({128, 512})) {
  return compile_error(std::string(kKernelHead) + body, kernel_options(target, std::move(x)));
}
// body_error through the back end too (ir::lower, whose isa::verify holds the hardware rules the bindings leave
// to it): "line:col: message" of the first error, or "no error".
inline std::string lowered_error(const std::string& body, const std::string& target = "trn2",
                                 fe::TensorArgSpec x = spec({128, 512})) {
  TempKernel k(std::string(kKernelHead) + body);
  try {
    fe::compile(k.path, kernel_options(target, std::move(x)), *nkisim::isa::find_target(target));
  } catch (nkisim::Error& e) {
    if (!e.loc || !e.loc->line) return std::string("?:?: ") + e.what();
    return std::to_string(e.loc->line) + ":" + std::to_string(e.loc->col) + ": " + e.what();
  }
  return "no error";
}
// The ops of a kernel with the given opcode, in program order.
inline std::vector<const nkisim::ir::Op*> ops_of(const nkisim::ir::Kernel& k, nkisim::isa::Opcode op) {
  std::vector<const nkisim::ir::Op*> v;
  for (auto& o : k.ops)
    if (o.opcode == op) v.push_back(&o);
  return v;
}
