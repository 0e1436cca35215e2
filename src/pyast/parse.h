// Parsing Python 3.12 source into the AST of ast.h, accepting exactly what
// CPython 3.12's ast.parse accepts (mode "exec", no type comments).
//
//   pyast::SyntaxError err;
//   auto parsed = pyast::ParseModule(source, "kernel.py", &err);
//   if (!parsed.ok()) { ... err.line, err.col, err.message ... }
//   for (pyast::StmtNode* s : parsed->module->body) { ... }
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "pyast/arena.h"
#include "pyast/ast.h"

namespace tritonrl::pyast {

struct SyntaxError {
  int line = 0;         // 1-based
  int col = 0;          // 1-based, in characters (CPython's SyntaxError.offset)
  std::string message;  // e.g. "invalid syntax", "'(' was never closed"
};

struct ParsedModule {
  std::unique_ptr<Arena> arena;  // owns every node and string below
  Module* module = nullptr;
  std::string_view source;  // a copy of the input, in the arena
};

// On a syntax error returns a kParseError Status with message
// "FILENAME:LINE:COL: SyntaxError: MESSAGE" and fills *error if given.
// Never crashes or hangs on any bytes: nesting is bounded like CPython's
// (too deep input is a SyntaxError) and invalid UTF-8 is a SyntaxError.
Result<ParsedModule> ParseModule(std::string_view source, std::string_view filename,
                                 SyntaxError* error = nullptr);

}  // namespace tritonrl::pyast
