#include "serve/serve.h"

#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "base/file.h"
#include "serve/jobs.h"

namespace tritonrl::serve {

namespace {

std::vector<Route> CoreRoutes(const ServeContext& ctx) {
  const ServeContext* c = &ctx;
  std::vector<Route> routes;
  routes.push_back(
      {"GET", "/healthz", "healthz", true, [c](const HttpRequest&) { return HandleHealth(*c); }});
  routes.push_back({"GET", "/metrics", "metrics", false, [c](const HttpRequest&) {
                      Reply r;
                      r.content_type = "text/plain; version=0.0.4";
                      r.body = c->metrics->RenderPrometheus(c->jobs->Gauges());
                      return r;
                    }});
  routes.push_back({"POST", "/v1/verify", "verify", false,
                    [c](const HttpRequest& req) { return HandleVerify(*c, req.body); }});
  routes.push_back({"POST", "/v1/evaluate", "evaluate", false,
                    [c](const HttpRequest& req) { return HandleEvaluate(*c, req.body); }});
  // Anything under /v1/jobs/ reaches the handler, which knows only the ids it handed out.
  routes.push_back({"GET", "/v1/jobs/(.+)", "jobs", false, [c](const HttpRequest& req) {
                      return HandleJob(*c, req.path_params.at(0), req.query);
                    }});
  routes.push_back({"POST", "/v1/reward", "reward", false,
                    [c](const HttpRequest& req) { return HandleReward(*c, req.body); }});
  return routes;
}

}  // namespace

Status RunServer(const ServeConfig& config) {
  TRITONRL_RETURN_IF_ERROR(CatchTerminationSignals());
  TRITONRL_RETURN_IF_ERROR(CheckBindPolicy(config.http));
  std::error_code ec;
  std::filesystem::create_directories(config.state_dir, ec);
  if (ec) return Status::IoError(config.state_dir + ": " + ec.message());
  scoring::ScoringConfig scoring_config = config.scoring;
  if (scoring_config.db.empty())
    scoring_config.db = (std::filesystem::path(config.state_dir) / "results.db").string();
  auto scorer = scoring::Scorer::Open(scoring_config);
  if (!scorer.ok()) return scorer.status();
  // The served suite is the scorer's: task ids resolve where the samples are scored.
  const task::Suite& suite = (*scorer)->suite();
  if (suite.tasks.empty())
    return Status::InvalidArgument(config.scoring.tasks + ": no task files in the suite");

  ServeMetrics metrics;
  JobsConfig jobs_config;
  jobs_config.state_dir = config.state_dir;
  jobs_config.max_active_jobs = config.max_active_jobs;
  auto jobs = JobManager::Open(scorer->get(), &metrics, jobs_config);
  if (!jobs.ok()) return jobs.status();
  ServeContext ctx;
  ctx.suite = &suite;
  ctx.limits = config.limits;
  ctx.metrics = &metrics;
  ctx.jobs = jobs->get();

  std::vector<Route> routes = CoreRoutes(ctx);
  if (config.extra_routes) {
    auto extra = config.extra_routes(ctx);
    if (!extra.ok()) return extra.status();
    for (auto& r : *extra) routes.push_back(std::move(r));
  }

  HttpOptions http = config.http;
  http.max_body_bytes = config.limits.max_body_bytes;
  HttpServer server(http, std::move(routes), &metrics);
  auto port = server.Bind();
  if (!port.ok()) return port.status();
  // Jobs of an earlier server (finished or cut off) come back before the first request.
  auto recovered = (*jobs)->Recover();
  if (!recovered.ok()) return recovered.status();
  if (!config.port_file.empty()) {
    TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(config.port_file, fmt::format("{}\n", *port)));
  }
  std::fprintf(stderr,
               "serve: %zu tasks from %s on %s, %d worker(s); %zu job(s) recovered from %s; "
               "listening on http://%s:%d%s\n",
               suite.tasks.size(), config.scoring.tasks.c_str(), (*scorer)->device().c_str(),
               scoring_config.jobs, *recovered, config.state_dir.c_str(), http.host.c_str(), *port,
               http.token.empty() ? "" : " (bearer token required)");

  std::atomic<bool> listen_ended{false};
  Status listen_status;
  std::thread listener([&] {
    listen_status = server.Listen();
    listen_ended = true;
  });
  const int sig = WaitForTerminationSignal(listen_ended);
  if (sig != 0) std::fprintf(stderr, "serve: signal %d, shutting down\n", sig);
  // No new connections; requests in progress finish on their threads.
  server.Stop();
  // Requests still waiting on a job (reward, long polls, streams) end when their job does, so the
  // jobs wind down while the HTTP threads drain.
  std::thread jobs_down([&] { (*jobs)->Shutdown(config.shutdown_grace); });
  listener.join();
  jobs_down.join();
  std::fprintf(stderr, "serve: stopped\n");
  return sig != 0 ? Status::Ok() : listen_status;
}

}  // namespace tritonrl::serve
