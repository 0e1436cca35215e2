// The server's counters and their Prometheus text form (GET /metrics, exposition format 0.0.4).
// Owns: request counts per endpoint and status, request seconds, samples verified, evaluated
// samples per outcome (and the samples/s of the last minute from their times), worker restarts.
// Gauges that belong to other parts (queue depth, jobs by state) are read through a callback at
// render time. Thread-safe: any handler thread records, any thread renders. Nothing survives a
// restart (Prometheus handles counter resets).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"

namespace tritonrl::serve {

struct Gauge {
  std::string name;  // tritonrl_serve_... ; labels inline, e.g. jobs{state="running"}
  std::string help;
  double value = 0;
};

class ServeMetrics {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ServeMetrics(Clock::time_point start = Clock::now());

  void RecordRequest(const std::string& endpoint, int status, double seconds);
  void RecordVerified(int64_t samples);
  void RecordEvaluated(const std::string& outcome, Clock::time_point when = Clock::now());
  void RecordWorkerRestarts(int64_t restarts);

  // Evaluated samples whose verdict arrived in the last `window`, per second.
  double SamplesPerSecond(Clock::time_point now, std::chrono::seconds window) const;

  // The exposition text; `gauges` are appended after the counters.
  std::string RenderPrometheus(const std::vector<Gauge>& gauges,
                               Clock::time_point now = Clock::now()) const;

 private:
  mutable base::Mutex mu_;
  const Clock::time_point start_;
  std::map<std::pair<std::string, int>, int64_t> requests_ GUARDED_BY(mu_);
  std::map<std::string, double> request_seconds_ GUARDED_BY(mu_);
  int64_t verified_ GUARDED_BY(mu_) = 0;
  std::map<std::string, int64_t> evaluated_ GUARDED_BY(mu_);
  // Verdict times within the longest window used.
  std::deque<Clock::time_point> recent_ GUARDED_BY(mu_);
  int64_t worker_restarts_ GUARDED_BY(mu_) = 0;
};

}  // namespace tritonrl::serve
