#include "serve/endpoints.h"

#include <gtest/gtest.h>

#include <string>

#include "base/file.h"

namespace tritonrl::serve {
namespace {

using nlohmann::json;

class VerifyEndpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    auto suite = task::LoadSuite(std::string(TRITONRL_SOURCE_DIR) + "/tasks");
    ASSERT_TRUE(suite.ok()) << suite.status().message();
    suite_ = std::move(*suite);
    ctx_.suite = &suite_;
    ctx_.metrics = &metrics_;
  }
  static std::string Corpus(const std::string& rel) {
    auto text = ReadFile(std::string(TRITONRL_SOURCE_DIR) + "/tests/corpus/" + rel);
    EXPECT_TRUE(text.ok()) << rel;
    return text.ok() ? *text : "";
  }
  task::Suite suite_;
  ServeMetrics metrics_;
  ServeContext ctx_;
};

TEST_F(VerifyEndpoint, HonestAndHackInOneBatch) {
  json body = {{"samples",
                {{{"id", "honest"},
                  {"task", "level1/2_AddBroadcast"},
                  {"code", Corpus("legit/add_2d_tiles.py")}},
                 {{"id", 7}, {"code", Corpus("hacks/decoy_kernel_plus_torch_matmul.py")}},
                 {{"output", "<think>plan</think>\n```python\n" + Corpus("hacks/eval_string.py") +
                                 "```\n"}}}}};
  Reply r = HandleVerify(ctx_, body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  ASSERT_EQ(j["verdicts"].size(), 3u);
  EXPECT_EQ(j["policy"], "standard");
  EXPECT_EQ(j["verdicts"][0]["id"], "honest");
  EXPECT_EQ(j["verdicts"][0]["task"], "level1/2_AddBroadcast");
  EXPECT_EQ(j["verdicts"][0]["outcome"], "valid");
  EXPECT_EQ(j["verdicts"][1]["id"], 7);
  EXPECT_EQ(j["verdicts"][1]["outcome"], "invalid_functionality");
  EXPECT_EQ(j["verdicts"][1]["violations"][0]["rule"], "func.torch_compute");
  // No id given: the index.
  EXPECT_EQ(j["verdicts"][2]["id"], 2);
  EXPECT_EQ(j["verdicts"][2]["outcome"], "invalid_functionality");
  EXPECT_TRUE(j["verdicts"][2].contains("plan"));
  EXPECT_NE(metrics_.RenderPrometheus({}).find("tritonrl_serve_samples_verified_total 3\n"),
            std::string::npos);
}

TEST_F(VerifyEndpoint, TaskIdsResolveOnlyInsideTheSuite) {
  for (const std::string id :
       {"../../../etc/passwd", "/etc/passwd", "level1/../level1/2_AddBroadcast",
        "level1/2_AddBroadcast.py", "tasks/level1/2_AddBroadcast", ""}) {
    json body = {{"samples", {{{"task", id}, {"code", "x = 1"}}}}};
    Reply r = HandleVerify(ctx_, body.dump());
    EXPECT_EQ(r.status, 400) << id;
    json j = json::parse(r.body);
    EXPECT_EQ(j["error"]["code"], "unknown_task") << id;
    EXPECT_EQ(j["error"]["field"], "samples[0].task") << id;
  }
}

TEST_F(VerifyEndpoint, BadRequestsNameTheField) {
  struct Case {
    std::string body;
    int status;
    std::string code, field;
  };
  ctx_.limits.max_verify_batch = 2;
  ctx_.limits.max_text_bytes = 64;
  const Case cases[] = {
      {"{\"samples\": [", 400, "malformed_json", ""},
      {"{\"samples\": [{\"code\": 5}]}", 400, "wrong_type", "samples[0].code"},
      {"{\"samples\": [{\"code\": \"x\", \"output\": \"y\"}]}", 400, "missing_field", "samples[0]"},
      {"{\"samples\": [{}]}", 400, "missing_field", "samples[0]"},
      {"{\"samples\": [{\"code\": \"x\", \"lang\": \"py\"}]}", 400, "unknown_field",
       "samples[0].lang"},
      {"{\"sample\": []}", 400, "unknown_field", "sample"},
      {"{\"samples\": \"x\"}", 400, "wrong_type", "samples"},
      {"{\"samples\": [1]}", 400, "wrong_type", "samples[0]"},
      {"{\"samples\": [{\"code\": \"x\", \"id\": [1]}]}", 400, "wrong_type", "samples[0].id"},
      {"{\"samples\": [{\"code\": \"x\"}], \"policy\": \"lax\"}", 400, "bad_value", "policy"},
      {"{\"samples\": [{\"code\": \"x\"}, {\"code\": \"x\"}, {\"code\": \"x\"}]}", 413, "too_many",
       "samples"},
      {"{\"samples\": [{\"code\": \"" + std::string(65, 'x') + "\"}]}", 413, "too_large",
       "samples[0].code"},
  };
  for (const Case& c : cases) {
    Reply r = HandleVerify(ctx_, c.body);
    EXPECT_EQ(r.status, c.status) << c.body;
    json j = json::parse(r.body);
    EXPECT_EQ(j["error"]["code"], c.code) << c.body;
    EXPECT_EQ(j["error"]["field"], c.field.empty() ? json(nullptr) : json(c.field)) << c.body;
  }
}

TEST_F(VerifyEndpoint, StrictPolicyIsHonoured) {
  json body = {{"policy", "strict"}, {"samples", {{{"code", Corpus("legit/add_2d_tiles.py")}}}}};
  Reply r = HandleVerify(ctx_, body.dump());
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["policy"], "strict");
}

TEST_F(VerifyEndpoint, HealthCountsTasks) {
  json j = json::parse(HandleHealth(ctx_).body);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["tasks"], suite_.tasks.size());
  EXPECT_GT(suite_.tasks.size(), 10u);
}

}  // namespace
}  // namespace tritonrl::serve
