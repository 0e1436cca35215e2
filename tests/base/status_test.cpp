#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "base/file.h"
#include "base/status.h"

namespace tritonrl {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

TEST(Status, OkAndError) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = Status::NotFound("tasks/x.py");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not found: tasks/x.py");
}

TEST(Result, ValueOrStatus) {
  auto a = Half(8);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 4);
  auto b = Half(3);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "odd: 3");
}

TEST(File, RoundTripAndMissing) {
  auto dir = std::filesystem::temp_directory_path() / "tritonrl_base_test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / "f.txt").string();
  ASSERT_TRUE(WriteFileAtomic(path, std::string("a\0b", 3)).ok());
  auto r = ReadFile(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::string("a\0b", 3));
  auto missing = ReadFile((dir / "nope.txt").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.txt"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tritonrl
