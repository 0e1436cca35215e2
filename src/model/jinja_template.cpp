#include "model/jinja_template.h"

#include <exception>
#include <nlohmann/json.hpp>

// llama.cpp's headers (third_party/llama_jinja): the engine and its JSON bridge.
#include "jinja/lexer.h"
#include "jinja/parser.h"
#include "jinja/runtime.h"
#include "jinja/value.h"
#include "json.h"

namespace tritonrl::model {

struct JinjaTemplate::Program {
  jinja::program program;
  std::string source;  // the lexer's copy: the engine quotes it in run-time errors
};

namespace {

// The engine's run-time messages start with a rule ("\n------------\n") before their source
// excerpt; an error reads better as "ORIGIN: While executing ... Error: ...".
std::string Trimmed(std::string_view what) {
  while (!what.empty() && (what.front() == '\n' || what.front() == ' ' || what.front() == '-')) {
    what.remove_prefix(1);
  }
  while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.remove_suffix(1);
  return std::string(what);
}

}  // namespace

Result<JinjaTemplate> JinjaTemplate::Compile(std::string_view source, std::string origin) {
  auto p = std::make_shared<Program>();
  try {
    jinja::lexer lexer;
    jinja::lexer_result tokens = lexer.tokenize(std::string(source));
    p->program = jinja::parse_from_tokens(tokens);
    p->source = std::move(tokens.source);
  } catch (const std::exception& e) {
    return Status::ParseError(origin + ": chat template does not parse: " + Trimmed(e.what()));
  }
  JinjaTemplate t;
  t.program_ = std::move(p);
  t.origin_ = std::move(origin);
  return t;
}

Result<std::string> JinjaTemplate::Render(const nlohmann::ordered_json& variables) const {
  if (!variables.is_object()) {
    return Status::InvalidArgument(origin_ + ": template variables must be a JSON object");
  }
  try {
    // The engine reads its input through common_json (llama.cpp's own wrapper over nlohmann's
    // ordered_json, which keeps key order as Python dicts do); its text form is the one bridge.
    const common_json input = common_json::parse(variables.dump());
    jinja::context ctx(program_->source);
    jinja::global_from_json(ctx, input, /*mark_input=*/false);
    jinja::runtime runtime(ctx);
    const jinja::value results = runtime.execute(program_->program);
    return jinja::runtime::gather_string_parts(results)->as_string().str();
  } catch (const std::exception& e) {
    return Status::InvalidArgument(origin_ + ": " + Trimmed(e.what()));
  }
}

}  // namespace tritonrl::model
