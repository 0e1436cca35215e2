// POST /v1/verify and GET /healthz: the static verifier over HTTP, synchronous.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "serve/endpoints.h"
#include "verify/batch.h"
#include "verify/verify.h"

namespace tritonrl::serve {

using nlohmann::json;

Checked<const task::TaskInfo*> ResolveTask(const task::Suite& suite, const std::string& id,
                                           const std::string& field) {
  if (const task::TaskInfo* t = task::FindTask(suite, id)) return {t, {}};
  return Checked<const task::TaskInfo*>::Fail(BadField(
      field, "unknown_task", fmt::format("no task \"{}\" in the served suite", id.substr(0, 128))));
}

Reply HandleHealth(const ServeContext& ctx) {
  return JsonReply(200, {{"status", "ok"}, {"tasks", ctx.suite ? ctx.suite->tasks.size() : 0}});
}

Reply HandleVerify(const ServeContext& ctx, std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader top(*parsed.value, "", {"samples", "policy"});
  auto policy_name = top.String("policy", Need::kOptional, 32);
  const json* samples = top.Array("samples", Need::kRequired, ctx.limits.max_verify_batch);
  if (!top.ok()) return ErrorReply(top.error());

  verify::VerifyOptions options;
  if (policy_name) {
    auto p = verify::ParsePolicy(*policy_name);
    if (!p.ok())
      return ErrorReply(
          BadField("policy", "bad_value", "policy must be \"standard\" or \"strict\""));
    options.policy = *p;
  }

  std::vector<verify::Sample> batch;
  std::vector<json> ids;
  for (size_t i = 0; i < samples->size(); ++i) {
    const std::string path = ElementPath("samples", i);
    FieldReader s((*samples)[i], path, {"id", "task", "output", "code"});
    auto id = s.Id("id", Need::kOptional);
    auto task = s.String("task", Need::kOptional, 512);
    auto output = s.String("output", Need::kOptional, ctx.limits.max_text_bytes);
    auto code = s.String("code", Need::kOptional, ctx.limits.max_text_bytes);
    if (s.ok() && output.has_value() == code.has_value())
      s.Fail(
          BadField(path, "missing_field", path + " needs exactly one of \"output\" or \"code\""));
    if (!s.ok()) return ErrorReply(s.error());
    if (task) {
      auto t = ResolveTask(*ctx.suite, *task, s.PathOf("task"));
      if (!t.ok()) return ErrorReply(t.error);
    }
    verify::Sample vs;
    vs.line = static_cast<int>(i) + 1;
    vs.task = task ? json(*task) : json(nullptr);
    vs.sample = id ? *id : json(i);
    vs.is_output = output.has_value();
    vs.text = output ? std::move(*output) : std::move(*code);
    batch.push_back(std::move(vs));
  }
  // One thread per request: verdicts take microseconds, and the HTTP pool already runs requests
  // side by side.
  const auto verdicts = verify::VerifySamples(batch, options, 1);
  json out = json::array();
  for (size_t i = 0; i < batch.size(); ++i) {
    json v = verify::ToJson(verdicts[i]);
    v["id"] = batch[i].sample;
    if (!batch[i].task.is_null()) v["task"] = batch[i].task;
    out.push_back(std::move(v));
  }
  if (ctx.metrics) ctx.metrics->RecordVerified(static_cast<int64_t>(batch.size()));
  return JsonReply(200, {{"policy", verify::PolicyName(options.policy)}, {"verdicts", out}});
}

}  // namespace tritonrl::serve
