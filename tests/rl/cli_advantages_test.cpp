// Runs the built `tritonrl advantages` on small files, as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/file.h"

namespace {

namespace fs = std::filesystem;

class AdvantagesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_rl_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void Write(const std::string& name, const std::string& text) {
    ASSERT_TRUE(tritonrl::WriteFileAtomic(Path(name), text).ok());
  }
  std::string Read(const std::string& name) {
    auto r = tritonrl::ReadFile(Path(name));
    return r.ok() ? *r : std::string();
  }
  // Returns the exit code; stdout and stderr go to files "stdout" and "stderr".
  int Run(const std::string& args) {
    std::string cmd = std::string("'") + TRITONRL_BIN + "' advantages " + args + " >'" +
                      Path("stdout") + "' 2>'" + Path("stderr") + "'";
    int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::vector<nlohmann::json> Lines(const std::string& text) {
    std::vector<nlohmann::json> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }

  fs::path dir_;
};

// Group "t1": R_correct {1, 0, 0, 1}, R_speedup {1.5, 0, 0, 0} (the last
// rollout's 3.0x is voided by lazy_optimization). Group "t2": all correct at
// 1.0x, so constant and filtered.
const char* kRollouts =
    R"({"group": "t1", "plan_span": [0, 4], "code_span": [5, 9], "valid": true, "correct": true, "speedup": 1.5, "flags": [], "num_tokens": 10}
{"group": "t1", "plan_span": [0, 4], "code_span": [5, 9], "valid": true, "correct": false, "speedup": null, "flags": []}
{"group": "t1", "plan_span": null, "code_span": [0, 9], "syntax_ok": true, "functionality_ok": false, "correct": false}
{"group": "t1", "plan_span": [0, 4], "code_span": [5, 9], "valid": true, "correct": true, "speedup": 3.0, "flags": ["lazy_optimization"]}
{"group": "t2", "plan_span": [0, 2], "code_span": [3, 6], "valid": true, "correct": true, "speedup": 1.0, "flags": []}
{"group": "t2", "plan_span": [0, 2], "code_span": [3, 6], "valid": true, "correct": true, "speedup": 1.0, "flags": []}
)";

TEST_F(AdvantagesCli, HrdDefaultsHandComputed) {
  Write("r.jsonl", kRollouts);
  ASSERT_EQ(Run("--in '" + Path("r.jsonl") + "'"), 0) << Read("stderr");
  auto lines = Lines(Read("stdout"));
  ASSERT_EQ(lines.size(), 6u);
  const double code = 0.5 / (std::sqrt(1.0 / 3.0) + 1e-6);
  const double plan_hi = 0.1 * 1.125 / (0.75 + 1e-6), plan_lo = 0.1 * -0.375 / (0.75 + 1e-6);
  const double want_code[] = {code, -code, -code, code, 0, 0};
  const double want_plan[] = {plan_hi, plan_lo, plan_lo, plan_lo, 0, 0};
  const double want_rs[] = {1.5, 0, 0, 0, 1, 1};
  const double want_rc[] = {1, 0, 0, 1, 1, 1};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(lines[i]["adv_code"].get<double>(), want_code[i], 1e-12) << i;
    EXPECT_NEAR(lines[i]["adv_plan"].get<double>(), want_plan[i], 1e-12) << i;
    EXPECT_EQ(lines[i]["r_speedup"].get<double>(), want_rs[i]) << i;
    EXPECT_EQ(lines[i]["r_correct"].get<double>(), want_rc[i]) << i;
    EXPECT_EQ(lines[i]["filtered"].get<bool>(), i >= 4) << i;
  }
  EXPECT_EQ(lines[0]["token_spans"].dump(),
            nlohmann::json::array({{0, 4, plan_hi}, {4, 10, code}}).dump());
  const std::string err = Read("stderr");
  EXPECT_NE(err.find("2 groups, 6 rollouts, 1 filtered groups"), std::string::npos) << err;
  EXPECT_NE(err.find("1 speedups voided"), std::string::npos) << err;
}

