#include "task/task.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/sha256.h"

namespace tritonrl::task {
namespace {

namespace fs = std::filesystem;

const char* kRelu = R"(import torch
import torch.nn as nn

DTYPE = "bfloat16"
RTOL = 2e-2
VARIANTS = {
    "small": {"batch_size": 2, "dim": 8},
    "medium": {"batch_size": 16, "dim": 1024},
    "large": {"batch_size": 64, "dim": 1024 * 16},
}
batch_size = 16
dim = 1024
total = batch_size * dim


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(batch_size, dim, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
)";

// KernelBench style: no metadata at all.
const char* kBare = R"(import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
    def forward(self, A, B):
        return torch.matmul(A, B)

N = 2048 * 2

def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]

def get_init_inputs():
    return []
)";

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("tritonrl_task_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  void Write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path_ / rel).parent_path());
    std::ofstream(path_ / rel) << text;
  }
  std::string str() const { return path_.string(); }
  std::string operator/(const std::string& rel) const { return (path_ / rel).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

Result<TaskInfo> Analyze(const std::string& src, std::vector<SourceError>* errors,
                         std::optional<int> level = std::nullopt) {
  return AnalyzeTaskSource(src, "t.py", "t", level, errors);
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

TEST(TaskSource, MetadataIsExtracted) {
  std::vector<SourceError> errors;
  auto t = Analyze(kRelu, &errors, 1);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(t->dtype, "bfloat16");
  EXPECT_DOUBLE_EQ(t->atol, 1e-2);  // the bf16 default
  EXPECT_DOUBLE_EQ(t->rtol, 2e-2);  // explicit
  EXPECT_FALSE(t->explicit_atol);
  EXPECT_TRUE(t->explicit_rtol);
  ASSERT_EQ(t->variants.size(), 3u);
  EXPECT_EQ(t->variants[0].name, "small");
  EXPECT_EQ(t->variants[2].name, "large");
  EXPECT_EQ(t->variants[2].overrides["dim"], Json(16384));
  EXPECT_EQ(t->constants["total"], Json(16 * 1024));
  EXPECT_EQ(t->level, 1);
  EXPECT_EQ(t->model_line, 16);
  EXPECT_EQ(t->get_inputs_line, 21);
  EXPECT_EQ(t->get_init_inputs_line, 25);
  EXPECT_EQ(t->sha256, Sha256Hex(kRelu));
}

TEST(TaskSource, KernelBenchFileWithoutMetadataGetsDefaults) {
  std::vector<SourceError> errors;
  auto t = Analyze(kBare, &errors);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype, "float32");
  EXPECT_DOUBLE_EQ(t->atol, 1e-4);
  EXPECT_DOUBLE_EQ(t->rtol, 1e-4);
  ASSERT_EQ(t->variants.size(), 1u);
  EXPECT_EQ(t->variants[0].name, "default");
  EXPECT_EQ(t->constants["N"], Json(4096));
  EXPECT_FALSE(t->level.has_value());
}

TEST(TaskSource, EachMissingDefinitionIsAnError) {
  struct Case {
    std::string drop, expect;
  };
  for (const Case& c :
       {Case{"class Model(nn.Module):", "missing top-level `class Model`"},
        Case{"def get_inputs():", "missing top-level `def get_inputs()`"},
        Case{"def get_init_inputs():", "missing top-level `def get_init_inputs()`"}}) {
    std::vector<SourceError> errors;
    std::string renamed = c.drop;
    renamed.insert(renamed.find(c.drop.find("class") == 0 ? "Model" : "get_"), "x");
    auto t = Analyze(Replace(kBare, c.drop, renamed), &errors);
    EXPECT_FALSE(t.ok()) << c.drop;
    ASSERT_EQ(errors.size(), 1u) << c.drop;
    EXPECT_EQ(errors[0].ToString(), "t.py:1: " + c.expect);
  }
  std::vector<SourceError> errors;
  std::string none = "import torch\nx = 1\n";
  EXPECT_FALSE(Analyze(none, &errors).ok());
  EXPECT_EQ(errors.size(), 3u);  // all three named, not just the first
}

TEST(TaskSource, WrongKindOfDefinitionAndSolutionHint) {
  std::vector<SourceError> errors;
  auto t = Analyze(Replace(kBare, "def get_inputs():", "get_inputs = 3\ndef unused():"), &errors);
  EXPECT_FALSE(t.ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 12);
  EXPECT_NE(errors[0].message.find("must be a top-level function"), std::string::npos);
  errors.clear();
  Analyze(Replace(kBare, "class Model(", "class ModelNew("), &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("solution"), std::string::npos) << errors[0].message;
}

TEST(TaskSource, SyntaxErrorNamesFileAndLine) {
  std::vector<SourceError> errors;
  std::string broken = Replace(kBare, "N = 2048 * 2", "N = (2048 * 2");
  auto t = Analyze(broken, &errors);
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kParseError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 10);
  EXPECT_EQ(errors[0].ToString().rfind("t.py:10: SyntaxError: ", 0), 0u) << errors[0].ToString();
}

