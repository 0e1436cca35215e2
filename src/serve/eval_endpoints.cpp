// POST /v1/evaluate, GET /v1/jobs/{id}: batches of samples scored as background jobs.
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "serve/endpoints.h"
#include "serve/eval_request.h"
#include "serve/jobs.h"

namespace tritonrl::serve {

using nlohmann::json;

namespace {

// How long one wait inside a stream lasts before a keep-alive line checks the client is there.
constexpr std::chrono::seconds kStreamTick{5};

json SampleJson(const scoring::ScoredSample& s) {
  json j = scoring::ToJson(s);
  j["resumed"] = s.resumed;
  return j;
}

json SummaryJson(const JobSnapshot& job) {
  json j = {{"job", job.id},
            {"kind", job.kind},
            {"state", JobStateName(job.state)},
            {"recovered", job.recovered},
            {"total", job.total},
            {"done", job.done}};
  if (!job.error.empty()) j["error"] = job.error;
  return j;
}

json JobJson(const JobSnapshot& job) {
  json j = SummaryJson(job);
  json results = json::array();
  for (const auto& r : job.results) results.push_back(r ? SampleJson(*r) : json(nullptr));
  j["results"] = std::move(results);
  return j;
}

// The verdicts of a job as NDJSON while they arrive: one line per verdict (in completion order),
// a blank keep-alive line after each quiet tick, the summary line last.
Reply StreamJob(JobManager* jobs, const std::string& id, json first_line) {
  struct State {
    std::vector<bool> sent;
    size_t sent_count = 0;
    bool finished = false;
    std::optional<json> first;
  };
  auto st = std::make_shared<State>();
  st->first = std::move(first_line);
  Reply r;
  r.content_type = "application/x-ndjson";
  r.next_chunk = [jobs, id, st]() -> std::optional<std::string> {
    if (st->finished) return std::nullopt;
    std::string out;
    if (st->first) {
      out = st->first->dump() + "\n";
      st->first.reset();
    }
    auto snap =
        jobs->WaitForProgress(id, st->sent_count, std::chrono::steady_clock::now() + kStreamTick);
    if (!snap) {  // forgotten meanwhile (only when far more jobs followed it)
      st->finished = true;
      return out + json{{"job", id}, {"state", "forgotten"}}.dump() + "\n";
    }
    st->sent.resize(snap->results.size(), false);
    for (size_t i = 0; i < snap->results.size(); ++i) {
      if (snap->results[i] && !st->sent[i]) {
        st->sent[i] = true;
        ++st->sent_count;
        json line = SampleJson(*snap->results[i]);
        line["index"] = i;
        out += line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      }
    }
    if (snap->state != JobState::kRunning) {
      st->finished = true;
      out += SummaryJson(*snap).dump() + "\n";
    }
    return out.empty() ? std::string("\n") : out;
  };
  return r;
}

Reply JobsUnavailable(const Status& st) {
  if (st.code() == StatusCode::kUnavailable) return ErrorReply({503, "busy", "", st.message()});
  return ErrorReply({500, "internal", "", st.message()});
}

}  // namespace

Reply HandleEvaluate(const ServeContext& ctx, std::string_view body) {
  auto parsed = ParseJsonObject(body);
  if (!parsed.ok()) return ErrorReply(parsed.error);
  FieldReader top(*parsed.value, "", {"samples", "stream"});
  const json* samples = top.Array("samples", Need::kRequired, ctx.limits.max_eval_batch);
  const bool stream = top.Bool("stream", Need::kOptional).value_or(false);
  if (!top.ok()) return ErrorReply(top.error());
  auto batch = ReadSamples(ctx, *samples, "samples", /*task_field=*/"");
  if (!batch.ok()) return ErrorReply(batch.error);

  const size_t total = batch.value->size();
  auto id = ctx.jobs->Submit(std::move(*batch.value), "evaluate");
  if (!id.ok()) return JobsUnavailable(id.status());
  json accepted = {
      {"job", *id}, {"state", "running"}, {"total", total}, {"status_url", "/v1/jobs/" + *id}};
  if (stream) {
    Reply r = StreamJob(ctx.jobs, *id, accepted);
    r.status = 200;
    return r;
  }
  return JsonReply(202, accepted);
}

Reply HandleJob(const ServeContext& ctx, const std::string& id,
                const std::map<std::string, std::string>& query) {
  auto snap = ctx.jobs->Get(id);
  if (!snap)
    return ErrorReply({404, "unknown_job", "", fmt::format("no job \"{}\"", id.substr(0, 64))});
  for (const auto& [key, value] : query) {
    if (key != "wait" && key != "stream")
      return ErrorReply(BadField(key, "unknown_field",
                                 fmt::format("unknown parameter \"{}\"", key.substr(0, 64))));
  }
  if (auto s = query.find("stream"); s != query.end()) {
    if (s->second != "1" && s->second != "true" && s->second != "0" && s->second != "false")
      return ErrorReply(BadField("stream", "bad_value", "stream must be 1, true, 0 or false"));
    if (s->second == "1" || s->second == "true") return StreamJob(ctx.jobs, id, SummaryJson(*snap));
  }
  if (auto w = query.find("wait"); w != query.end()) {
    // Seconds to hold the request while the job runs (long poll), bounded by the request timeout.
    double seconds = -1;
    try {
      size_t used = 0;
      seconds = std::stod(w->second, &used);
      if (used != w->second.size()) seconds = -1;
    } catch (const std::exception&) {
      seconds = -1;
    }
    const double limit = std::chrono::duration<double>(ctx.limits.request_timeout).count();
    if (!(seconds >= 0 && seconds <= limit))
      return ErrorReply(
          BadField("wait", "out_of_range",
                   fmt::format("wait must be a number of seconds in [0, {}]", limit)));
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    while (snap && snap->state == JobState::kRunning && std::chrono::steady_clock::now() < deadline)
      snap = ctx.jobs->WaitForProgress(id, snap->done, deadline);
    if (!snap) return ErrorReply({404, "unknown_job", "", "the job was forgotten"});
  }
  return JsonReply(200, JobJson(*snap));
}

}  // namespace tritonrl::serve
