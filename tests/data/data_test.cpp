// Synthetic task generation, splits, SFT format and the KernelBook row conversion.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "data/sft.h"
#include "data/synth.h"
#include "pyast/parse.h"

namespace tritonrl::data {
namespace {

TEST(Synth, SameSeedSameTasksOtherSeedOtherTasks) {
  const auto a = GenerateTasks(30, 11);
  const auto b = GenerateTasks(30, 11);
  const auto c = GenerateTasks(30, 12);
  ASSERT_EQ(a.size(), 30u);
  int differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].reference, b[i].reference);
    EXPECT_EQ(a[i].solution, b[i].solution);
    EXPECT_EQ(a[i].plan, b[i].plan);
    differ += a[i].reference != c[i].reference || a[i].solution != c[i].solution;
  }
  EXPECT_GT(differ, 20);
}

TEST(Synth, TaskDependsOnlyOnSeedAndIndex) {
  // A longer draw starts with the shorter one: growing N never changes earlier tasks.
  const auto a = GenerateTasks(10, 5);
  const auto b = GenerateTasks(25, 5);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].reference, b[i].reference);
}

TEST(Synth, EveryFamilyAppearsAndEveryFileParses) {
  const auto tasks = GenerateTasks(28, 3);
  std::set<std::string> families;
  for (const auto& t : tasks) {
    families.insert(t.family);
    for (const std::string* src : {&t.reference, &t.solution}) {
      auto parsed = pyast::ParseModule(*src, t.id + ".py");
      EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << *src;
    }
    EXPECT_NE(t.reference.find("class Model(nn.Module)"), std::string::npos);
    EXPECT_NE(t.reference.find("VARIANTS = {"), std::string::npos);
    EXPECT_NE(t.solution.find("class ModelNew(nn.Module)"), std::string::npos);
    EXPECT_NE(t.solution.find("@triton.jit"), std::string::npos);
    EXPECT_FALSE(t.plan.empty());
  }
  EXPECT_EQ(families.size(), Families().size());
}

// The H200 audit of a 2,000-task draw rejected these compositions as weak (a kernel that skips
// one op is exact, or every row gives the same value); the generator must not draw them.
TEST(Synth, NoCompositionTheAuditFoundWeak) {
  const std::set<std::string> nonnegative = {"relu", "sigmoid", "square", "abs"};
  const std::set<std::string> identity_on_nonnegative = {"relu", "abs", "leaky"};
  int pointwise_pairs = 0, amax = 0, matmuls = 0;
  for (const auto& t : GenerateTasks(3000, 1)) {
    if (t.family == "pointwise") {
      // pointwise/<bcast>/<op1>[+<op2>][+residual]
      const std::string chain = t.pattern.substr(t.pattern.rfind('/') + 1);
      const auto plus = chain.find('+');
      if (plus == std::string::npos) continue;
      const std::string op1 = chain.substr(0, plus);
      std::string op2 = chain.substr(plus + 1);
      op2 = op2.substr(0, op2.find('+'));
      if (op2 == "residual") continue;
      ++pointwise_pairs;
      EXPECT_NE(op1, op2) << t.id;
      EXPECT_FALSE(nonnegative.count(op1) && identity_on_nonnegative.count(op2)) << t.id;
      EXPECT_FALSE(op1 == "abs" && op2 == "square") << t.id;
      EXPECT_FALSE(op1 == "leaky" && op2 == "relu") << t.id;
    } else if (t.pattern.rfind("row_reduce/amax(", 0) == 0) {
      ++amax;
      for (const char* op : {"relu", "leaky", "tanh", "sigmoid"})
        EXPECT_NE(t.pattern, std::string("row_reduce/amax(") + op + ")") << t.id;
    } else if (t.family == "matmul") {
      ++matmuls;
      EXPECT_EQ(t.reference.find("(a @ b) * 1.0\n"), std::string::npos) << t.id;
    }
  }
  // The draw is large enough to have met every excluded case before the fix.
  EXPECT_GT(pointwise_pairs, 150);
  EXPECT_GT(amax, 100);
  EXPECT_GT(matmuls, 300);
}

TEST(Synth, HeldOutPatternsNeverInTraining) {
  const auto tasks = GenerateTasks(400, 1);
  std::set<std::string> train, heldout;
  std::map<std::string, int> splits;
  for (const auto& t : tasks) {
    ++splits[t.split];
    if (t.split == "heldout_pattern") {
      heldout.insert(t.pattern);
    } else {
      train.insert(t.pattern);
    }
    if (t.split == "heldout_shape") {
      EXPECT_EQ(t.shape_class, "odd") << t.id;
    }
  }
  for (const auto& p : heldout) EXPECT_EQ(train.count(p), 0u) << p;
  EXPECT_GT(splits["train"], 100);
  EXPECT_GT(splits["heldout_pattern"], 20);
  EXPECT_GT(splits["heldout_shape"], 20);
  // The split of a pattern does not depend on the seed.
  for (const auto& t : GenerateTasks(200, 99)) {
    if (heldout.count(t.pattern)) {
      EXPECT_EQ(t.split, "heldout_pattern") << t.pattern;
    }
    if (train.count(t.pattern)) {
      EXPECT_NE(t.split, "heldout_pattern") << t.pattern;
    }
  }
}

TEST(Sft, CompletionIsPlanInThinkThenOneCodeBlock) {
  const auto t = GenerateTasks(1, 4).front();
  const std::string c = CompletionFor(t.plan, t.solution);
  ASSERT_EQ(c.rfind("<think>\n", 0), 0u);
  const size_t close = c.find("</think>");
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(c.substr(8, close - 9), t.plan);
  // Exactly one fence pair, and its body is the solution.
  const size_t open = c.find("```python\n", close);
  ASSERT_NE(open, std::string::npos);
  const size_t end = c.find("```", open + 10);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(c.find("```", end + 3), std::string::npos);
  EXPECT_EQ(c.substr(open + 10, end - open - 10), t.solution);
  const std::string p = PromptFor(t.reference);
  EXPECT_NE(p.find(t.reference), std::string::npos);
  EXPECT_NE(p.find("ModelNew"), std::string::npos);
}

TEST(KernelBook, MalformedLinesNameFileAndLine) {
  auto bad_json = ParseKernelBookLine("{not json", "rows.jsonl", 7);
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(bad_json.status().message().rfind("rows.jsonl:7: ", 0), 0u);
  auto missing = ParseKernelBookLine(R"({"python_code": "x", "entry_point": "A"})", "r.jsonl", 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("r.jsonl:3: missing field 'triton_code'"),
            std::string::npos);
  auto typed = ParseKernelBookLine(R"({"python_code": "x", "triton_code": 5, "entry_point": "A"})",
                                   "r.jsonl", 4);
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("'triton_code' must be a string"), std::string::npos);
}

}  // namespace
}  // namespace tritonrl::data
