// `tritonrl parse`: parse a Python file with pyast; --dump prints what
// CPython's ast.dump(ast.parse(source)) prints, --tokens the token stream.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "base/file.h"
#include "cli/command.h"
#include "pyast/dump.h"
#include "pyast/lexer.h"
#include "pyast/parse.h"

namespace {

struct ParseOptions {
  std::string file;
  bool dump = false;
  bool tokens = false;
  bool attributes = false;
};

int RunParse(const ParseOptions& opt) {
  using namespace tritonrl;
  Result<std::string> src = ReadFile(opt.file);
  if (!src.ok()) {
    std::cerr << "tritonrl parse: " << src.status().message() << "\n";
    return 2;
  }
  if (opt.tokens) {
    std::string norm;
    pyast::LexError err;
    if (pyast::NormalizeSource(*src, &norm, &err)) {
      std::vector<pyast::Token> toks = pyast::Tokenize(norm, &err);
      for (const pyast::Token& t : toks) {
        std::cout << t.line << ":" << t.col << "-" << t.end_line << ":" << t.end_col << "\t"
                  << pyast::TokName(t.kind) << "\t"
                  << std::string_view(norm).substr(t.start, t.end - t.start) << "\n";
      }
    }
    if (err.failed) {
      std::cerr << opt.file << ":" << err.line << ":" << err.col + 1
                << ": SyntaxError: " << err.message << "\n";
      return 1;
    }
    return 0;
  }
  pyast::SyntaxError se;
  auto parsed = pyast::ParseModule(*src, opt.file, &se);
  if (!parsed.ok()) {
    std::cerr << parsed.status().message() << "\n";
    return 1;
  }
  if (opt.dump) {
    std::string out = pyast::Dump(parsed->module, opt.attributes);
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"parse", "Parse a Python 3.12 file; report syntax errors as FILE:LINE:COL", [](CLI::App& sub) {
       auto opt = std::make_shared<ParseOptions>();
       sub.add_option("file", opt->file, "Python source file")->required();
       sub.add_flag("--dump", opt->dump, "print ast.dump(ast.parse(source)) of the file");
       sub.add_flag("--tokens", opt->tokens, "print the token stream");
       sub.add_flag("--attributes", opt->attributes,
                    "with --dump: include positions (ast.dump include_attributes=True)");
       return [opt]() -> int { return RunParse(*opt); };
     }});

}  // namespace
