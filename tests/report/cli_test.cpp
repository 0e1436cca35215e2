// End-to-end tests of `tritonrl merge` and `tritonrl report` on the built binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../store/store_test_util.h"
#include "store/store.h"

namespace {

using namespace tritonrl;

using ::tritonrl::store::testing::TempDir;

struct CliRun {
  int rc = -1;
  std::string output;  // stdout and stderr
};

CliRun Tritonrl(const std::string& args) {
  CliRun r;
  std::string cmd = std::string(TRITONRL_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string Quote(const std::string& s) {
  return "'" + s + "'";
}

store::EvalResult Result(const std::string& run, const std::string& sample, double speedup) {
  store::EvalResult e;
  e.sample.key = {run, "level1/1_ReLU", sample};
  e.sample.text = "code " + sample;
  e.verdict.outcome = "correct";
  e.verdict.valid = e.verdict.syntax_ok = e.verdict.functionality_ok = true;
  e.verdict.compiled = e.verdict.correct = true;
  e.verdict.speedup = speedup;
  e.verdict.reasons = {"<script>x</script>"};
  return e;
}

void WriteShard(const std::string& path, int shard, double speedup = 1.5) {
  auto s = store::Store::Open(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  store::RunInfo run;
  run.id = "shared-run";
  run.host = "host" + std::to_string(shard);
  run.shard = std::to_string(shard) + "/2";
  ASSERT_TRUE(s->BeginRun(run).ok());
  for (int i = shard; i < 10; i += 2)
    ASSERT_TRUE(s->PutResult(Result(run.id, std::to_string(i), speedup)).ok());
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(MergeCli, MergesShardsIdempotentlyAndReportsConflicts) {
  TempDir dir;
  std::string a = dir.File("a.db"), b = dir.File("b.db"), out = dir.File("out.db");
  WriteShard(a, 0);
  WriteShard(b, 1);
  CliRun first = Tritonrl("merge " + Quote(out) + " " + Quote(a) + " " + Quote(b));
  EXPECT_EQ(first.rc, 0) << first.output;
  EXPECT_NE(first.output.find("+5 verdicts, 0 already present"), std::string::npos) << first.output;
  CliRun again = Tritonrl("merge " + Quote(out) + " " + Quote(a) + " " + Quote(b));
  EXPECT_EQ(again.rc, 0) << again.output;
  EXPECT_NE(again.output.find("+0 verdicts, 5 already present"), std::string::npos) << again.output;

  std::string c = dir.File("c.db");
  WriteShard(c, 1, 9.0);  // the same samples with other speedups
  CliRun conflict = Tritonrl("merge " + Quote(out) + " " + Quote(c));
  EXPECT_EQ(conflict.rc, 1) << conflict.output;
  EXPECT_NE(conflict.output.find("conflict: verdict shared-run level1/1_ReLU 1"), std::string::npos)
      << conflict.output;

  CliRun bad = Tritonrl("merge " + Quote(out) + " " + Quote(dir.File("missing.db")));
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.output.find("missing.db"), std::string::npos) << bad.output;
}

TEST(ReportCli, WritesTheNewestRunAndFailsClearly) {
  TempDir dir;
  std::string db = dir.File("r.db"), html = dir.File("r.html");
  WriteShard(db, 0);
  CliRun ok = Tritonrl("report --db " + Quote(db) + " --out " + Quote(html));
  ASSERT_EQ(ok.rc, 0) << ok.output;
  EXPECT_NE(ok.output.find("shared-run"), std::string::npos);
  std::string h = Slurp(html);
  EXPECT_NE(h.find("<svg id=\"outcome-shares\""), std::string::npos);
  EXPECT_NE(h.find("&lt;script&gt;x&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);

  CliRun no_run = Tritonrl("report --db " + Quote(db) + " --run nope --out " + Quote(html));
  EXPECT_EQ(no_run.rc, 2);
  EXPECT_NE(no_run.output.find("no run nope"), std::string::npos) << no_run.output;

  std::string garbage = dir.File("garbage.db");
  std::ofstream(garbage) << std::string(5000, 'g');
  CliRun corrupt = Tritonrl("report --db " + Quote(garbage) + " --out " + Quote(html));
  EXPECT_EQ(corrupt.rc, 2);
  EXPECT_NE(corrupt.output.find(garbage), std::string::npos) << corrupt.output;

  CliRun missing = Tritonrl("report --db " + Quote(dir.File("none.db")) + " --out " + Quote(html));
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.output.find("none.db"), std::string::npos) << missing.output;
  EXPECT_FALSE(std::filesystem::exists(dir.File("none.db")));  // a report creates nothing
}

}  // namespace
