#include "rl/task_sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tritonrl::rl {
namespace {

std::vector<SamplerTask> Pool(int level1, int level2) {
  std::vector<SamplerTask> tasks;
  for (int i = 0; i < level1; ++i) tasks.push_back({"level1/" + std::to_string(i), 1});
  for (int i = 0; i < level2; ++i) tasks.push_back({"level2/" + std::to_string(i), 2});
  return tasks;
}

TaskSampler Make(std::vector<SamplerTask> tasks, SamplerConfig c) {
  auto s = TaskSampler::Create(std::move(tasks), std::move(c));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(s).value();
}

std::vector<std::string> Draw(TaskSampler& s, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(s.Next().id);
  return out;
}

TEST(TaskSampler, CreateRejectsBadPools) {
  EXPECT_FALSE(TaskSampler::Create({}, SamplerConfig{}).ok());
  EXPECT_FALSE(TaskSampler::Create({{"a", 1}, {"a", 1}}, SamplerConfig{}).ok());
  // Default config puts all weight on level 1.
  auto no_l1 = TaskSampler::Create(Pool(0, 3), SamplerConfig{});
  ASSERT_FALSE(no_l1.ok());
  EXPECT_NE(no_l1.status().message().find("level 1"), std::string::npos);
  SamplerConfig c;
  c.level_weights = {{1, -1.0}};
  EXPECT_FALSE(TaskSampler::Create(Pool(2, 0), c).ok());
  c.level_weights = {{1, 0.0}};
  EXPECT_FALSE(TaskSampler::Create(Pool(2, 0), c).ok());
  c = SamplerConfig{};
  c.pass_rate_ema_weight = 0;
  EXPECT_FALSE(TaskSampler::Create(Pool(2, 0), c).ok());
  c = SamplerConfig{};
  c.saturated_keep_probability = 1.5;
  EXPECT_FALSE(TaskSampler::Create(Pool(2, 0), c).ok());
}

TEST(TaskSampler, DefaultDrawsOnlyLevelOne) {
  TaskSampler s = Make(Pool(4, 6), SamplerConfig{});
  for (const auto& id : Draw(s, 200)) EXPECT_EQ(id.rfind("level1/", 0), 0u) << id;
}

TEST(TaskSampler, EpochsAreWithoutReplacement) {
  TaskSampler s = Make(Pool(7, 0), SamplerConfig{});
  const std::set<std::string> all = {"level1/0", "level1/1", "level1/2", "level1/3",
                                     "level1/4", "level1/5", "level1/6"};
  std::vector<std::vector<std::string>> epochs;
  for (int e = 0; e < 5; ++e) {
    auto ids = Draw(s, 7);
    EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()), all) << "epoch " << e;
    epochs.push_back(ids);
  }
  // Each epoch is reshuffled: five identical orders of 7 would be a bug.
  EXPECT_FALSE(epochs[0] == epochs[1] && epochs[1] == epochs[2] && epochs[2] == epochs[3]);
}

TEST(TaskSampler, LevelMixtureMatchesWeights) {
  SamplerConfig c;
  c.level_weights = {{1, 0.75}, {2, 0.25}};
  c.seed = 11;
  TaskSampler s = Make(Pool(5, 3), c);
  const int n = 40000;
  std::map<std::string, int> per_task;
  int level1 = 0;
  for (const auto& id : Draw(s, n)) {
    ++per_task[id];
    level1 += id.rfind("level1/", 0) == 0;
  }
  // Binomial sd of the level-1 share is sqrt(0.75 * 0.25 / 40000) ~ 0.0022.
  EXPECT_NEAR(level1 / double(n), 0.75, 0.01);
  // Within a level, epochs keep every task's count within one of the others.
  for (const char* prefix : {"level1/", "level2/"}) {
    int lo = n, hi = 0;
    for (const auto& [id, count] : per_task) {
      if (id.rfind(prefix, 0) != 0) continue;
      lo = std::min(lo, count);
      hi = std::max(hi, count);
    }
    EXPECT_LE(hi - lo, 1) << prefix;
  }
}

TEST(TaskSampler, SameSeedSameSequenceOtherSeedOther) {
  SamplerConfig c;
  c.level_weights = {{1, 0.5}, {2, 0.5}};
  c.seed = 42;
  TaskSampler a = Make(Pool(6, 6), c), b = Make(Pool(6, 6), c);
  auto sa = Draw(a, 300);
  EXPECT_EQ(sa, Draw(b, 300));
  c.seed = 43;
  TaskSampler d = Make(Pool(6, 6), c);
  EXPECT_NE(sa, Draw(d, 300));
}

TEST(TaskSampler, PassRateIsAnExponentialMovingAverage) {
  SamplerConfig c;  // EMA weight 0.3
  TaskSampler s = Make(Pool(3, 0), c);
  EXPECT_FALSE(s.PassRate("level1/0").has_value());  // never recorded
  ASSERT_TRUE(s.RecordGroup("level1/0", 2, 4).ok());
  EXPECT_DOUBLE_EQ(s.PassRate("level1/0")->rate, 0.5);  // the first group sets it
  ASSERT_TRUE(s.RecordGroup("level1/0", 4, 4).ok());
  EXPECT_DOUBLE_EQ(s.PassRate("level1/0")->rate, 0.5 + 0.3 * (1.0 - 0.5));
  EXPECT_EQ(s.PassRate("level1/0")->groups, 2);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(s.RecordGroup("level1/1", 0, 8).ok());
  EXPECT_EQ(s.PassRate("level1/1")->rate, 0.0);  // exactly, not nearly
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(s.RecordGroup("level1/2", 8, 8).ok());
  EXPECT_EQ(s.PassRate("level1/2")->rate, 1.0);
  EXPECT_EQ(s.RecordGroup("nope", 1, 2).code(), StatusCode::kNotFound);
  EXPECT_FALSE(s.RecordGroup("level1/0", 3, 2).ok());
  EXPECT_FALSE(s.RecordGroup("level1/0", 0, 0).ok());
}

