// Admission control of the pool (src/eval/admission.h): budgets, waiting, refusal, estimates.
#include "eval/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace tritonrl::eval {
namespace {

TEST(AdmissionTest, ANeedAboveABudgetIsRefusedAtOnce) {
  MemoryAdmission a(100, 50);
  auto host = a.Admit({101, 0});
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(a.Admit({10, 51}).ok());
  EXPECT_TRUE(a.Admit({100, 50}).ok());  // exactly the budget fits
  MemoryAdmission unlimited(0, 0);
  EXPECT_TRUE(unlimited.Admit({1ull << 60, 1ull << 60}).ok());
}

TEST(AdmissionTest, ANeedThatFitsOnlyAloneWaitsForTheOthersToFinish) {
  MemoryAdmission a(100, 0);
  auto first = a.Admit({60, 0});
  ASSERT_TRUE(first.ok());
  std::atomic<bool> admitted{false};
  std::thread second([&] {
    auto t = a.Admit({60, 0});
    admitted = t.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(admitted.load());  // 60 + 60 > 100
  auto small = a.Admit({40, 0});  // 60 + 40 fits beside the first
  EXPECT_TRUE(small.ok());
  small->Release();
  first->Release();
  second.join();
  EXPECT_TRUE(admitted.load());
}

TEST(AdmissionTest, AGrownReservationHoldsOffLaterNeedsUntilReleased) {
  MemoryAdmission a(0, 100);
  auto reference = a.Admit({0, 10});  // a reference's base
  ASSERT_TRUE(reference.ok());
  reference->GrowTo({0, 70});  // its first trial reported a peak
  reference->GrowTo({0, 50});  // a smaller figure never shrinks it
  std::atomic<bool> admitted{false};
  std::thread candidate([&] {
    auto t = a.Admit({0, 40});  // fits beside the base (10), not beside the peak (70)
    admitted = t.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(admitted.load());
  EXPECT_TRUE(a.Admit({0, 30}).ok());  // 70 + 30 fits
  reference->Release();                // gives back all 70
  candidate.join();
  EXPECT_TRUE(admitted.load());
  EXPECT_TRUE(a.Admit({0, 100}).ok());  // nothing is left held
}

TEST(AdmissionTest, AloneWaitsForEveryHolderAndBlocksNewcomersMeanwhile) {
  MemoryAdmission a(100, 100);
  auto first = a.Admit({10, 10});
  ASSERT_TRUE(first.ok());
  std::atomic<bool> alone_in{false}, late_in{false};
  std::thread alone([&] {
    MemoryAdmission::Ticket t = a.AdmitAlone();
    alone_in = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(late_in.load());  // nobody beside it while it holds the pool
    alone_in = false;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(alone_in.load());  // the first holder is still there
  std::thread late([&] {
    auto t = a.Admit({1, 1});  // would fit, but the alone request came first
    late_in = t.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(late_in.load());
  first->Release();
  alone.join();
  late.join();
  EXPECT_TRUE(late_in.load());
}

TEST(AdmissionTest, EstimatesByHand) {
  EngineConfig cfg;
  ReferenceResult ref;
  ref.max_input_bytes = 100 << 20;
  ref.max_output_bytes = 300 << 20;
  cfg.device = "cpu";
  const MemoryNeed cpu = EstimateCandidateMemory(cfg, ref);
  EXPECT_EQ(cpu.host, (768ull << 20) + 3 * (400ull << 20));
  EXPECT_EQ(cpu.device, 0u);
  cfg.device = "cuda";
  const MemoryNeed gpu = EstimateCandidateMemory(cfg, ref);
  EXPECT_EQ(gpu.host, (2ull << 30) + (32ull << 20));
  EXPECT_EQ(gpu.device, (1ull << 30) + 3 * (400ull << 20));
  // With the reference's measured peak: that and a quarter more, over the base.
  ref.peak_device_bytes = 800 << 20;
  EXPECT_EQ(EstimateCandidateMemory(cfg, ref).device, (1ull << 30) + (1000ull << 20));
  // Never less than the runner's own copies: inputs twice (the copy kept to see them changed)
  // and the outputs.
  ref.peak_device_bytes = 100 << 20;
  EXPECT_EQ(EstimateCandidateMemory(cfg, ref).device, (1ull << 30) + (500ull << 20));
  // The CPU path ignores it (the reference does not report a host peak).
  cfg.device = "cpu";
  EXPECT_EQ(EstimateCandidateMemory(cfg, ref).host, (768ull << 20) + 3 * (400ull << 20));
}

TEST(AdmissionTest, HostAvailableIsReadFromProc) {
  const auto avail = HostAvailableBytes();
  ASSERT_TRUE(avail.has_value());
  EXPECT_GT(*avail, 0u);
}

}  // namespace
}  // namespace tritonrl::eval
