// The job manager and the evaluate/reward handlers over a real Scorer, with samples the static
// verifier rejects (so no worker process is needed and the test takes a second): submission,
// progress, results in batch order, the job file, recovery by a second manager from the same
// state folder and store, and the reward arithmetic on the verdicts.
#include "serve/jobs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "base/file.h"
#include "serve/endpoints.h"

namespace tritonrl::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Corpus(const std::string& rel) {
  auto text = ReadFile(std::string(TRITONRL_SOURCE_DIR) + "/tests/corpus/" + rel);
  EXPECT_TRUE(text.ok()) << rel;
  return text.ok() ? *text : "";
}

class Jobs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("serve_jobs_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    scoring::ScoringConfig c;
    c.tasks = std::string(TRITONRL_SOURCE_DIR) + "/tasks";
    c.db = (dir_ / "results.db").string();
    c.device = "cpu";
    c.work_dir = (dir_ / "work").string();
    auto scorer = scoring::Scorer::Open(c);
    ASSERT_TRUE(scorer.ok()) << scorer.status().message();
    scorer_ = std::move(*scorer);
    auto suite = task::LoadSuite(c.tasks);
    ASSERT_TRUE(suite.ok());
    suite_ = std::move(*suite);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<JobManager> Manager() {
    JobsConfig jc;
    jc.state_dir = (dir_ / "state").string();
    auto m = JobManager::Open(scorer_.get(), &metrics_, jc);
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::move(*m) : nullptr;
  }

  static JobSnapshot WaitDone(JobManager& m, const std::string& id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    auto snap = m.Get(id);
    while (snap && snap->state == JobState::kRunning && std::chrono::steady_clock::now() < deadline)
      snap = m.WaitForProgress(id, snap->done, deadline);
    EXPECT_TRUE(snap.has_value());
    return *snap;
  }

  fs::path dir_;
  std::unique_ptr<scoring::Scorer> scorer_;
  task::Suite suite_;
  ServeMetrics metrics_;
};

TEST_F(Jobs, StaticRejectsRunAsAJobAndComeBackAfterARestart) {
  std::vector<scoring::Sample> batch = {
      {"level1/5_Matmul", "decoy", Corpus("hacks/decoy_kernel_plus_torch_matmul.py"),
       scoring::TextKind::kCode},
      {"level1/3_Softmax", "eval", Corpus("hacks/eval_string.py"), scoring::TextKind::kCode},
      {"level1/1_ReLU", "empty", "no code at all", scoring::TextKind::kOutput}};
  std::string id;
  {
    auto m = Manager();
    auto submitted = m->Submit(batch, "evaluate");
    ASSERT_TRUE(submitted.ok()) << submitted.status().message();
    id = *submitted;
    EXPECT_EQ(id.size(), 16u);
    EXPECT_TRUE(fs::exists(dir_ / "state" / "jobs" / (id + ".json")));
    JobSnapshot s = WaitDone(*m, id);
    ASSERT_EQ(s.state, JobState::kDone) << s.error;
    ASSERT_EQ(s.done, 3u);
    EXPECT_EQ(s.results[0]->id, "decoy");
    EXPECT_EQ(s.results[0]->outcome, vocab::Outcome::kInvalidFunctionality);
    EXPECT_EQ(s.results[1]->outcome, vocab::Outcome::kInvalidFunctionality);
    EXPECT_EQ(s.results[2]->outcome, vocab::Outcome::kInvalidSyntax);
    EXPECT_FALSE(s.results[0]->resumed);
    EXPECT_FALSE(s.recovered);
    EXPECT_FALSE(m->Get("0000000000000000").has_value());
    EXPECT_FALSE(m->Get("../jobs/" + id).has_value());
  }
  // A new manager on the same state folder and store: the job is back, every verdict from the
  // store.
  auto m = Manager();
  auto recovered = m->Recover();
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  EXPECT_EQ(*recovered, 1u);
  JobSnapshot s = WaitDone(*m, id);
  ASSERT_EQ(s.state, JobState::kDone) << s.error;
  EXPECT_TRUE(s.recovered);
  for (const auto& r : s.results) {
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->resumed);
  }
  EXPECT_EQ(s.results[2]->outcome, vocab::Outcome::kInvalidSyntax);
}

TEST_F(Jobs, ShutdownRefusesNewJobs) {
  auto m = Manager();
  m->Shutdown(std::chrono::seconds(0));
  auto r = m->Submit({{"level1/1_ReLU", "a", "x", scoring::TextKind::kCode}}, "evaluate");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST_F(Jobs, RewardOfAGroupTheVerifierRejects) {
  auto m = Manager();
  ServeContext ctx;
  ctx.suite = &suite_;
  ctx.metrics = &metrics_;
  ctx.jobs = m.get();
  const std::string out = "<think>abc</think>\nno code";
  json body = {{"task", "level1/1_ReLU"},
               {"rollouts",
                {{{"id", "a"},
                  {"output", out},
                  {"token_offsets",
                   {{0, 7}, {7, 8}, {8, 10}, {10, 18}, {18, static_cast<int>(out.size())}}}},
                 {{"code", "x = 1"}, {"num_tokens", 3}}}},
               {"advantages", {{"mode", "hrd"}}}};
  Reply r = HandleReward(ctx, body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  ASSERT_EQ(j["rollouts"].size(), 2u);
  EXPECT_EQ(j["rollouts"][0]["outcome"], "invalid_syntax");
  EXPECT_EQ(j["rollouts"][0]["r_correct"], 0.0);
  EXPECT_EQ(j["rollouts"][0]["reward"], 0.0);
  // All rewards equal: zero advantages, and the group is marked for DAPO's filter.
  EXPECT_TRUE(j["advantages"]["constant"]);
  EXPECT_TRUE(j["advantages"]["filtered"]);
  // The plan "abc" is code points [7, 10): tokens 1 ([7, 8)) and 2 ([8, 10)).
  EXPECT_EQ(j["rollouts"][0]["plan_tokens"], json({1, 3}));
  EXPECT_EQ(j["rollouts"][0]["token_spans"], json({{0, 1, 0.0}, {1, 3, 0.0}, {3, 5, 0.0}}));
  EXPECT_EQ(j["rollouts"][1]["token_spans"], json({{0, 3, 0.0}}));
  // Offsets that do not cover the plan are refused before anything runs.
  json bad = body;
  bad["rollouts"][0]["token_offsets"] = {{0, 2}, {2, 5}};
  Reply b = HandleReward(ctx, bad.dump());
  EXPECT_EQ(b.status, 400) << b.body;
  EXPECT_EQ(json::parse(b.body)["error"]["field"], "rollouts[0].token_offsets");
  // Token spans without advantages make no sense.
  json no_adv = body;
  no_adv.erase("advantages");
  EXPECT_EQ(HandleReward(ctx, no_adv.dump()).status, 400);
}

}  // namespace
}  // namespace tritonrl::serve
