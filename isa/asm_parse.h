// asm_parse.h - reads the text assembly that print_asm writes (grammar in docs/asm.md).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "isa/program.h"

namespace nkisim::isa {

// Parses assembly text into a Program. Contract: parse_asm(print_asm(p), f) == p for every well-formed
// program p (docs/asm.md, "Reading assembly back"). Fields after the mnemonic may come in any order; ';'
// starts a comment. Throws nkisim::Error located at the offending token (SourceLoc{filename, line, col},
// 1-based byte columns) for unknown directives, mnemonics, operand slots, dtypes, memories, engines, ALU
// ops and activation functions, malformed access patterns or numbers, a missing required operand, a
// semaphore index >= .semaphores, an undefined @Ln, more than 4 free dims, or an instruction before any
// .stream.
Program parse_asm(std::string_view text, const std::string& filename);

// LNC=2 (docs/asm.md): text that starts with '.core 0' holds one program per physical core, each after its
// '.core C' directive (C = 0, 1 in order); text without '.core' is one program. parse_asm rejects a
// multi-core text. parse_asm_cores(print_asm_cores(v), f) == v for well-formed programs.
inline constexpr size_t kMaxAsmCores = 2;
std::vector<Program> parse_asm_cores(std::string_view text, const std::string& filename);

}  // namespace nkisim::isa
