// The scoring library's contract on paths that start no worker: batch validation, the static
// stage, the store (resume, metrics), the callbacks, cancellation and concurrent calls.
#include "scoring/score_batch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "eval/evidence.h"
#include "rl/rewards.h"
#include "scoring/rollout_verdict.h"
#include "store/store.h"

namespace tritonrl::scoring {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTask = "level1/1_ReLU";
// Not Python: the static verifier rejects it as invalid_syntax before any worker starts.
constexpr const char* kBroken = "def forward(:\n";
// An honest Triton ReLU: valid, so it needs a worker (the CPU interpreter).
constexpr const char* kHonest = R"(import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
)";

// The hack AutoTriton's paper reports (its Fig. 3c): torch does the work, a @triton.jit stub
// satisfies the rule-based check.
constexpr const char* kStubHack = R"(import torch
import triton
import triton.language as tl


@triton.jit
def stub_kernel(x_ptr):
    pass


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x)
)";

class ScoringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("scoring_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    config_.tasks = std::string(TRITONRL_SOURCE_DIR) + "/tasks";
    config_.db = (dir_ / "r.db").string();
    config_.device = "cpu";
    config_.work_dir = (dir_ / "work").string();
    config_.jobs = 2;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Scorer> OpenScorer() {
    auto s = Scorer::Open(config_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  static std::vector<Sample> Broken(int n, const std::string& prefix) {
    std::vector<Sample> batch;
    for (int i = 0; i < n; ++i)
      batch.push_back({kTask, prefix + std::to_string(i), kBroken, TextKind::kCode});
    return batch;
  }

  // The pool's evidence of a sample's verdict (src/eval/evidence.h); all defaults when none.
  static eval::PoolEvidence PoolOf(const ScoredSample& s) {
    return eval::ReadEvidence<eval::PoolEvidence>(s.verdict.value("evidence", json::object()))
        .value_or(eval::PoolEvidence{});
  }

  fs::path dir_;
  ScoringConfig config_;
};

TEST_F(ScoringTest, StaticRejectionCarriesTheRewardInputs) {
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  auto r = scorer->Score(Broken(1, "s"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->samples.size(), 1u);
  const ScoredSample& s = r->samples[0];
  EXPECT_EQ(s.outcome, vocab::Outcome::kInvalidSyntax);
  EXPECT_FALSE(s.syntax_ok);
  EXPECT_FALSE(s.valid);
  EXPECT_FALSE(s.correct);
  EXPECT_FALSE(s.speedup.has_value());
  EXPECT_EQ(r->evaluated, 1u);
  EXPECT_EQ(r->sandbox, "not started");  // nothing needed a worker
  const auto j = ToJson(s);
  for (const char* key : {"syntax_ok", "functionality_ok", "valid", "compiled", "correct",
                          "speedup", "flags", "task", "sample", "outcome"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["outcome"], "invalid_syntax");
  EXPECT_EQ(j["valid"], false);
  EXPECT_TRUE(j["speedup"].is_null());
}

// The AutoTriton check (the binary arm's reward inputs) sits beside our verdict and never changes
// it: the stub hack stays invalid for us (its kernel is never launched) and is paid by
// AutoTriton's reward, an
// honest kernel is paid by both, a wrong one and unparseable code by neither.
TEST_F(ScoringTest, AutoTritonCheckGivesItsRewardInputsBesideOurVerdict) {
  config_.autotriton_check = true;
  config_.use_cache = false;
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  std::string wrong = kHonest;
  wrong.replace(wrong.find("tl.maximum(x, 0.0)"), 18, "tl.maximum(x, 1.0)");
  std::vector<Sample> batch = {{kTask, "stub", kStubHack, TextKind::kCode},
                               {kTask, "honest", kHonest, TextKind::kCode},
                               {kTask, "wrong", wrong, TextKind::kCode},
                               {kTask, "broken", kBroken, TextKind::kCode}};
  auto r = scorer->Score(batch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::map<std::string, ScoredSample> by_id;
  for (const auto& s : r->samples) by_id[s.id] = s;
  struct Want {
    vocab::Outcome outcome;
    bool is_triton, outputs_match;
    double r_correct, r_binary;
  };
  const std::map<std::string, Want> want = {
      {"stub", {vocab::Outcome::kInvalidSyntax, true, true, 0, 1}},  // kernel never launched
      {"honest", {vocab::Outcome::kCorrect, true, true, 1, 1}},
      {"wrong", {vocab::Outcome::kIncorrect, true, false, 0, 0}},
      {"broken", {vocab::Outcome::kInvalidSyntax, false, false, 0, 0}}};
  for (const auto& [id, w] : want) {
    const ScoredSample& s = by_id.at(id);
    EXPECT_EQ(s.outcome, w.outcome) << id << " " << s.verdict.dump();
    EXPECT_EQ(s.is_triton, std::optional<bool>(w.is_triton)) << id;
    EXPECT_EQ(s.outputs_match, std::optional<bool>(w.outputs_match)) << id << s.verdict.dump();
    const rl::Rewards rw = rl::ComputeRewards(RolloutVerdictOf(s), rl::RewardConfig{});
    EXPECT_EQ(rw.r_correct, w.r_correct) << id;
    EXPECT_EQ(rw.r_binary, w.r_binary) << id;
    EXPECT_EQ(ToJson(s)["outputs_match"], w.outputs_match) << id;
  }
  // The stub ran although our verifier rejected it; what the engine said is kept beside.
  EXPECT_TRUE(by_id["stub"].verdict["evidence"]["autotriton"].contains("engine_outcome"))
      << by_id["stub"].verdict.dump();
  EXPECT_EQ(by_id["stub"].verdict["reasons"][0]["stage"], "static");
}

TEST_F(ScoringTest, BadBatchFailsBeforeAnythingIsStored) {
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  std::vector<Sample> batch = Broken(2, "s");
  batch.push_back({"level1/no_such_task", "x", kBroken, TextKind::kCode});
  auto r = scorer->Score(batch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("sample 2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("no_such_task"), std::string::npos);

  std::vector<Sample> dup = Broken(1, "s");
  dup.push_back(dup[0]);
  auto d = scorer->Score(dup);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("duplicate"), std::string::npos);

  auto store = store::Store::Open(config_.db);
  ASSERT_TRUE(store.ok());
  auto runs = store->ListRuns();
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
}

TEST_F(ScoringTest, SameBatchAgainResumesFromTheStore) {
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  const auto batch = Broken(3, "s");
  auto first = scorer->Score(batch);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::vector<std::pair<std::size_t, bool>> seen;  // (done, resumed)
  Callbacks cb;
  cb.on_verdict = [&](const ScoredSample& s, std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 3u);
    seen.push_back({done, s.resumed});
  };
  auto again = scorer->Score(batch, {}, cb);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->run_id, first->run_id);  // derived from the batch and the config
  EXPECT_EQ(again->resumed, 3u);
  EXPECT_EQ(again->evaluated, 0u);
  ASSERT_EQ(seen.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(seen[i].first, i + 1);
    EXPECT_TRUE(seen[i].second);
  }
  // Batch order is kept.
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(again->samples[i].id, batch[i].id);

  auto summary = scorer->LoadRun(first->run_id);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->samples.size(), 3u);
  EXPECT_EQ(summary->metrics.overall.samples, 3);
  EXPECT_EQ(summary->metrics.overall.shares.invalid_syntax, 3);
  EXPECT_EQ(scorer->LoadRun("no-such-run").status().code(), StatusCode::kNotFound);
}

// The engine runs code; the static stage judges the whole output. Two outputs with different
// plans and the same code run once in a batch (the second takes the first's verdict), and again
// in another run they come from the cache; a static rejection is judged afresh every time.
TEST_F(ScoringTest, SameCodeRunsOnceAndComesFromTheCacheInTheNextRun) {
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  const auto output = [](const std::string& plan) {
    return "<think>\n" + plan + "\n</think>\n\n```python\n" + std::string(kHonest) + "```\n";
  };
  std::vector<Sample> batch = {
      {kTask, "plan-a", output("One program per 1024 elements, masked tail."), TextKind::kOutput},
      {kTask, "plan-b", output("Blocks of 1024; the mask covers the tail."), TextKind::kOutput}};
  batch.push_back(Broken(1, "s")[0]);
  BatchOptions a, b;
  a.run_id = "run-a";
  b.run_id = "run-b";
  auto first = scorer->Score(batch, a);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->samples.size(), 3u);
  std::map<std::string, ScoredSample> by_id;
  for (const auto& s : first->samples) by_id[s.id] = s;
  EXPECT_EQ(by_id["plan-a"].outcome, vocab::Outcome::kCorrect) << by_id["plan-a"].verdict.dump();
  EXPECT_EQ(by_id["plan-b"].outcome, vocab::Outcome::kCorrect);
  const json& ea = by_id["plan-a"].verdict["evidence"];
  const json& eb = by_id["plan-b"].verdict["evidence"];
  EXPECT_EQ(ea.contains("same_code_as") + eb.contains("same_code_as"), 1) << ea << eb;
  const std::string copied_from =
      ea.contains("same_code_as") ? ea["same_code_as"] : eb["same_code_as"];
  EXPECT_TRUE(copied_from == "plan-a" || copied_from == "plan-b");
  EXPECT_EQ(by_id["plan-a"].verdict["timings_ms"], by_id["plan-b"].verdict["timings_ms"]);
  // The workers' own account of their time: per trial phases of the candidate and the reference.
  const json& t = by_id["plan-a"].verdict["timings_ms"];
  for (const char* k : {"phase_inputs", "phase_hash", "phase_forward", "phase_device_init",
                        "reference_phase_forward", "reference_phase_null_models"}) {
    EXPECT_TRUE(t.contains(k) && t[k].is_number() && t[k].get<double>() >= 0) << k << " " << t;
  }
  EXPECT_EQ(first->from_cache, 0u);
  {  // the static rejection is stored without a cache key (it is judged on the whole output)
    auto store = store::Store::Open(config_.db);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto records = store->LoadVerdicts("run-a");
    ASSERT_TRUE(records.ok()) << records.status().ToString();
    ASSERT_EQ(records->size(), 3u);
    for (const auto& r : *records) EXPECT_EQ(r.cache_key.empty(), r.key.sample_id == "s0");
  }

  auto again = scorer->Score(batch, b);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->from_cache, 2u);
  for (const auto& s : again->samples) {
    EXPECT_EQ(s.from_cache, s.id != "s0") << s.id;
    EXPECT_EQ(s.outcome, s.id == "s0" ? vocab::Outcome::kInvalidSyntax : vocab::Outcome::kCorrect);
  }
}

// The workers' folders (w-XXXXXX) under a work folder: one per worker alive or not yet reaped.
std::set<std::string> WorkerFolders(const std::string& work_dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(work_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("w-", 0) == 0) names.insert(name);
  }
  return names;
}

