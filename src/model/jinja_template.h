// A Jinja template compiled by llama.cpp's engine (common/jinja, fetched at configure time:
// third_party/llama_jinja) and rendered with a JSON object as its variables, the way
// transformers renders chat templates: trim_blocks and lstrip_blocks on, undefined variables
// render empty, raise_exception(), strftime_now(), namespace() and tojson available, and
// {% generation %} blocks rendered as their content. The engine's types stay inside the .cpp.
//
// Threads: a compiled template is immutable; Render may be called from any number of threads
// at once (each call builds its own context). Copies share the compiled program.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tritonrl::model {

class JinjaTemplate {
 public:
  // `origin` names the template in every error ("DIR/tokenizer_config.json"). A syntax error
  // is a ParseError "ORIGIN: chat template does not parse: WHY".
  static Result<JinjaTemplate> Compile(std::string_view source, std::string origin);

  // Renders with `variables` (a JSON object; keys in their order). A template that raises
  // (raise_exception) or fails at run time gives InvalidArgument "ORIGIN: WHY".
  Result<std::string> Render(const nlohmann::ordered_json& variables) const;

  const std::string& origin() const { return origin_; }

 private:
  JinjaTemplate() = default;
  struct Program;
  std::shared_ptr<const Program> program_;
  std::string origin_;
};

}  // namespace tritonrl::model
