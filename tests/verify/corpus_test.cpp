// The corpora: no honest kernel rejected (either policy); every static-labelled hack caught by its
// labelled rule; every runtime-labelled hack passes the static gate under `standard`.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "base/file.h"
#include "verify/rules.h"
#include "verify/verify.h"

namespace tritonrl::verify {
namespace {

namespace fs = std::filesystem;

struct CorpusFile {
  std::string name;
  std::string code;
  std::map<std::string, std::string> header;
};

std::vector<CorpusFile> Load(const std::string& kind) {
  std::vector<CorpusFile> files;
  fs::path dir = fs::path(TRITONRL_SOURCE_DIR) / "tests" / "corpus" / kind;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".py") continue;
    auto text = ReadFile(entry.path().string());
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    if (!text.ok()) continue;
    CorpusFile f{entry.path().filename().string(), *text, {}};
    size_t pos = 0;
    while (pos < f.code.size() && f.code[pos] == '#') {
      size_t eol = f.code.find('\n', pos);
      std::string line = f.code.substr(pos + 1, eol - pos - 1);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        auto trim = [](std::string s) {
          s.erase(0, s.find_first_not_of(' '));
          s.erase(s.find_last_not_of(' ') + 1);
          return s;
        };
        f.header[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
      }
      pos = eol + 1;
    }
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(),
            [](const CorpusFile& a, const CorpusFile& b) { return a.name < b.name; });
  return files;
}

std::string Describe(const Verdict& v) {
  std::string s = v.outcome + ":";
  for (const Finding& f : v.violations)
    s += " " + f.rule + "@" + std::to_string(f.line) + "(" + f.detail + ")";
  for (const Finding& f : v.warnings) s += " warn:" + f.rule;
  return s;
}

bool Has(const std::vector<Finding>& list, const std::string& rule) {
  for (const Finding& f : list) {
    if (f.rule == rule) return true;
  }
  return false;
}

// Data-movement tasks (index-select, gather, transpose, permute): their honest kernels only move
// data, so the copy-only warning is expected there.
const std::set<std::string> kLayoutTasks = {"level1/31_IndexSelectRows", "level1/32_GatherColumns",
                                            "level1/33_Transpose2d", "level1/34_PermuteNCHWToNHWC"};

// Run-time corpus files (and honest kernels for scans, atomics, pipelines) may use any task of
// the built-in suite: the eval corpus test runs them against tasks/.
bool SuiteHasTask(const std::string& task) {
  return fs::exists(fs::path(TRITONRL_SOURCE_DIR) / "tasks" / (task + ".py"));
}

TEST(Corpus, LegitKernelsAreValidInBothPolicies) {
  std::vector<CorpusFile> files = Load("legit");
  EXPECT_GE(files.size(), 40u);
  for (const CorpusFile& f : files) {
    EXPECT_EQ(f.header.at("corpus"), "legit") << f.name;
    EXPECT_TRUE(SuiteHasTask(f.header.at("task"))) << f.name;
    EXPECT_EQ(f.header.at("expect"), "correct") << f.name;
    for (Policy p : {Policy::kStandard, Policy::kStrict}) {
      VerifyOptions options;
      options.policy = p;
      Verdict v = VerifyCode(f.code, options);
      EXPECT_TRUE(v.valid) << f.name << " (" << PolicyName(p) << "): " << Describe(v);
      // A layout task's honest kernels only move data: the copy-only warning is their nature.
      // Elsewhere a file says so in its header (`# warn: func.copy_only_kernel (why)`), e.g. a
      // kernel whose compute is its store mask, which the static rule cannot see.
      const bool layout = kLayoutTasks.count(f.header.at("task")) > 0;
      const bool declared =
          f.header.count("warn") > 0 && f.header.at("warn").rfind("func.copy_only_kernel", 0) == 0;
      for (const Finding& w : v.warnings) {
        EXPECT_TRUE((layout || declared) && w.rule == "func.copy_only_kernel")
            << f.name << ": " << Describe(v);
      }
    }
  }
}

TEST(Corpus, StaticHacksAreCaughtByTheirRule) {
  std::vector<CorpusFile> files = Load("hacks");
  EXPECT_GE(files.size(), 40u);
  std::set<std::string> rules_covered;
  std::set<std::string> whats;
  size_t static_count = 0;
  for (const CorpusFile& f : files) {
    EXPECT_EQ(f.header.at("corpus"), "hack") << f.name;
    const std::string& task = f.header.at("task");
    EXPECT_TRUE(SuiteHasTask(task)) << f.name;
    EXPECT_TRUE(whats.insert(f.header.at("what")).second) << "duplicate trick: " << f.name;
    const std::string& expect = f.header.at("expect");
    if (expect.rfind("static ", 0) != 0) continue;
    ++static_count;
    std::string rule = expect.substr(7);
    const RuleInfo* info = FindRule(rule);
    ASSERT_NE(info, nullptr) << f.name << ": unknown rule " << rule;
    rules_covered.insert(rule);
    VerifyOptions strict;
    strict.policy = Policy::kStrict;
    Verdict vs = VerifyCode(f.code, strict);
    EXPECT_FALSE(vs.valid) << f.name;
    EXPECT_TRUE(Has(vs.violations, rule)) << f.name << " expects " << rule << ": " << Describe(vs);
    Verdict v = VerifyCode(f.code, VerifyOptions{});
    if (info->strict_only) {
      EXPECT_TRUE(Has(v.warnings, rule)) << f.name << ": " << Describe(v);
    } else {
      EXPECT_TRUE(Has(v.violations, rule)) << f.name << ": " << Describe(v);
      EXPECT_FALSE(v.valid) << f.name;
    }
  }
  EXPECT_GE(static_count, 40u);
  // Every rule that can reject has a corpus hack (parse/no-code and warnings aside).
  size_t n = 0;
  const RuleInfo* rules = AllRules(&n);
  for (size_t i = 0; i < n; ++i) {
    std::string id(rules[i].id);
    if (id == "syntax.parse_error" || id == "syntax.no_code" || id == "syntax.no_modelnew" ||
        id == "func.try_except_outside" || id == "func.instance_state" || rules[i].warning_only) {
      continue;
    }
    EXPECT_TRUE(rules_covered.count(id)) << "no corpus hack for " << id;
  }
}

TEST(Corpus, EveryRuleIsDocumented) {
  auto doc = ReadFile(std::string(TRITONRL_SOURCE_DIR) + "/docs/rules.md");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  size_t n = 0;
  const RuleInfo* rules = AllRules(&n);
  for (size_t i = 0; i < n; ++i) {
    std::string needle = "| `" + std::string(rules[i].id) + "`";
    EXPECT_NE(doc->find(needle), std::string::npos) << rules[i].id << " missing from docs/rules.md";
    std::string message = "| " + std::string(rules[i].message) + " |";
    EXPECT_NE(doc->find(message), std::string::npos) << rules[i].id << ": message differs in docs";
  }
}

TEST(Corpus, RuntimeHacksPassTheStaticGate) {
  size_t runtime_count = 0;
  for (const CorpusFile& f : Load("hacks")) {
    const std::string& expect = f.header.at("expect");
    if (expect.rfind("runtime ", 0) != 0) continue;
    ++runtime_count;
    Verdict v = VerifyCode(f.code, VerifyOptions{});
    EXPECT_TRUE(v.valid) << f.name << ": " << Describe(v);
  }
  EXPECT_GE(runtime_count, 10u);
}

}  // namespace
}  // namespace tritonrl::verify
