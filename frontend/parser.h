// parser.h - Python 3.11 parser: tokens -> ModuleAst (every node carries its source span).
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "frontend/ast.h"
#include "frontend/lexer.h"

namespace nkisim::frontend {

inline constexpr int kMaxNesting = 200;  // nesting levels of expressions/blocks before "too deeply nested"

// Parses a whole file. Syntax errors throw nkisim::Error located in `file`.
std::unique_ptr<ModuleAst> parse_module(std::string source, const std::string& file);

// Parses one expression (e.g. a --arg value) into nodes owned by `m`. Trailing input is an error.
Expr* parse_expression(ModuleAst& m, std::string_view src, const std::string& file, Pos start = {1, 1});

}  // namespace nkisim::frontend
