// `tritonrl serve` as one library call: load the suite, open the state folder, build the routes,
// bind, serve until SIGTERM/SIGINT, then shut down in order (stop taking requests, let running
// jobs finish within a grace period, hand the rest back to the state folder for the next start).
//
// RunServer catches SIGTERM and SIGINT (a flag its main loop polls). What survives a crash: the store and the job
// files in the state folder (docs/serve.md).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "scoring/score_batch.h"
#include "serve/endpoints.h"
#include "serve/http_server.h"

namespace tritonrl::serve {

struct ServeConfig {
  size_t max_active_jobs = 64;
  HttpOptions http;
  Limits limits;
  // The scoring pipeline behind evaluate and reward (scoring.tasks is the served suite: task ids
  // resolve only inside it). scoring.db defaults to <state_dir>/results.db.
  scoring::ScoringConfig scoring;
  std::string state_dir = "tritonrl-serve";  // job files and the default store; survives restarts
  std::string port_file;  // if set, the bound port is written here (atomically) once listening
  std::chrono::seconds shutdown_grace{30};
  // Routes added by code outside the core (the policy's completion routes, built with libtorch).
  std::function<Result<std::vector<Route>>(ServeContext&)> extra_routes;
};

Status RunServer(const ServeConfig& config);

}  // namespace tritonrl::serve
