#include "serve/metrics.h"

#include <gtest/gtest.h>

#include "serve/http_server.h"

namespace tritonrl::serve {
namespace {

using namespace std::chrono_literals;

TEST(ServeMetrics, RendersCountersAndGauges) {
  const auto t0 = ServeMetrics::Clock::now();
  ServeMetrics m(t0);
  m.RecordRequest("verify", 200, 0.5);
  m.RecordRequest("verify", 200, 0.25);
  m.RecordRequest("verify", 400, 0.125);
  m.RecordVerified(7);
  m.RecordEvaluated("correct", t0 + 10s);
  m.RecordEvaluated("correct", t0 + 20s);
  m.RecordEvaluated("invalid_functionality", t0 + 30s);
  m.RecordWorkerRestarts(2);
  const std::string text =
      m.RenderPrometheus({{"tritonrl_serve_jobs{state=\"running\"}", "Jobs by state", 1},
                          {"tritonrl_serve_jobs{state=\"done\"}", "Jobs by state", 4}},
                         t0 + 30s);
  EXPECT_NE(text.find("tritonrl_serve_requests_total{endpoint=\"verify\",status=\"200\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("tritonrl_serve_requests_total{endpoint=\"verify\",status=\"400\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("tritonrl_serve_request_seconds_total{endpoint=\"verify\"} 0.875\n"),
            std::string::npos);
  EXPECT_NE(text.find("tritonrl_serve_samples_verified_total 7\n"), std::string::npos);
  EXPECT_NE(text.find("tritonrl_serve_samples_evaluated_total{outcome=\"correct\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("tritonrl_serve_worker_restarts_total 2\n"), std::string::npos);
  // Three verdicts in a server 30 s old: 0.1 per second.
  EXPECT_NE(text.find("tritonrl_serve_samples_per_second 0.1\n"), std::string::npos);
  // One HELP/TYPE header for both job gauges.
  EXPECT_EQ(text.find("# TYPE tritonrl_serve_jobs gauge"),
            text.rfind("# TYPE tritonrl_serve_jobs gauge"));
  EXPECT_NE(text.find("tritonrl_serve_jobs{state=\"done\"} 4\n"), std::string::npos);
}

TEST(ServeMetrics, RateForgetsVerdictsOutsideTheWindow) {
  const auto t0 = ServeMetrics::Clock::now();
  ServeMetrics m(t0);
  m.RecordEvaluated("correct", t0 + 1s);
  m.RecordEvaluated("correct", t0 + 100s);
  m.RecordEvaluated("correct", t0 + 110s);
  EXPECT_DOUBLE_EQ(m.SamplesPerSecond(t0 + 120s, 60s), 2.0 / 60.0);
}

TEST(BindPolicy, NonLoopbackNeedsAToken) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.3.2.1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.5"));
  EXPECT_FALSE(IsLoopbackHost("128.0.0.1"));
  HttpOptions o;
  EXPECT_TRUE(CheckBindPolicy(o).ok());
  o.host = "0.0.0.0";
  EXPECT_FALSE(CheckBindPolicy(o).ok());
  EXPECT_NE(CheckBindPolicy(o).message().find("--token"), std::string::npos);
  o.token = "short";
  EXPECT_FALSE(CheckBindPolicy(o).ok());
  o.token = "0123456789abcdef0123";
  EXPECT_TRUE(CheckBindPolicy(o).ok());
  o.port = 70000;
  EXPECT_FALSE(CheckBindPolicy(o).ok());
}

}  // namespace
}  // namespace tritonrl::serve
