// compile_program.cpp - frontend::compile: the front end followed by the back end (ir::lower).
// Kept apart from compile.cpp so programs that only need compile_to_ir do not link the back end.
#include "frontend/compile.h"
#include "ir/lower.h"

namespace nkisim::frontend {

isa::Program compile(const std::string& path, const CompileOptions& opts, const isa::TargetDesc& target) {
  ir::Kernel k = compile_to_ir(path, opts);
  return ir::lower(k, target);
}

}  // namespace nkisim::frontend
