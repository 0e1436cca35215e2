// `tritonrl verify` end to end: exit codes, JSON, batches, and errors that name FILE:LINE.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace {

namespace fs = std::filesystem;

struct RunResult {
  int rc = -1;
  std::string out;
};

RunResult RunVerify(const std::string& args) {
  std::string cmd = std::string(TRITONRL_BIN) + " verify " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string Corpus(const std::string& rel) {
  return std::string(TRITONRL_SOURCE_DIR) + "/tests/corpus/" + rel;
}

class VerifyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_verify_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& content) {
    std::string path = (dir_ / name).string();
    EXPECT_TRUE(tritonrl::WriteFileAtomic(path, content).ok());
    return path;
  }
  fs::path dir_;
};

TEST_F(VerifyCli, ValidFileExitsZero) {
  RunResult r = RunVerify(Corpus("legit/relu_basic.py"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find(": valid"), std::string::npos) << r.out;
}

TEST_F(VerifyCli, InvalidFileExitsOneAndNamesTheRule) {
  RunResult r = RunVerify(Corpus("hacks/matmul_operator.py"));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("func.torch_compute"), std::string::npos) << r.out;
}

TEST_F(VerifyCli, JsonVerdict) {
  RunResult r = RunVerify("--json " + Corpus("hacks/try_except_fallback.py"));
  EXPECT_EQ(r.rc, 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "invalid_functionality");
  EXPECT_FALSE(j["valid"].get<bool>());
  EXPECT_TRUE(j["syntax_ok"].get<bool>());
  bool found = false;
  for (const auto& v : j["violations"]) found = found || v["rule"] == "func.try_except";
  EXPECT_TRUE(found) << r.out;
}

TEST_F(VerifyCli, PolicyChangesTheAnswer) {
  std::string f = Corpus("hacks/fallback_branch_not_cuda.py");
  EXPECT_EQ(RunVerify(f).rc, 0);
  EXPECT_EQ(RunVerify("--policy strict " + f).rc, 1);
  EXPECT_EQ(RunVerify("--policy lenient " + f).rc, 2);
}

TEST_F(VerifyCli, FullModelOutput) {
  auto code = tritonrl::ReadFile(Corpus("legit/softmax_row.py"));
  ASSERT_TRUE(code.ok());
  std::string path =
      Write("out.txt", "<think>one row per program</think>\n```python\n" + *code + "```\n");
  RunResult r = RunVerify("--json --output " + path);
  EXPECT_EQ(r.rc, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["plan"]["begin"], 7);
  EXPECT_EQ(j["code_source"], "modelnew_fence");
}

TEST_F(VerifyCli, UsageAndIoErrorsExitTwo) {
  EXPECT_EQ(RunVerify("").rc, 2);
  RunResult missing = RunVerify((dir_ / "nope.py").string());
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.out.find("nope.py"), std::string::npos) << missing.out;
  EXPECT_EQ(RunVerify(Corpus("legit/relu_basic.py") + " --jsonl x.jsonl").rc, 2);
}

TEST_F(VerifyCli, JsonlBatch) {
  auto good = tritonrl::ReadFile(Corpus("legit/relu_basic.py"));
  auto bad = tritonrl::ReadFile(Corpus("hacks/matmul_operator.py"));
  ASSERT_TRUE(good.ok() && bad.ok());
  std::string lines =
      nlohmann::json({{"task", "level1/1_ReLU"}, {"sample", 0}, {"code", *good}}).dump() + "\n\n" +
      nlohmann::json({{"task", "level1/5_Matmul"}, {"sample", 1}, {"code", *bad}}).dump() + "\n" +
      nlohmann::json({{"task", "level1/1_ReLU"},
                      {"sample", 2},
                      {"output", "<think>p</think>```python\n" + *good + "```"}})
          .dump() +
      "\n";
  std::string path = Write("s.jsonl", lines);
  RunResult r = RunVerify("--jsonl " + path + " --jobs 2");
  EXPECT_EQ(r.rc, 1) << r.out;  // one invalid sample
  std::vector<nlohmann::json> verdicts;
  size_t pos = 0;
  while (pos < r.out.size()) {
    size_t eol = r.out.find('\n', pos);
    verdicts.push_back(nlohmann::json::parse(r.out.substr(pos, eol - pos)));
    pos = eol + 1;
  }
  ASSERT_EQ(verdicts.size(), 3u);
  EXPECT_EQ(verdicts[0]["sample"], 0);
  EXPECT_EQ(verdicts[0]["outcome"], "valid");
  EXPECT_EQ(verdicts[1]["task"], "level1/5_Matmul");
  EXPECT_EQ(verdicts[1]["outcome"], "invalid_functionality");
  EXPECT_EQ(verdicts[2]["outcome"], "valid");
  EXPECT_EQ(verdicts[2]["plan"]["begin"], 7);
}

TEST_F(VerifyCli, TruncatedJsonlLineNamesFileAndLineAndKeepsEarlierVerdicts) {
  auto good = tritonrl::ReadFile(Corpus("legit/relu_basic.py"));
  ASSERT_TRUE(good.ok());
  std::string first = nlohmann::json({{"task", "t"}, {"sample", "a"}, {"code", *good}}).dump();
  std::string truncated = first.substr(0, first.size() / 2);
  std::string path = Write("t.jsonl", first + "\n" + truncated + "\n" + first + "\n");
  std::string out_path = (dir_ / "verdicts.jsonl").string();
  RunResult r = RunVerify("--jsonl " + path + " --out " + out_path);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find(path + ":2:"), std::string::npos) << r.out;
  auto written = tritonrl::ReadFile(out_path);
  ASSERT_TRUE(written.ok());
  nlohmann::json first_verdict = nlohmann::json::parse(written->substr(0, written->find('\n')));
  EXPECT_EQ(first_verdict["sample"], "a");
  EXPECT_EQ(first_verdict["outcome"], "valid");
  EXPECT_EQ(std::count(written->begin(), written->end(), '\n'), 1);
}

}  // namespace
