#include "serve/eval_request.h"

#include <set>
#include <utility>

#include <fmt/format.h>

namespace tritonrl::serve {

using nlohmann::json;

std::optional<scoring::Sample> ReadSampleFields(FieldReader& r, const Limits& limits, size_t index,
                                                std::string task) {
  auto id = r.Id("id", Need::kOptional);
  auto output = r.String("output", Need::kOptional, limits.max_text_bytes);
  auto code = r.String("code", Need::kOptional, limits.max_text_bytes);
  if (r.ok() && output.has_value() == code.has_value())
    r.Fail(BadField(r.path(), "missing_field",
                    "each sample needs exactly one of \"output\" or \"code\""));
  if (!r.ok()) return std::nullopt;
  scoring::Sample s;
  s.task = std::move(task);
  s.id = !id ? std::to_string(index) : id->is_string() ? id->get<std::string>() : id->dump();
  if (s.id.empty()) {
    r.Fail(BadField(r.PathOf("id"), "bad_value", "an id must not be empty"));
    return std::nullopt;
  }
  s.kind = output ? scoring::TextKind::kOutput : scoring::TextKind::kCode;
  s.text = output ? std::move(*output) : std::move(*code);
  return s;
}

Checked<std::vector<scoring::Sample>> ReadSamples(const ServeContext& ctx, const json& array,
                                                  const std::string& path,
                                                  const std::string& task) {
  using Out = Checked<std::vector<scoring::Sample>>;
  std::vector<scoring::Sample> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string element = ElementPath(path, i);
    std::string sample_task = task;
    std::optional<FieldReader> r;
    if (task.empty()) {
      r.emplace(array[i], element,
                std::initializer_list<std::string_view>{"task", "id", "output", "code"});
      auto t = r->String("task", Need::kRequired, 512);
      if (t) {
        auto resolved = ResolveTask(*ctx.suite, *t, r->PathOf("task"));
        if (!resolved.ok()) return Out::Fail(resolved.error);
        sample_task = *t;
      }
    } else {
      r.emplace(array[i], element, std::initializer_list<std::string_view>{"id", "output", "code"});
    }
    auto s = ReadSampleFields(*r, ctx.limits, i, sample_task);
    if (!r->ok()) return Out::Fail(r->error());
    if (!seen.insert({s->task, s->id}).second)
      return Out::Fail(BadField(
          r->PathOf("id"), "duplicate_id",
          fmt::format("sample id \"{}\" is used twice for task {}", s->id.substr(0, 64), s->task)));
    out.push_back(std::move(*s));
  }
  return Out{std::move(out), {}};
}

}  // namespace tritonrl::serve
