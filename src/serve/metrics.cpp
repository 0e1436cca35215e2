#include "serve/metrics.h"

#include <algorithm>

#include <fmt/format.h>

namespace tritonrl::serve {

namespace {

// The rate window; verdict times older than this are dropped.
constexpr std::chrono::seconds kRateWindow{60};

// Label values are our own endpoint names and outcomes, but escape anyway: the format breaks on
// a quote or a newline.
std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void Header(std::string& out, const std::string& name, const char* type, const std::string& help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

ServeMetrics::ServeMetrics(Clock::time_point start) : start_(start) {}

void ServeMetrics::RecordRequest(const std::string& endpoint, int status, double seconds) {
  base::MutexLock lock(&mu_);
  ++requests_[{endpoint, status}];
  request_seconds_[endpoint] += seconds;
}

void ServeMetrics::RecordVerified(int64_t samples) {
  base::MutexLock lock(&mu_);
  verified_ += samples;
}

void ServeMetrics::RecordEvaluated(const std::string& outcome, Clock::time_point when) {
  base::MutexLock lock(&mu_);
  ++evaluated_[outcome];
  recent_.push_back(when);
  while (!recent_.empty() && recent_.front() < when - kRateWindow) recent_.pop_front();
}

void ServeMetrics::RecordWorkerRestarts(int64_t restarts) {
  base::MutexLock lock(&mu_);
  worker_restarts_ += restarts;
}

double ServeMetrics::SamplesPerSecond(Clock::time_point now, std::chrono::seconds window) const {
  base::MutexLock lock(&mu_);
  // A server younger than the window divides by its age, so the first minute is not diluted.
  const auto age = std::chrono::duration<double>(now - start_).count();
  const double span = std::min(static_cast<double>(window.count()), std::max(age, 1.0));
  int64_t n = 0;
  for (auto t : recent_) n += (t >= now - window && t <= now) ? 1 : 0;
  return static_cast<double>(n) / span;
}

std::string ServeMetrics::RenderPrometheus(const std::vector<Gauge>& gauges,
                                           Clock::time_point now) const {
  const double rate = SamplesPerSecond(now, kRateWindow);
  base::MutexLock lock(&mu_);
  std::string out;
  Header(out, "tritonrl_serve_requests_total", "counter", "HTTP requests by endpoint and status");
  for (const auto& [key, n] : requests_) {
    out += fmt::format("tritonrl_serve_requests_total{{endpoint=\"{}\",status=\"{}\"}} {}\n",
                       Escape(key.first), key.second, n);
  }
  Header(out, "tritonrl_serve_request_seconds_total", "counter",
         "Seconds spent answering requests, by endpoint");
  for (const auto& [endpoint, s] : request_seconds_) {
    out += fmt::format("tritonrl_serve_request_seconds_total{{endpoint=\"{}\"}} {}\n",
                       Escape(endpoint), s);
  }
  Header(out, "tritonrl_serve_samples_verified_total", "counter",
         "Samples checked by the static verifier (POST /v1/verify)");
  out += fmt::format("tritonrl_serve_samples_verified_total {}\n", verified_);
  Header(out, "tritonrl_serve_samples_evaluated_total", "counter",
         "Evaluated samples by outcome (evaluate and reward)");
  for (const auto& [outcome, n] : evaluated_) {
    out += fmt::format("tritonrl_serve_samples_evaluated_total{{outcome=\"{}\"}} {}\n",
                       Escape(outcome), n);
  }
  Header(out, "tritonrl_serve_samples_per_second", "gauge",
         "Evaluated samples per second over the last minute");
  out += fmt::format("tritonrl_serve_samples_per_second {}\n", rate);
  Header(out, "tritonrl_serve_worker_restarts_total", "counter",
         "Evaluation worker processes that died or were killed and replaced");
  out += fmt::format("tritonrl_serve_worker_restarts_total {}\n", worker_restarts_);
  Header(out, "tritonrl_serve_uptime_seconds", "gauge", "Seconds since the server started");
  out += fmt::format("tritonrl_serve_uptime_seconds {}\n",
                     std::chrono::duration<double>(now - start_).count());
  std::string last_name;
  for (const Gauge& g : gauges) {
    const std::string base = g.name.substr(0, g.name.find('{'));
    if (base != last_name) Header(out, base, "gauge", g.help);
    last_name = base;
    out += fmt::format("{} {}\n", g.name, g.value);
  }
  return out;
}

}  // namespace tritonrl::serve