TEST(TaskSource, MalformedMetadataIsReportedAtItsLine) {
  std::vector<SourceError> errors;
  std::string src = Replace(kRelu, "DTYPE = \"bfloat16\"", "DTYPE = torch.bfloat16");
  src = Replace(src, "RTOL = 2e-2", "RTOL = -1");
  src = Replace(src, "\"small\": {\"batch_size\": 2, \"dim\": 8}", "\"small\": {\"batch\": 2}");
  EXPECT_FALSE(Analyze(src, &errors).ok());
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].line, 4);
  EXPECT_NE(errors[0].message.find("DTYPE must be a literal"), std::string::npos);
  EXPECT_EQ(errors[1].line, 5);
  EXPECT_NE(errors[1].message.find("RTOL must be a finite number"), std::string::npos);
  EXPECT_EQ(errors[2].line, 6);
  EXPECT_NE(errors[2].message.find("`batch`"), std::string::npos) << errors[2].message;

  errors.clear();
  EXPECT_FALSE(Analyze(Replace(kRelu, "\"bfloat16\"", "\"float64\""), &errors).ok());
  EXPECT_NE(errors.at(0).message.find("float64"), std::string::npos);
  errors.clear();
  EXPECT_FALSE(Analyze("LEVEL = 2\n" + std::string(kBare), &errors, 1).ok());
  EXPECT_NE(errors.at(0).message.find("level1/"), std::string::npos);
}

TEST(TaskSource, LevelConstantOutsideALevelFolder) {
  std::vector<SourceError> errors;
  auto t = Analyze("LEVEL = 3\n" + std::string(kBare), &errors);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->level, 3);
}

TEST(Suite, LevelLayoutIdsAndOrder) {
  TempDir dir;
  dir.Write("level1/10_Relu.py", kRelu);
  dir.Write("level1/2_Matmul.py", kBare);
  dir.Write("level2/1_Fused.py", kBare);
  dir.Write("level1/__init__.py", "");
  dir.Write("solutions/level1/2_Matmul.py", "class ModelNew: pass\n");  // not a level folder
  dir.Write("level1/notes.txt", "not python");
  auto suite = LoadSuite(dir.str());
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  EXPECT_TRUE(suite->errors.empty());
  ASSERT_EQ(suite->tasks.size(), 3u);
  EXPECT_EQ(suite->tasks[0].id, "level1/2_Matmul");  // numeric, not lexicographic, order
  EXPECT_EQ(suite->tasks[1].id, "level1/10_Relu");
  EXPECT_EQ(suite->tasks[2].id, "level2/1_Fused");
  EXPECT_EQ(suite->tasks[2].level, 2);
  EXPECT_NE(FindTask(*suite, "level1/10_Relu"), nullptr);
  EXPECT_EQ(FindTask(*suite, "10_Relu"), nullptr);
}

TEST(Suite, FlatFolderAndBadFilesAreReportedNotFatal) {
  TempDir dir;
  dir.Write("relu.py", kRelu);
  dir.Write("matmul.py", kBare);
  dir.Write("broken.py", "def get_inputs(:\n");
  dir.Write("incomplete.py", "class Model: pass\n");
  auto suite = LoadSuite(dir.str());
  ASSERT_TRUE(suite.ok());
  ASSERT_EQ(suite->tasks.size(), 2u);
  EXPECT_EQ(suite->tasks[0].id, "matmul");
  EXPECT_EQ(suite->tasks[1].id, "relu");
  EXPECT_FALSE(suite->tasks[1].level.has_value());
  EXPECT_EQ(suite->bad_files, 2);
  ASSERT_EQ(suite->errors.size(), 3u);  // one syntax error, two missing functions
  EXPECT_EQ(suite->errors[0].file, dir / "broken.py");
  EXPECT_EQ(suite->errors[0].line, 1);
  EXPECT_EQ(suite->errors[1].ToString(),
            dir / "incomplete.py" + ":1: missing top-level `def get_inputs()`");
}

TEST(Suite, MissingFolderIsAnError) {
  auto suite = LoadSuite("/nonexistent/tritonrl/suite");
  EXPECT_FALSE(suite.ok());
  EXPECT_EQ(suite.status().code(), StatusCode::kNotFound);
}

TEST(Suite, BuiltInSuiteLoadsCleanly) {
  auto suite = LoadSuite(std::string(TRITONRL_SOURCE_DIR) + "/tasks");
  ASSERT_TRUE(suite.ok());
  for (const auto& e : suite->errors) ADD_FAILURE() << e.ToString();
  int level2 = 0, level3 = 0;
  for (const auto& t : suite->tasks) {
    level2 += t.level == 2;
    level3 += t.level == 3;
    if (t.level == 2 || t.level == 3) {
      EXPECT_GE(t.variants.size(), 3u) << t.id;
    }
  }
  EXPECT_GE(level2, 21);
  EXPECT_GE(level3, 10);
  const TaskInfo* anchor = FindTask(*suite, "level2/1_LinearBiasReLU");
  ASSERT_NE(anchor, nullptr);
  EXPECT_EQ(anchor->dtype, "float32");
}

}  // namespace
}  // namespace tritonrl::task