TEST(TaskSampler, PreferLearnableDownweightsSaturatedTasks) {
  SamplerConfig c;
  c.seed = 9;
  c.prefer_learnable = true;
  c.saturated_keep_probability = 0.1;
  TaskSampler s = Make(Pool(10, 0), c);
  // Tasks 0-2 always pass, 3-4 never pass, 5-6 sometimes, 7-9 never seen.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.RecordGroup("level1/" + std::to_string(i), 4, 4).ok());
  for (int i = 3; i < 5; ++i) ASSERT_TRUE(s.RecordGroup("level1/" + std::to_string(i), 0, 4).ok());
  for (int i = 5; i < 7; ++i) ASSERT_TRUE(s.RecordGroup("level1/" + std::to_string(i), 1, 4).ok());
  const int n = 22000;
  int saturated = 0;
  for (const auto& id : Draw(s, n)) saturated += id < "level1/5";
  // Per epoch the 5 learnable tasks are drawn once and each of the 5 saturated
  // ones with probability 0.1: expected share 0.5 / 5.5.
  EXPECT_NEAR(saturated / double(n), 0.5 / 5.5, 0.01);

  // Off, every task keeps its epoch share exactly.
  c.prefer_learnable = false;
  TaskSampler plain = Make(Pool(10, 0), c);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(plain.RecordGroup("level1/" + std::to_string(i), 4, 4).ok());
  saturated = 0;
  for (const auto& id : Draw(plain, 20000)) saturated += id < "level1/5";
  EXPECT_EQ(saturated, 10000);
}

TEST(TaskSampler, PreferLearnableStillDrawsWhenEverythingIsSaturated) {
  SamplerConfig c;
  c.prefer_learnable = true;
  c.saturated_keep_probability = 0.0;
  TaskSampler s = Make(Pool(4, 0), c);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(s.RecordGroup("level1/" + std::to_string(i), 4, 4).ok());
  std::set<std::string> seen;
  for (const auto& id : Draw(s, 100)) seen.insert(id);
  EXPECT_FALSE(seen.empty());
}

TEST(TaskSampler, SaveRestoreContinuesTheIdenticalSequence) {
  SamplerConfig c;
  c.level_weights = {{1, 0.6}, {2, 0.4}};
  c.seed = 77;
  c.prefer_learnable = true;
  c.saturated_keep_probability = 0.3;
  TaskSampler s = Make(Pool(9, 5), c);
  Draw(s, 37);  // mid-epoch in both levels
  ASSERT_TRUE(s.RecordGroup("level1/3", 4, 4).ok());
  ASSERT_TRUE(s.RecordGroup("level2/1", 0, 4).ok());
  ASSERT_TRUE(s.RecordGroup("level1/5", 1, 3).ok());
  const std::string state = s.SaveState();
  auto continued = Draw(s, 500);

  // Restoring into the same sampler rewinds it ...
  ASSERT_TRUE(s.RestoreState(state).ok());
  EXPECT_EQ(Draw(s, 500), continued);
  // ... and a fresh sampler over the same pool picks up from the checkpoint.
  TaskSampler fresh = Make(Pool(9, 5), c);
  ASSERT_TRUE(fresh.RestoreState(state).ok());
  EXPECT_DOUBLE_EQ(fresh.PassRate("level1/5")->rate, 1.0 / 3.0);
  EXPECT_EQ(fresh.SaveState(), state);
  EXPECT_EQ(Draw(fresh, 500), continued);
}

TEST(TaskSampler, RestoreRejectsForeignOrCorruptStateAndKeepsGoing) {
  SamplerConfig c;
  c.level_weights = {{1, 0.5}, {2, 0.5}};
  TaskSampler s = Make(Pool(4, 4), c);
  Draw(s, 5);
  const std::string state = s.SaveState();

  TaskSampler other = Make(Pool(5, 4), c);  // a different pool
  Draw(other, 3);
  const std::string before = other.SaveState();
  Status st = other.RestoreState(state);
  EXPECT_EQ(st.code(), StatusCode::kCorruption);
  EXPECT_EQ(other.SaveState(), before);  // unchanged

  TaskSampler same = Make(Pool(4, 4), c);
  EXPECT_FALSE(same.RestoreState("{").ok());
  EXPECT_FALSE(same.RestoreState(state.substr(0, state.size() / 2)).ok());
  EXPECT_FALSE(same.RestoreState(R"({"version": 99})").ok());
  std::string zero_rng = state;
  auto p = zero_rng.find("\"rng\":[");
  ASSERT_NE(p, std::string::npos);
  zero_rng.replace(
      p, zero_rng.find(']', p) - p + 1,
      R"("rng":["0000000000000000","0000000000000000","0000000000000000","0000000000000000"])");
  EXPECT_FALSE(same.RestoreState(zero_rng).ok());
}

}  // namespace
}  // namespace tritonrl::rl