// keep_idle_workers: pre-started workers wait between calls (made while the caller does something
// else), the next call's samples run in them, one sample each, with the verdicts they get without;
// the Scorer's end drains them.
TEST_F(ScoringTest, KeptIdleWorkersWaitBetweenCallsAndServeTheNext) {
  config_.use_cache = false;
  config_.keep_idle_workers = true;
  std::string wrong = kHonest;
  wrong.replace(wrong.find("tl.maximum(x, 0.0)"), 18, "tl.minimum(x, 0.0)");
  const std::string work = config_.work_dir;
  {
    auto scorer = OpenScorer();
    ASSERT_TRUE(scorer);
    auto first = scorer->Score({{kTask, "h1", kHonest, TextKind::kCode}}, {});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    EXPECT_EQ(first->samples[0].outcome, vocab::Outcome::kCorrect);
    // Between the calls: jobs (2) idle workers wait, each in its folder.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (WorkerFolders(work).size() < 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::set<std::string> waiting = WorkerFolders(work);
    ASSERT_EQ(waiting.size(), 2u);

    auto second = scorer->Score({{kTask, "h2", std::string(kHonest) + "# again\n", TextKind::kCode},
                                 {kTask, "w", wrong, TextKind::kCode}},
                                {});
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    std::map<std::string, ScoredSample> by_id;
    for (const auto& s : second->samples) by_id[s.id] = s;
    EXPECT_EQ(by_id["h2"].outcome, vocab::Outcome::kCorrect) << by_id["h2"].verdict.dump();
    EXPECT_EQ(by_id["w"].outcome, vocab::Outcome::kIncorrect) << by_id["w"].verdict.dump();
    int prestarted = 0;
    for (const auto& [id, s] : by_id) {
      prestarted += s.verdict["sandbox"].value("spawn", "") == "warm+prestarted";
      EXPECT_FALSE(s.verdict["evidence"].contains("prestart_discarded"));
    }
    EXPECT_GE(prestarted, 1);
    // The workers that waited ran this call's samples and are gone; others wait in their place.
    for (const std::string& name : WorkerFolders(work)) EXPECT_EQ(waiting.count(name), 0u) << name;
  }
  // The Scorer's end drained them.
  EXPECT_TRUE(WorkerFolders(work).empty());
}