TEST_F(AdvantagesCli, ModesAndOptions) {
  Write("r.jsonl", kRollouts);
  // Uniform, beta 0.5, clip 1.2: r = {0.5 + 0.5*1.2, 0, 0, 0.5} = {1.1, 0, 0, 0.5},
  // mean 0.4, centred (--no-std) {0.7, -0.4, -0.4, 0.1} on every token.
  ASSERT_EQ(Run("--in '" + Path("r.jsonl") + "' --mode uniform --beta 0.5 --clip 1.2 --no-std " +
                "--out '" + Path("o.jsonl") + "'"),
            0)
      << Read("stderr");
  EXPECT_EQ(Read("stdout"), "");  // --out takes the lines
  auto lines = Lines(Read("o.jsonl"));
  ASSERT_EQ(lines.size(), 6u);
  const double want[] = {0.7, -0.4, -0.4, 0.1};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(lines[i]["adv_code"].get<double>(), want[i], 1e-12) << i;
    EXPECT_EQ(lines[i]["adv_plan"], lines[i]["adv_code"]) << i;
  }
  // Binary: is_triton * correct = {1, 0, 0, 1}; alpha has no effect.
  ASSERT_EQ(Run("--in '" + Path("r.jsonl") + "' --mode binary --alpha 0.9"), 0);
  lines = Lines(Read("stdout"));
  const double e = 0.5 / (std::sqrt(1.0 / 3.0) + 1e-6);
  EXPECT_NEAR(lines[0]["adv_plan"].get<double>(), e, 1e-12);
  EXPECT_NEAR(lines[1]["adv_code"].get<double>(), -e, 1e-12);
  // HRD with alpha 1.0 scales only the plan term.
  ASSERT_EQ(Run("--in '" + Path("r.jsonl") + "' --alpha 1.0"), 0);
  lines = Lines(Read("stdout"));
  EXPECT_NEAR(lines[0]["adv_plan"].get<double>(), 1.125 / (0.75 + 1e-6), 1e-12);
  EXPECT_NEAR(lines[0]["adv_code"].get<double>(), e, 1e-12);
}

TEST_F(AdvantagesCli, TruncatedLineFailsCleanlyAndKeepsEarlierOutput) {
  std::string text = kRollouts;
  text += R"({"group": "t3", "valid": true, "corr)";  // cut off mid-write
  Write("r.jsonl", text);
  Write("o.jsonl", "previous result\n");
  EXPECT_EQ(Run("--in '" + Path("r.jsonl") + "' --out '" + Path("o.jsonl") + "'"), 2);
  const std::string err = Read("stderr");
  EXPECT_NE(err.find(Path("r.jsonl") + ":7: malformed JSON"), std::string::npos) << err;
  EXPECT_EQ(Read("o.jsonl"), "previous result\n");
  EXPECT_FALSE(fs::exists(Path("o.jsonl.tmp")));
  // To stdout: nothing at all.
  EXPECT_EQ(Run("--in '" + Path("r.jsonl") + "'"), 2);
  EXPECT_EQ(Read("stdout"), "");
}

TEST_F(AdvantagesCli, BadSpansAndUsageErrors) {
  Write("r.jsonl",
        "{\"group\": 1, \"valid\": true, \"correct\": true, \"speedup\": 1.1}\n"
        "{\"group\": 1, \"valid\": true, \"correct\": true, \"plan_span\": [0, 6],"
        " \"code_span\": [5, 9]}\n");
  EXPECT_EQ(Run("--in '" + Path("r.jsonl") + "'"), 2);
  EXPECT_NE(Read("stderr").find(":2: plan span [0, 6) overlaps code span [5, 9)"),
            std::string::npos)
      << Read("stderr");
  EXPECT_EQ(Read("stdout"), "");
  EXPECT_EQ(Run("--in '" + Path("missing.jsonl") + "'"), 2);
  EXPECT_NE(Read("stderr").find("missing.jsonl"), std::string::npos);
  Write("ok.jsonl", "{\"group\": 1, \"valid\": true, \"correct\": true}\n");
  EXPECT_EQ(Run("--in '" + Path("ok.jsonl") + "' --mode ppo"), 2);
  EXPECT_EQ(Run("--in '" + Path("ok.jsonl") + "' --beta 2"), 2);
  EXPECT_NE(Read("stderr").find("beta"), std::string::npos);
  EXPECT_EQ(Run("--in '" + Path("ok.jsonl") + "' --clip 0"), 2);
}

}  // namespace
