// --scale-sizes' rule (task/scale.h) on a task file written here: which constants scale, the
// rounding, and that the written copy loads with the new variant holding exactly those values.
#include "task/scale.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tritonrl::task {
namespace {

namespace fs = std::filesystem;

TEST(ScaleSizes, ScalesSizeConstantsAndWritesAVariant) {
  const fs::path root = fs::temp_directory_path() / ("scale_test_" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "in" / "level1");
  std::ofstream(root / "in" / "level1" / "1_Conv.py")
      << "import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
         "        return x\n\nbatch_size = 16\ndim = 1000\nkernel_size = 3\nN = 2048 * 2\n"
         "flag = True\nscale = 0.5\n\ndef get_inputs():\n    return [torch.rand(batch_size, "
         "dim)]\n\n"
         "def get_init_inputs():\n    return []\n";
  auto suite = LoadSuite((root / "in").string());
  ASSERT_TRUE(suite.ok());
  ASSERT_EQ(suite->tasks.size(), 1u) << (suite->errors.empty() ? "" : suite->errors[0].ToString());
  const ScaledTask s = ScaleTask(suite->tasks[0], {0.25, 64});
  // 1000 * 0.25 = 250; 4096 * 0.25 = 1024; 16 and 3 are below 64; bools and floats never scale.
  EXPECT_EQ(s.changed.dump(), R"({"dim":[1000,250],"N":[4096,1024]})");
  EXPECT_EQ(ScaleTask(suite->tasks[0], {0.0001, 64}).changed["dim"][1], 1);  // at least 1

  auto written = WriteScaledSuite(*suite, {0.25, 64}, (root / "out").string());
  ASSERT_TRUE(written.ok()) << written.status().message();
  auto scaled = LoadSuite((root / "out").string());
  ASSERT_TRUE(scaled.ok());
  ASSERT_EQ(scaled->tasks.size(), 1u)
      << (scaled->errors.empty() ? "" : scaled->errors[0].ToString());
  const TaskInfo& t = scaled->tasks[0];
  EXPECT_EQ(t.id, "level1/1_Conv");
  ASSERT_EQ(t.variants.size(), 2u);
  EXPECT_EQ(t.variants[0].name, "default");
  EXPECT_EQ(t.variants[1].name, kScaledVariant);
  EXPECT_EQ(t.variants[1].overrides.dump(), R"({"dim":250,"N":1024})");
  EXPECT_FALSE(WriteScaledSuite(*suite, {0, 64}, (root / "bad").string()).ok());
  fs::remove_all(root);
}

}  // namespace
}  // namespace tritonrl::task
