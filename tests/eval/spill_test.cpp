// Spilled reference outputs (src/eval/spill.h): the memory tier in front of the disk, its budget,
// and reads that cross from memory to disk.
#include "eval/spill.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "eval/admission.h"
#include "eval/engine.h"

namespace tritonrl::eval {
namespace {

constexpr std::size_t kMiB = 1 << 20;

// 1 MiB whose bytes depend on the chunk number and position, so that a read from the wrong
// place or tier shows.
std::string Chunk(int k) {
  std::string s(kMiB, '\0');
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>((i * 31 + k * 7) & 0xff);
  return s;
}

class SpillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("spill_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::shared_ptr<SpillFile> Make(std::shared_ptr<SpillBudget> disk,
                                  std::shared_ptr<SpillBudget> memory) {
    auto f = SpillFile::Create(dir_.string(), 0, std::move(disk), std::move(memory));
    EXPECT_TRUE(f.ok()) << f.status().message();
    // Anonymous either way: nothing a worker could open appears in the folder.
    EXPECT_TRUE(std::filesystem::is_empty(dir_));
    return *f;
  }
  std::filesystem::path dir_;
};

TEST_F(SpillTest, TheMemoryTierTakesTheHeadAndTheDiskTheRest) {
  auto disk = std::make_shared<SpillBudget>();
  auto memory = std::make_shared<SpillBudget>();
  memory->limit = 3 * kMiB;
  {
    auto f = Make(disk, memory);
    for (int k = 0; k < 5; ++k) ASSERT_TRUE(f->Append(Chunk(k)).ok());
    EXPECT_EQ(f->size(), static_cast<std::int64_t>(5 * kMiB));
    EXPECT_EQ(f->memory_bytes(), static_cast<std::int64_t>(3 * kMiB));
    EXPECT_EQ(memory->used.load(), 3 * kMiB);
    EXPECT_EQ(disk->used.load(), 2 * kMiB);
    // Every chunk reads back, and so does a read across the memory/disk boundary.
    std::string got;
    for (int k = 0; k < 5; ++k) {
      ASSERT_TRUE(f->ReadAt(static_cast<std::int64_t>(k * kMiB), kMiB, got).ok());
      EXPECT_EQ(got, Chunk(k)) << "chunk " << k;
    }
    ASSERT_TRUE(f->ReadAt(static_cast<std::int64_t>(2 * kMiB + kMiB / 2), kMiB, got).ok());
    const std::string c2 = Chunk(2), c3 = Chunk(3);
    EXPECT_EQ(got, c2.substr(kMiB / 2) + c3.substr(0, kMiB / 2));
    EXPECT_FALSE(f->ReadAt(static_cast<std::int64_t>(5 * kMiB - 1), 2, got).ok());
  }
  // Both budgets are given back when the file goes.
  EXPECT_EQ(memory->used.load(), 0u);
  EXPECT_EQ(disk->used.load(), 0u);
}

TEST_F(SpillTest, OnceOnDiskAFileStaysThereEvenWhenMemoryIsFreed) {
  auto memory = std::make_shared<SpillBudget>();
  memory->limit = 2 * kMiB;
  auto a = Make(nullptr, memory);
  ASSERT_TRUE(a->Append(Chunk(0)).ok());
  ASSERT_TRUE(a->Append(Chunk(1)).ok());
  auto b = Make(nullptr, memory);
  ASSERT_TRUE(b->Append(Chunk(2)).ok());  // memory full: disk
  EXPECT_EQ(b->memory_bytes(), 0);
  a.reset();
  EXPECT_EQ(memory->used.load(), 0u);
  ASSERT_TRUE(b->Append(Chunk(3)).ok());  // memory free again, but the head is on disk
  EXPECT_EQ(b->memory_bytes(), 0);
  std::string got;
  ASSERT_TRUE(b->ReadAt(static_cast<std::int64_t>(kMiB), kMiB, got).ok());
  EXPECT_EQ(got, Chunk(3));
}

TEST_F(SpillTest, TheHostsAvailableMemoryBoundsTheTierBesideItsLimit) {
  auto memory = std::make_shared<SpillBudget>();
  memory->limit = 64 * kMiB;
  const auto available = HostAvailableBytes();
  ASSERT_TRUE(available.has_value());
  memory->keep_available = *available + (1ull << 40);  // more than the host can ever have free
  auto f = Make(nullptr, memory);
  ASSERT_TRUE(f->Append(Chunk(0)).ok());
  EXPECT_EQ(f->memory_bytes(), 0);
  EXPECT_EQ(memory->used.load(), 0u);
}

TEST_F(SpillTest, TheDiskBudgetStillRefusesWhatMemoryCannotTake) {
  auto disk = std::make_shared<SpillBudget>();
  disk->limit = kMiB;
  auto memory = std::make_shared<SpillBudget>();
  memory->limit = kMiB;
  auto f = Make(disk, memory);
  ASSERT_TRUE(f->Append(Chunk(0)).ok());  // memory
  ASSERT_TRUE(f->Append(Chunk(1)).ok());  // disk, at its limit
  const Status full = f->Append(Chunk(2));
  EXPECT_EQ(full.code(), StatusCode::kUnavailable);
  EXPECT_NE(full.message().find("spill budget is 1 MiB"), std::string::npos) << full.message();
  EXPECT_EQ(f->size(), static_cast<std::int64_t>(2 * kMiB));
  EXPECT_EQ(disk->used.load(), kMiB);
}

TEST(SpillAdmissionTest, TheDefaultHostBudgetLeavesTheMemoryTierOut) {
  EngineConfig with, without;
  with.memory_spill_budget = std::make_shared<SpillBudget>();
  with.memory_spill_budget->limit = 1ull << 30;
  const auto a = MakeAdmission(without), b = MakeAdmission(with);
  // MemAvailable moves between the two readings; a GiB less is far beyond that noise.
  EXPECT_NEAR(static_cast<double>(a.host_budget() - b.host_budget()),
              static_cast<double>(1ull << 30), 64.0 * kMiB);
}

}  // namespace
}  // namespace tritonrl::eval
