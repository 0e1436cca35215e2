// The request handlers of `tritonrl serve`, free of HTTP: each takes the request body (already
// limited in size and authenticated by http_server.cpp) and returns a Reply. Handlers never throw
// on client input; a bad request is a 4xx Reply naming the field (docs/serve.md lists the codes).
// Any number of HTTP threads call them at once: the context's parts are thread-safe or read-only.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "serve/metrics.h"
#include "serve/reply.h"
#include "serve/request.h"
#include "task/task.h"

namespace tritonrl::serve {

class JobManager;  // serve/jobs.h

// Request limits (flags of `tritonrl serve`). The body limit itself is enforced by the HTTP layer
// before a byte of the body is parsed.
struct Limits {
  size_t max_body_bytes = size_t{8} << 20;
  size_t max_text_bytes = size_t{256} << 10;  // one sample's output or code
  size_t max_verify_batch = 1024;
  size_t max_eval_batch = 256;
  size_t max_group = 64;  // rollouts in one /v1/reward request
  std::chrono::milliseconds request_timeout{std::chrono::seconds(300)};
};

// Read-only after start, except `metrics` (thread-safe).
struct ServeContext {
  const task::Suite* suite = nullptr;
  Limits limits;
  ServeMetrics* metrics = nullptr;
  JobManager* jobs = nullptr;  // evaluate, jobs and reward
};

// A task id as given by a client, looked up among the served suite's ids only: an id is never
// joined to a path, so "../../etc/passwd" is just an unknown id (400 "unknown_task").
Checked<const task::TaskInfo*> ResolveTask(const task::Suite& suite, const std::string& id,
                                           const std::string& field);

Reply HandleHealth(const ServeContext& ctx);
// POST /v1/verify: {"samples": [{"id"?, "task"?, "output" | "code"}], "policy"?} -> static
// verdicts in input order.
Reply HandleVerify(const ServeContext& ctx, std::string_view body);

// POST /v1/evaluate: {"samples": [{"task", "id"?, "output" | "code"}], "stream"?} -> 202 with the
// job id, or (stream) the verdicts as NDJSON while they arrive.
Reply HandleEvaluate(const ServeContext& ctx, std::string_view body);
// GET /v1/jobs/{id}[?wait=SECONDS][&stream=1]: progress and verdicts of a job.
Reply HandleJob(const ServeContext& ctx, const std::string& id,
                const std::map<std::string, std::string>& query);
// POST /v1/reward: a group of rollouts of one task -> TritonRL rewards and, on request, group
// advantages (HRD, uniform, binary) with their token spans. Waits for the verdicts up to the
// request timeout (504 with the job id after it).
Reply HandleReward(const ServeContext& ctx, std::string_view body);

}  // namespace tritonrl::serve