// A task's reference serves the next call (the scorer keeps it, with the secret seeds it ran
// with): that call's candidates skip it, and are still compared for real against it.
TEST_F(ScoringTest, KeptReferenceServesTheNextCallWithItsSeeds) {
  config_.use_cache = false;
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  auto first = scorer->Score({{kTask, "h1", kHonest, TextKind::kCode}}, {});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const json& e1 = first->samples[0].verdict["evidence"];
  EXPECT_EQ(first->samples[0].outcome, vocab::Outcome::kCorrect) << e1.dump();
  EXPECT_TRUE(PoolOf(first->samples[0]).ran_reference);
  EXPECT_TRUE(first->samples[0].verdict["timings_ms"].contains("reference"));

  // ReLU off by a sign: the kept reference's outputs must still fail it.
  std::string wrong = kHonest;
  wrong.replace(wrong.find("tl.maximum(x, 0.0)"), 18, "tl.minimum(x, 0.0)");
  auto second = scorer->Score({{kTask, "h2", std::string(kHonest) + "# again\n", TextKind::kCode},
                               {kTask, "w", wrong, TextKind::kCode}},
                              {});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  std::map<std::string, ScoredSample> by_id;
  for (const auto& s : second->samples) by_id[s.id] = s;
  const json& e2 = by_id["h2"].verdict["evidence"];
  EXPECT_EQ(by_id["h2"].outcome, vocab::Outcome::kCorrect) << by_id["h2"].verdict.dump();
  EXPECT_FALSE(PoolOf(by_id["h2"]).ran_reference);
  EXPECT_TRUE(PoolOf(by_id["h2"]).reference_kept) << e2;
  EXPECT_FALSE(by_id["h2"].verdict["timings_ms"].contains("reference"));
  EXPECT_EQ(by_id["w"].outcome, vocab::Outcome::kIncorrect) << by_id["w"].verdict.dump();

  // reference_keep_s = 0: every call runs its own.
  config_.reference_keep_s = 0;
  config_.db = (dir_ / "r2.db").string();
  auto fresh = OpenScorer();
  ASSERT_TRUE(fresh);
  ASSERT_TRUE(fresh->Score({{kTask, "h1", kHonest, TextKind::kCode}}, {}).ok());
  auto again = fresh->Score({{kTask, "h3", kHonest, TextKind::kCode}}, {});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(PoolOf(again->samples[0]).ran_reference);
}

// WarmReferences computes a task's reference with no candidate and stores no verdict; the next
// call's candidates take it (reference_kept) and are still compared against it; warming again
// finds it kept. Bad input fails before anything runs.
TEST_F(ScoringTest, WarmedReferenceServesTheFirstCall) {
  config_.use_cache = false;
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  auto warm = scorer->WarmReferences({kTask});
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();
  EXPECT_EQ(warm->tasks, 1);
  EXPECT_EQ(warm->computed, 1);
  EXPECT_EQ(warm->failed, 0);
  std::string wrong = kHonest;
  wrong.replace(wrong.find("tl.maximum(x, 0.0)"), 18, "tl.minimum(x, 0.0)");
  auto r = scorer->Score(
      {{kTask, "h", kHonest, TextKind::kCode}, {kTask, "w", wrong, TextKind::kCode}}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::map<std::string, ScoredSample> by_id;
  for (const auto& s : r->samples) by_id[s.id] = s;
  EXPECT_EQ(by_id["h"].outcome, vocab::Outcome::kCorrect) << by_id["h"].verdict.dump();
  EXPECT_TRUE(PoolOf(by_id["h"]).reference_kept) << by_id["h"].verdict.dump();
  EXPECT_FALSE(PoolOf(by_id["h"]).ran_reference);
  EXPECT_EQ(by_id["w"].outcome, vocab::Outcome::kIncorrect) << by_id["w"].verdict.dump();
  auto again = scorer->WarmReferences({kTask});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->kept_already, 1);
  EXPECT_EQ(again->computed, 0);
  // The store holds the scored call's two verdicts and nothing of the warm-ups.
  auto store = store::Store::Open(config_.db);
  ASSERT_TRUE(store.ok());
  auto done = store->DoneSamples(r->run_id);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->size(), 2u);
  EXPECT_EQ(scorer->WarmReferences({"level1/no_such_task"}).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(scorer->WarmReferences({kTask, kTask}).ok());
  config_.reference_keep_s = 0;
  config_.db = (dir_ / "w2.db").string();
  auto unkept = OpenScorer();
  ASSERT_TRUE(unkept);
  EXPECT_EQ(unkept->WarmReferences({kTask}).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ScoringTest, CancelledBeforeStartKeepsDecidedVerdictsOnly) {
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  std::vector<Sample> batch = Broken(1, "bad");
  batch.push_back({kTask, "honest", kHonest, TextKind::kCode});
  Callbacks cb;
  cb.cancelled = [] { return true; };
  auto r = scorer->Score(batch, {}, cb);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->cancelled);
  ASSERT_EQ(r->samples.size(), 1u);  // the honest sample never started
  EXPECT_EQ(r->samples[0].id, "bad0");
  auto store = store::Store::Open(config_.db);
  ASSERT_TRUE(store.ok());
  auto done = store->DoneSamples(r->run_id);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->size(), 1u);
}

TEST_F(ScoringTest, ConcurrentCallsOnOneScorer) {
  auto scorer = OpenScorer();
  ASSERT_TRUE(scorer);
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  std::vector<std::string> run_ids(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      BatchOptions o;
      o.run_id = "concurrent-" + std::to_string(t);
      auto r = scorer->Score(Broken(5, "t" + std::to_string(t) + "_"), o);
      if (r.ok() && r->samples.size() == 5) ++ok;
      if (r.ok()) run_ids[t] = r->run_id;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), kThreads);
  for (int t = 0; t < kThreads; ++t) {
    auto summary = scorer->LoadRun(run_ids[t]);
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    EXPECT_EQ(summary->samples.size(), 5u);
  }
}

TEST_F(ScoringTest, OpenRejectsBadConfig) {
  config_.trials = 2;
  EXPECT_EQ(Scorer::Open(config_).status().code(), StatusCode::kInvalidArgument);
  config_.trials = 5;
  config_.db.clear();
  EXPECT_EQ(Scorer::Open(config_).status().code(), StatusCode::kInvalidArgument);
  config_.db = (dir_ / "r.db").string();
  config_.device = "tpu";
  EXPECT_EQ(Scorer::Open(config_).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tritonrl::scoring
