// The timing stage's trusted side: the lease (real flock and threads), the
// statistics (hand-computed values), the consistency checks on constructed
// phases (each the signature of one timing hack), re-checks and the roofline.
#include "eval/timing.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "eval/roofline.h"

namespace tritonrl::eval {
namespace {

namespace fs = std::filesystem;

std::string TempDir() {
  std::string t = (fs::temp_directory_path() / "timing-test-XXXXXX").string();
  EXPECT_NE(mkdtemp(t.data()), nullptr);
  return t;
}

TEST(TimingStats, HandComputedQuantiles) {
  const Stats s = Summarize({4, 1, 3, 2, 5});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p25, 2);
  EXPECT_DOUBLE_EQ(s.p75, 4);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));  // sample variance of 1..5
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(2.5) / 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
}

TEST(TimingStats, EvenCountInterpolatesAndDropsNonFinite) {
  const Stats s = Summarize({1, 2, 3, 4, std::nan("")});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p25, 1.75);
  EXPECT_EQ(Summarize({}).n, 0);
}

TEST(TimingPlan, SeedsRecheckAndVariant) {
  TimingOptions o;
  o.trials = 50;
  o.recheck = 7;
  DrawTimingPlan(o, 12345);
  ASSERT_EQ(o.seeds.size(), 50u);
  ASSERT_EQ(o.recheck_indices.size(), 7u);
  EXPECT_TRUE(std::is_sorted(o.recheck_indices.begin(), o.recheck_indices.end()));
  EXPECT_EQ(std::adjacent_find(o.recheck_indices.begin(), o.recheck_indices.end()),
            o.recheck_indices.end());
  for (int i : o.recheck_indices) EXPECT_TRUE(i >= 0 && i < 50);
  TimingOptions other = o;
  DrawTimingPlan(other, 999);
  EXPECT_NE(other.seeds, o.seeds);  // a different secret, a different plan
  EXPECT_EQ(TimedVariant({"small", "medium", "large"}), "large");
  EXPECT_EQ(TimedVariant({"default"}), "default");
  EXPECT_EQ(TimedVariant({"small", "big"}), "big");
}

TEST(TimingPlan, WorkersLearnEachSeedBeforeAndEachRecheckAfterItsCall) {
  TimingOptions o;
  o.trials = 6;
  o.recheck = 2;
  o.warmup = 3;
  DrawTimingPlan(o, 4242);
  ASSERT_EQ(o.sample_seeds.size(), 6u);
  ASSERT_EQ(o.warmup_seeds.size(), 3u);
  ASSERT_EQ(TimedCalls(o), 6);
  // A re-checking reference gets everything; every timed go frame holds no timed seed and no
  // decision.
  const auto full = TimingPlan(o);
  EXPECT_EQ(full["seeds"].size(), 6u);
  EXPECT_EQ(full["sample_seeds"].size(), 6u);
  const auto go = PerCallTimingPlan(o);
  EXPECT_EQ(go["calls"], 6);
  EXPECT_EQ(go.size(), 2u) << go.dump();  // warm-up seeds and the number of calls only
  for (const auto& w : go["warmup_seeds"])
    EXPECT_EQ(std::count(o.seeds.begin(), o.seeds.end(), w.get<std::int64_t>()), 0);
  // Answer i: the seed of call i and the verdict on call i-1 with its sample seed. Every answer
  // has the same fields whatever the call (no null calls to tell apart).
  int rechecked = 0;
  for (int i = 0; i <= 6; ++i) {
    const auto a = CallAnswer(o, i);
    EXPECT_EQ(a["index"], i);
    EXPECT_FALSE(a.contains("null")) << a.dump();
    if (i == 6) {
      EXPECT_TRUE(a["seed"].is_null());
    } else {
      EXPECT_EQ(a["seed"], o.seeds[static_cast<std::size_t>(i)]);
    }
    const bool want =
        i > 0 && std::count(o.recheck_indices.begin(), o.recheck_indices.end(), i - 1);
    EXPECT_EQ(a["recheck_prev"].get<bool>(), want) << i;
    EXPECT_EQ(a.contains("sample_seed"), want) << i;
    if (want) {
      EXPECT_EQ(a["sample_seed"], o.sample_seeds[static_cast<std::size_t>(i - 1)]);
      ++rechecked;
    }
    // Nothing about a later call leaks in an answer.
    for (int j = i + 1; j < 6; ++j) {
      EXPECT_EQ(a.dump().find(std::to_string(o.seeds[static_cast<std::size_t>(j)])),
                std::string::npos);
    }
    for (int j = i; j < 6; ++j) {
      EXPECT_EQ(a.dump().find(std::to_string(o.sample_seeds[static_cast<std::size_t>(j)])),
                std::string::npos);
    }
  }
  EXPECT_EQ(rechecked, 2);
}

TEST(TimingBudget, AMultipleOfTheReferencePhaseWithinFloorAndTimeout) {
  using std::chrono::milliseconds;
  TimingOptions o;  // factor 50, floor 10 s, timeout 600 s
  EXPECT_EQ(CandidateTimingBudget(o, 100.0), milliseconds(10000));  // 5 s < floor
  EXPECT_EQ(CandidateTimingBudget(o, 400.5), milliseconds(20025));  // 50 x 400.5 ms
  EXPECT_EQ(CandidateTimingBudget(o, 20000.0), o.timeout);          // 1000 s > timeout
  EXPECT_EQ(CandidateTimingBudget(o, 0.0), o.timeout);              // reference phase unknown
  EXPECT_EQ(CandidateTimingBudget(o, std::nan("")), o.timeout);
  o.slow_factor = 2.0;
  o.slow_floor = milliseconds(0);
  EXPECT_EQ(CandidateTimingBudget(o, 0.4), milliseconds(1));  // rounded up, never zero
}

// Call frames (ms since go) whose consecutive differences are the given cycles.
std::vector<double> FramesOf(const std::vector<double>& cycles) {
  std::vector<double> frames = {0.0};
  for (double c : cycles) frames.push_back(frames.back() + c);
  return frames;
}

// The parent clock on the cycle basis (no spans, as for a reference cached before v27).
std::optional<ParentCallClock> MeasureCycles(const std::vector<double>& frames,
                                             const std::vector<double>& walls,
                                             const std::vector<double>& reference_frames,
                                             const std::vector<double>& reference_walls) {
  return MeasureParentCallClock({frames, {}, walls}, {reference_frames, {}, reference_walls});
}

// An honest 0.2 ms call whose worker spends 1.5 ms a cycle on the audit's own work outside the
// call (hooks, settings, the writer proof), which the trusted reference does not do; both spend
// 0.3 ms on cover and flush inside the span. On cycles the audit's work reads as 1.5 ms the
// worker did not report: flagged. On spans it is not in either side's clock: consistent. A worker
// that halves a 1 ms call is caught on spans as it was on cycles; without the reference's spans
// the cycles are the basis.
TEST(ParentCallClock, SpansLeaveTheAuditsOwnWorkOutOfTheClock) {
  const double call = 0.2, audit = 1.5, flush = 0.3, exchange = 0.4;
  std::vector<double> cand_cycles, cand_spans, ref_cycles, ref_spans, ref_walls;
  for (int i = 0; i < 100; ++i) {
    const double jitter = 0.01 * ((i * 7) % 5);
    cand_spans.push_back(flush + call + jitter);
    cand_cycles.push_back(exchange + audit + flush + call + jitter);
    ref_walls.push_back(0.5);
    ref_spans.push_back(flush + 0.5 + 0.01 * ((i * 3) % 5));
    ref_cycles.push_back(exchange + flush + 0.5 + 0.01 * ((i * 3) % 5));
  }
  const std::vector<double> reported(100, call);
  const auto cycles =
      MeasureCycles(FramesOf(cand_cycles), reported, FramesOf(ref_cycles), ref_walls);
  ASSERT_TRUE(cycles.has_value() && cycles->call_ms.has_value());
  EXPECT_FALSE(cycles->spans);
  EXPECT_NEAR(*cycles->call_ms, call + audit, 0.02);
  EXPECT_NE(CheckParentClock(*cycles, reported), "");

  const std::vector<double> cand_frames = FramesOf(cand_cycles), ref_frames = FramesOf(ref_cycles);
  const auto spans = MeasureParentCallClock({cand_frames, cand_spans, reported},
                                            {ref_frames, ref_spans, ref_walls});
  ASSERT_TRUE(spans.has_value() && spans->call_ms.has_value());
  EXPECT_TRUE(spans->spans);
  EXPECT_NEAR(*spans->call_ms, call, 0.02);
  EXPECT_EQ(CheckParentClock(*spans, reported), "");

  std::vector<double> long_spans;
  for (int i = 0; i < 100; ++i) long_spans.push_back(flush + 1.0 + 0.01 * ((i * 7) % 5));
  const auto halved = MeasureParentCallClock(
      {cand_frames, long_spans, std::vector<double>(100, 0.5)}, {ref_frames, ref_spans, ref_walls});
  ASSERT_TRUE(halved.has_value() && halved->call_ms.has_value());
  EXPECT_NEAR(*halved->call_ms, 1.0, 0.02);
  EXPECT_NE(CheckParentClock(*halved, std::vector<double>(100, 0.5)), "");
  EXPECT_EQ(CheckParentClock(*halved, std::vector<double>(100, 1.0)), "");

  const auto one_sided =
      MeasureParentCallClock({cand_frames, cand_spans, reported}, {ref_frames, {}, ref_walls});
  ASSERT_TRUE(one_sided.has_value());
  EXPECT_FALSE(one_sided->spans);
  EXPECT_NEAR(*one_sided->call_ms, call + audit, 0.02);
}

TEST(ParentCallClock, CandidateCyclesMinusTheReferencesOverheadGiveTheCallsTime) {
  // Candidate cycles 1.0, 1.1, 1.0; the reference's cycles 0.8, 0.8, 0.9 around trusted walls of
  // 0.4, 0.4, 0.5: its overhead outside the call is 0.4 ms on every cycle.
  const auto c = MeasureCycles(FramesOf({1.0, 1.1, 1.0}), {0.6, 0.7, 0.5},
                               FramesOf({0.8, 0.8, 0.9}), {0.4, 0.4, 0.5});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->cycle_ms.n, 3);
  EXPECT_NEAR(c->cycle_ms.median, 1.0, 1e-12);
  EXPECT_NEAR(c->unexplained_ms.median, 0.4, 1e-12);  // 0.4, 0.4, 0.5
  ASSERT_EQ(c->cycles_ms.size(), 3u);                 // the raw cycles, in call order
  EXPECT_NEAR(c->cycles_ms[1], 1.1, 1e-12);
  ASSERT_EQ(c->reference_cycles_ms.size(), 3u);
  EXPECT_NEAR(c->reference_overhead_ms.median, 0.4, 1e-12);
  ASSERT_TRUE(c->call_ms.has_value());
  EXPECT_NEAR(*c->call_ms, 0.6, 1e-12);  // lower quartiles: 1.0 - 0.4
  EXPECT_NEAR(c->call_se_ms, 0.0, 1e-12);
  // Reported 0.6 ms against 0.6 ms: consistent. Reported 0.3: smaller than the engine clocked.
  EXPECT_EQ(CheckParentClock(*c, {0.6, 0.7, 0.5}), "");
  const std::string gap = CheckParentClock(*c, {0.3, 0.35, 0.25});
  EXPECT_NE(gap.find("parent_clock"), std::string::npos) << gap;
  // A cached reference without clocked calls: cycles measured, no estimate, nothing checked.
  const auto p = MeasureCycles(FramesOf({1.0, 1.1, 1.0}), {0.6, 0.7, 0.5}, {}, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_FALSE(p->call_ms.has_value());
  EXPECT_EQ(CheckParentClock(*p, {0.01, 0.01, 0.01}), "");
  // Not one frame more than calls: nothing measured.
  EXPECT_FALSE(MeasureCycles({0.0, 1.0}, {0.5, 0.5}, {}, {}).has_value());
  EXPECT_FALSE(MeasureCycles({}, {}, {}, {}).has_value());
}

TEST(QuantileStandardError, HalfTheSpreadOfOneBinomialDeviationAroundTheQuantile) {
  std::vector<double> even;
  for (int i = 0; i <= 100; ++i) even.push_back(i);
  // Quantiles at 0.25 -/+ sqrt(0.1875 / 101) of 0..100 are 100 times those shares.
  EXPECT_NEAR(QuantileStandardError(even, 0.25), 100 * std::sqrt(0.1875 / 101), 1e-9);
  // Bimodal: 40 cycles near 3.2 ms, 60 stalled at 7.4 ms. The lower quartile lies inside the
  // dense lower mode, so its error is that mode's spread, where IQR / sqrt(n) is ten times more.
  std::vector<double> bimodal;
  for (int i = 0; i < 40; ++i) bimodal.push_back(3.0 + 0.01 * i);
  for (int i = 0; i < 60; ++i) bimodal.push_back(7.4);
  const Stats st = Summarize(bimodal);
  EXPECT_LT(QuantileStandardError(bimodal, 0.25), 0.06);
  EXPECT_GT(st.iqr / std::sqrt(st.n), 0.3);
  EXPECT_EQ(QuantileStandardError({5.0}, 0.25), 0.0);
  EXPECT_EQ(QuantileStandardError({std::nan(""), 2.0}, 0.25), 0.0);  // one finite value
}

// An honest 0.04 ms call whose process was stalled (other workers compiling) during 60 % of its
// cycles, against a reference timed on a quiet host: the medians' difference says 0.4 ms; the
// lower quartiles see the call.
TEST(ParentCallClock, HostStallsDoNotFlagAnHonestCallButHalvedTimesAreCaught) {
  std::vector<double> cand, ref_cycles, ref_walls;
  for (int i = 0; i < 30; ++i)
    cand.push_back(0.64 + 0.01 * (i % 5) + (i % 5 >= 2 ? 0.3 + 0.1 * (i % 3) : 0.0));
  for (int j = 0; j < 30; ++j) {
    ref_walls.push_back(0.09);
    ref_cycles.push_back(0.09 + 0.6 + 0.01 * (j % 5));
  }
  {
    const std::vector<double> reported(30, 0.057);
    const auto c = MeasureCycles(FramesOf(cand), reported, FramesOf(ref_cycles), ref_walls);
    ASSERT_TRUE(c.has_value() && c->call_ms.has_value());
    EXPECT_GT(c->cycle_ms.median - c->reference_overhead_ms.median, 0.3);  // what medians say
    EXPECT_NEAR(*c->call_ms, 0.04, 0.015);
    EXPECT_EQ(CheckParentClock(*c, reported), "");
  }
  // A worker that halves the times of a 1 ms call on a quiet host (100 calls each side, 0.6 ms of
  // overhead per cycle): caught. Halving a 0.15 ms call moves it by 0.075 ms, less than 40 % of
  // the overhead (0.24 ms), which an honest short kernel's own host work reaches under load:
  // below the clock's resolution, it passes (docs/measurement.md).
  for (const double call : {1.0, 0.15}) {
    cand.clear();
    ref_cycles.clear();
    ref_walls.clear();
    for (int i = 0; i < 100; ++i) {
      cand.push_back(0.6 + call + 0.01 * ((i * 7) % 5));
      ref_walls.push_back(0.3);
      ref_cycles.push_back(0.3 + 0.6 + 0.01 * ((i * 3) % 5));
    }
    const auto c = MeasureCycles(FramesOf(cand), std::vector<double>(100, call / 2),
                                 FramesOf(ref_cycles), ref_walls);
    ASSERT_TRUE(c.has_value() && c->call_ms.has_value());
    EXPECT_NEAR(*c->call_ms, call, 0.01);
    EXPECT_EQ(CheckParentClock(*c, std::vector<double>(100, call / 2)).empty(), call < 0.5) << call;
    EXPECT_EQ(CheckParentClock(*c, std::vector<double>(100, call)), "");  // the truth passes
  }
  // Honest on the H200 at 16 jobs (solution/level1/34_PermuteNCHWToNHWC, 2026-12-02, ebdb753): the
  // engine clocked 0.25 ms, the worker reported 0.096 ms, the reference's overhead was 0.46 ms.
  cand.clear();
  ref_cycles.clear();
  ref_walls.clear();
  for (int i = 0; i < 100; ++i) {
    cand.push_back(0.46 + 0.25 + 0.01 * ((i * 7) % 5));
    ref_walls.push_back(0.1);
    ref_cycles.push_back(0.1 + 0.46 + 0.01 * ((i * 3) % 5));
  }
  {
    const auto c = MeasureCycles(FramesOf(cand), std::vector<double>(100, 0.096),
                                 FramesOf(ref_cycles), ref_walls);
    ASSERT_TRUE(c.has_value() && c->call_ms.has_value());
    EXPECT_NEAR(*c->call_ms, 0.25, 0.01);
    EXPECT_EQ(CheckParentClock(*c, std::vector<double>(100, 0.096)), "");
    ParentClockTolerance v13;  // the rule before version 14 flagged it
    v13.overhead_share = 0;
    EXPECT_NE(CheckParentClock(*c, std::vector<double>(100, 0.096), v13), "");
  }
  // A 2.4 ms call halved on a loaded 2-core machine: 60 % of the candidate's cycles stalled by
  // ~4 ms outside the call, the reference's mostly not. Caught, while the true report passes.
  cand.clear();
  ref_cycles.clear();
  ref_walls.clear();
  for (int i = 0; i < 20; ++i) {
    cand.push_back(i % 5 < 2 ? 3.1 + 0.03 * i : 7.3 + 0.02 * i);
    ref_walls.push_back(1.0);
    ref_cycles.push_back(1.0 + (i == 19 ? 5.5 : 0.86 + 0.02 * i));
  }
  {
    const auto c = MeasureCycles(FramesOf(cand), std::vector<double>(20, 1.2), FramesOf(ref_cycles),
                                 ref_walls);
    ASSERT_TRUE(c.has_value() && c->call_ms.has_value());
    EXPECT_GT(*c->call_ms, 2.0);
    EXPECT_NE(CheckParentClock(*c, std::vector<double>(20, 1.2)), "");
    EXPECT_EQ(CheckParentClock(*c, std::vector<double>(20, 2.4)), "");
  }
}

// Both workers run a 1 ms launch cover in every span (TimingOptions::cover_us): it is in the
// reference's overhead, so the overhead share of the slack leaves it out (else 40 % of it, 0.4 ms,
// would let a worker report 0.2 ms for a 0.5 ms call unseen); a tenth of it is slack of its own,
// for the two covers' different lengths.
TEST(ParentCallClock, TheLaunchCoverGivesATenthOfItselfAsSlack) {
  std::vector<double> cand, ref_cycles, ref_walls;
  for (int i = 0; i < 100; ++i) {
    cand.push_back(1.15 + 0.5 + 0.01 * ((i * 7) % 5));
    ref_walls.push_back(0.05);
    ref_cycles.push_back(0.05 + 1.15 + 0.01 * ((i * 3) % 5));
  }
  const auto c =
      MeasureCycles(FramesOf(cand), std::vector<double>(100, 0.2), FramesOf(ref_cycles), ref_walls);
  ASSERT_TRUE(c.has_value() && c->call_ms.has_value());
  EXPECT_NEAR(*c->call_ms, 0.5, 0.01);
  ParentClockTolerance covered;
  covered.cover_ms = 1.0;
  EXPECT_NE(CheckParentClock(*c, std::vector<double>(100, 0.2), covered), "");
  EXPECT_EQ(CheckParentClock(*c, std::vector<double>(100, 0.5), covered), "");  // the truth passes
  // A cover 0.08 ms shorter in the reference's worker than in the candidate's: honest, passes.
  EXPECT_EQ(CheckParentClock(*c, std::vector<double>(100, 0.42), covered), "");
  EXPECT_EQ(CheckParentClock(*c, std::vector<double>(100, 0.2)), "");  // unseen without it
}

TEST(TimingLease, ThreadsOfOneProcessAreSerialised) {
  const std::string dir = TempDir();
  std::atomic<int> inside{0}, max_inside{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        auto lease = AcquireTimingLease(dir, "gpu0");
        ASSERT_TRUE(lease.ok()) << lease.status().message();
        const int now = ++inside;
        max_inside = std::max(max_inside.load(), now);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        --inside;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(max_inside.load(), 1);
  fs::remove_all(dir);
}

TEST(TimingLease, AnotherProcessWaitsForTheLock) {
  const std::string dir = TempDir();
  auto lease = AcquireTimingLease(dir, "gpu-3");
  ASSERT_TRUE(lease.ok());
  const std::string path = dir + "/tritonrl-timing-gpu-3.lock";
  ASSERT_TRUE(fs::exists(path));
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(path.c_str(), O_RDWR);
    // Held by the parent: a non-blocking attempt must fail.
    _exit(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  lease->Release();
  EXPECT_FALSE(lease->held());
  const pid_t pid2 = fork();
  if (pid2 == 0) {
    const int fd = open(path.c_str(), O_RDWR);
    _exit(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
  }
  waitpid(pid2, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // Different keys do not exclude each other.
  auto a = AcquireTimingLease(dir, "gpu0");
  auto b = AcquireTimingLease(dir, "gpu1");
  EXPECT_TRUE(a.ok() && b.ok());
  fs::remove_all(dir);
}

// Without quiet the lease only counts the trials around it; a ticket never waits.
TEST(TimingLease, CountsTrialsAroundTheTimedPhase) {
  const std::string dir = TempDir();
  TrialTicket running = EnterTrial("gate-count", /*candidate=*/true);
  TrialTicket reference = EnterTrial("gate-count", /*candidate=*/false);
  TrialTicket other_gpu = EnterTrial("gate-count-other", /*candidate=*/true);
  auto lease = AcquireTimingLease(dir, "gate-count");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->facts().trials_in_flight_at_go, 2);
  EXPECT_EQ(lease->facts().quiet_wait_ms, 0);
  running.Release();
  TrialTicket started = EnterTrial("gate-count", /*candidate=*/true);  // does not wait
  TrialTicket started_too = EnterTrial("gate-count", /*candidate=*/true);
  started_too.Release();
  TrialTicket late_reference = EnterTrial("gate-count", /*candidate=*/false);
  late_reference.Release();
  lease->Release();
  EXPECT_EQ(lease->facts().trials_started_while_timed, 2);
  EXPECT_EQ(lease->facts().references_started_while_timed, 1);
  TrialTicket after = EnterTrial("gate-count", /*candidate=*/true);
  auto next = AcquireTimingLease(dir, "gate-count");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->facts().trials_in_flight_at_go, 3);  // reference, started, after
  next->Release();
  EXPECT_EQ(next->facts().trials_started_while_timed, 0);
  fs::remove_all(dir);
}

// With quiet, a lease waits for the candidates' trials in flight, and a candidate's next trial
// waits for the lease; a reference's ticket neither waits nor is waited for.
TEST(TimingLease, QuietLeaseAndCandidateTrialsExcludeEachOther) {
  const std::string dir = TempDir();
  std::atomic<int> trials_running{0};
  std::atomic<bool> overlap{false}, timing{false};
  TrialTicket reference = EnterTrial("gate-quiet", /*candidate=*/false);
  auto first = EnterTrial("gate-quiet", /*candidate=*/true);
  ++trials_running;
  std::thread timer([&] {
    auto lease = AcquireTimingLease(dir, "gate-quiet", /*quiet=*/true);
    ASSERT_TRUE(lease.ok());
    timing = true;
    if (trials_running.load() != 0) overlap = true;
    EXPECT_GE(lease->facts().quiet_wait_ms, 20.0);        // it waited for `first`
    EXPECT_EQ(lease->facts().trials_in_flight_at_go, 1);  // the reference alone
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    if (trials_running.load() != 0) overlap = true;
    timing = false;
    lease->Release();
    EXPECT_EQ(lease->facts().trials_started_while_timed, 0);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(timing.load());  // still waiting for `first`
  --trials_running;
  first.Release();
  // Candidates that start now wait until the quiet phase is over.
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&] {
      for (int k = 0; k < 5; ++k) {
        TrialTicket t = EnterTrial("gate-quiet", /*candidate=*/true);
        ++trials_running;
        if (timing.load()) overlap = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        --trials_running;
      }
    });
  }
  timer.join();
  for (auto& w : workers) w.join();
  EXPECT_FALSE(overlap.load());
  fs::remove_all(dir);
}

TEST(TimingLease, UnwritableDirectoryIsAnError) {
  auto lease = AcquireTimingLease("/proc/definitely/not/here", "gpu0");
  EXPECT_FALSE(lease.ok());
  // The in-process mutex was released: the next acquisition does not deadlock.
  const std::string dir = TempDir();
  EXPECT_TRUE(AcquireTimingLease(dir, "gpu0").ok());
  fs::remove_all(dir);
}

// An honest 1 ms kernel: events ~1 ms, synced wall a bit more, tiny tails.
TimingPhase Honest(int n = 20, double ms = 1.0) {
  TimingPhase p;
  p.variant = "large";
  for (int i = 0; i < n; ++i) {
    p.event_ms.push_back(ms + 0.001 * i);
    p.wall_ms.push_back(ms + 0.03 + 0.001 * i);
    p.tail_ms.push_back(0.004);
  }
  p.parent_ms = n * (ms + 0.5);
  p.threads_before = p.threads_after = 12;
  return p;
}

TEST(TimingConsistency, HonestPhasePasses) {
  EXPECT_TRUE(CheckConsistency(Honest()).empty());
  // Launch-bound small kernel: 5 us of events inside a 40 us synced window.
  TimingPhase small = Honest(20, 0.005);
  for (auto& w : small.wall_ms) w = 0.04;
  EXPECT_TRUE(CheckConsistency(small).empty());
}

TEST(TimingConsistency, SideStreamWorkIsCaught) {
  TimingPhase p = Honest();
  // Events on the current stream see 0.02 ms; the device stays busy ~1 ms more.
  for (std::size_t i = 0; i < p.event_ms.size(); ++i) {
    p.event_ms[i] = 0.02;
    p.tail_ms[i] = 0.98;
    p.wall_ms[i] = 1.03;
  }
  const auto bad = CheckConsistency(p);
  ASSERT_EQ(bad.size(), 2u);
  // The worker's own device work after the end event proves hidden work; the wider synchronised
  // clock alone would not (contention widens it too).
  EXPECT_NE(bad[0].text.find("device busy after the end event"), std::string::npos);
  EXPECT_EQ(bad[0].kind, TimingEvidence::kForgery);
  EXPECT_NE(bad[1].text.find("device-synchronised clock"), std::string::npos);
  EXPECT_EQ(bad[1].kind, TimingEvidence::kContention);
}

// Seen on the H200 with 16 workers compiling beside the timed one: an honest conv kernel with
// events at ~0.59 ms and a synchronised clock of 0.69-3.6 ms (median 2.27 ms) because the host
// thread was descheduled on about half of the calls.
TEST(TimingConsistency, HostStallsOnSomeCallsAreNotHiddenWork) {
  TimingPhase p = Honest(20, 0.59);
  for (std::size_t i = 0; i < p.wall_ms.size(); ++i) p.wall_ms[i] = i % 2 ? 2.9 : 0.70;
  p.parent_ms = 100;
  EXPECT_TRUE(CheckConsistency(p).empty());
  // The same numbers with every call stalled are a disagreement, but with no device work of the
  // worker's own after the end event it is one that contention explains.
  for (auto& w : p.wall_ms) w = 2.9;
  const auto bad = CheckConsistency(p);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].text.find("lower-quartile gap 2.29"), std::string::npos) << bad[0].text;
  EXPECT_EQ(bad[0].kind, TimingEvidence::kContention);
}

TEST(TimingConsistency, OccasionalTailIsToleratedButFrequentIsNot) {
  TimingPhase p = Honest();
  p.tail_ms[3] = 0.5;  // one preempted call
  EXPECT_TRUE(CheckConsistency(p).empty());
  for (int i = 0; i < 5; ++i) p.tail_ms[static_cast<std::size_t>(i)] = 0.5;  // 25% of the calls
  ASSERT_EQ(CheckConsistency(p).size(), 1u);
  EXPECT_EQ(CheckConsistency(p)[0].kind, TimingEvidence::kForgery);
  // Re-checked calls are sampled after the timed span: their tails count like any other.
  p.recheck_trials = {0, 1, 2, 4};
  EXPECT_EQ(CheckConsistency(p).size(), 1u);
}

TEST(TimingConsistency, TamperingThreadsAndStreamsAreCaught) {
  TimingPhase p = Honest();
  p.tampered = {"time.perf_counter", "torch.cuda.Event.elapsed_time"};
  p.threads_after = 13;
  p.stream_changed = true;
  const auto bad = CheckConsistency(p);
  ASSERT_EQ(bad.size(), 3u);
  EXPECT_NE(bad[0].text.find("time.perf_counter"), std::string::npos);
  EXPECT_NE(bad[1].text.find("CUDA stream"), std::string::npos);
  EXPECT_NE(bad[2].text.find("12 -> 13"), std::string::npos);
  for (const auto& f : bad) EXPECT_EQ(f.kind, TimingEvidence::kForgery) << f.text;
}

TEST(TimingConsistency, ForgedNumbersAreBoundedByTheEngineClock) {
  TimingPhase p = Honest();
  p.parent_ms = 5;  // 20 calls of ~1 ms cannot fit in 5 ms of the engine's clock
  auto bad = CheckConsistency(p);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].text.find("engine clocked"), std::string::npos);
  EXPECT_EQ(bad[0].kind, TimingEvidence::kForgery);
  p = Honest();
  p.event_ms[0] = 5;  // an event span longer than its synchronised window
  bad = CheckConsistency(p);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].text.find("exceed"), std::string::npos);
  EXPECT_EQ(bad[0].kind, TimingEvidence::kForgery);
}

std::string Floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

TEST(TimingRecheck, StaleTimedOutputFails) {
  TimingPhase ref = Honest(), cand = Honest();
  ref.rechecks = {{3, 0, true, DType::kFloat32, 3, {4, 8}, Floats({1, 2, 3})}};
  cand.rechecks = {{3, 0, true, DType::kFloat32, 3, {4, 8}, Floats({1, 2, 3})}};
  EXPECT_TRUE(CheckRechecks(cand, ref, {}).empty());
  cand.rechecks[0].bytes = Floats({1, 2, 7});
  auto bad = CheckRechecks(cand, ref, {});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("timed call 3"), std::string::npos);
  cand.rechecks.clear();
  bad = CheckRechecks(cand, ref, {});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("missing"), std::string::npos);
  cand.rechecks = {{3, 0, false, DType::kFloat32, 0, {}, ""}};
  EXPECT_NE(CheckRechecks(cand, ref, {})[0].find("torch.Tensor"), std::string::npos);
}

TEST(TimingFrame, ProfileFrameMergesItsMethodAndClampsTheShare) {
  TimingPhase p;
  Frame f;
  f.header = {{"type", "profile"},
              {"kernel_share", 1.7},
              {"own_kernel_ms", 0.4},
              {"kernel_ms", 0.5},
              {"top_kernels", {{"relu_kernel", 0.4}}},
              {"profile_method", "events-and-a-name-far-too-long"}};
  MergeProfileFrame(f, p);
  EXPECT_DOUBLE_EQ(*p.kernel_share, 1.0);  // a forged share above 1 counts as 1, never more
  EXPECT_DOUBLE_EQ(p.own_kernel_ms, 0.4);
  EXPECT_EQ(p.profile_method, "events-and-a-nam");  // bounded: the worker is untrusted
  f.header["profile_method"] = 7;
  f.header.erase("kernel_share");
  TimingPhase q;
  MergeProfileFrame(f, q);
  EXPECT_EQ(q.profile_method, "");
  EXPECT_FALSE(q.kernel_share.has_value());
}

TEST(TimingFrame, ParsesAndRejectsMalformed) {
  TimingOptions o;
  o.trials = 3;
  o.recheck = 1;
  DrawTimingPlan(o, 7);
  Frame f;
  f.header = {{"type", "timing"},
              {"variant", "large"},
              {"event_ms", {1.0, 1.1, 1.2}},
              {"wall_ms", {1.1, 1.2, 1.3}},
              {"tail_ms", {0.0, 0.0, 0.0}},
              {"tampered", nlohmann::json::array()},
              {"threads_before", 5},
              {"threads_after", 5},
              {"stream_changed", false},
              {"kernel_share", 0.97},
              {"input_bytes", 400},
              {"output_bytes", 400},
              {"flops", 2.5e9},
              {"audited_held_tables", {"65536 elements held after the constructor", 7}}};
  f.header["rechecks"] = {{{"trial", 1},
                           {"output", 0},
                           {"type_ok", true},
                           {"dtype", "float32"},
                           {"numel", 2},
                           {"shape", {10, 10}},
                           {"offset", 0},
                           {"nbytes", 8}}};
  f.payload = Floats({1, 2});
  auto p = ParseTimingFrame(f, o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->event_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(*p->kernel_share, 0.97);
  EXPECT_DOUBLE_EQ(p->flops.value_or(0), 2.5e9);
  ASSERT_EQ(p->rechecks.size(), 1u);
  EXPECT_EQ(p->rechecks[0].bytes, Floats({1, 2}));
  // The constructor's held tables, as sent (a non-string entry still counts, as "?").
  EXPECT_EQ(p->audited_held_tables,
            (std::vector<std::string>{"65536 elements held after the constructor", "?"}));
  EXPECT_EQ(p->covered_calls, -1);  // not reported
  // Covered calls: counted from one boolean per timed call; any other shape is not reported.
  for (const auto& [covered, want] : std::vector<std::pair<nlohmann::json, int>>{
           {{true, false, true}, 2}, {{true, true}, -1}, {{true, 1, true}, -1}, {"all", -1}}) {
    Frame c = f;
    c.header["covered"] = covered;
    auto cp = ParseTimingFrame(c, o);
    ASSERT_TRUE(cp.ok());
    EXPECT_EQ(cp->covered_calls, want) << covered.dump();
  }

  Frame wrong_count = f;
  wrong_count.header["event_ms"] = {1.0};
  EXPECT_FALSE(ParseTimingFrame(wrong_count, o).ok());
  Frame negative = f;
  negative.header["wall_ms"] = {1.0, -1.0, 1.0};
  EXPECT_FALSE(ParseTimingFrame(negative, o).ok());
  Frame overflow = f;
  overflow.header["rechecks"][0]["nbytes"] = 800;
  EXPECT_FALSE(ParseTimingFrame(overflow, o).ok());
  for (const nlohmann::json& bad :
       {nlohmann::json(nullptr), nlohmann::json(-1.0), nlohmann::json("many"), nlohmann::json(0)}) {
    Frame uncounted = f;
    uncounted.header["flops"] = bad;
    auto u = ParseTimingFrame(uncounted, o);
    ASSERT_TRUE(u.ok());
    EXPECT_FALSE(u->flops.has_value()) << bad.dump();  // no count: the roofline uses bytes only
  }
  Frame no_tamper_list = f;
  no_tamper_list.header.erase("tampered");
  auto q = ParseTimingFrame(no_tamper_list, o);
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(CheckConsistency(*q).empty());  // a missing report counts as tampering

  // Re-checks only: accepted from a reference the engine asked, refused otherwise (a candidate
  // cannot skip its timed calls by claiming the mode).
  Frame only = f;
  only.header["recheck_only"] = true;
  only.header["event_ms"] = only.header["wall_ms"] = only.header["tail_ms"] =
      nlohmann::json::array();
  EXPECT_FALSE(ParseTimingFrame(only, o).ok());
  auto r = ParseTimingFrame(only, o, /*allow_recheck_only=*/true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->recheck_only);
  EXPECT_EQ(r->rechecks.size(), 1u);
  Frame only_with_times = only;
  only_with_times.header["event_ms"] = {1.0, 1.1, 1.2};
  EXPECT_FALSE(ParseTimingFrame(only_with_times, o, true).ok());
}

TEST(TimingFrame, CachedReferenceTimingRoundTrips) {
  TimingPhase p = Honest(4, 2.0);
  p.input_bytes = 123;
  p.output_bytes = 456;
  p.parent_ms = 9.5;
  p.flops = 6.4e10;
  p.covered_calls = 3;
  auto back = ReferenceTimingFromJson(ReferenceTimingToJson(p));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->variant, "large");
  EXPECT_EQ(back->event_ms, p.event_ms);
  EXPECT_EQ(back->wall_ms, p.wall_ms);
  EXPECT_EQ(back->tail_ms, p.tail_ms);
  EXPECT_EQ(back->input_bytes, 123);
  EXPECT_EQ(back->output_bytes, 456);
  EXPECT_DOUBLE_EQ(back->parent_ms, 9.5);
  EXPECT_DOUBLE_EQ(back->flops.value_or(0), 6.4e10);
  EXPECT_EQ(back->covered_calls, 3);
  EXPECT_TRUE(back->from_cache);
  EXPECT_TRUE(back->rechecks.empty());
  nlohmann::json damaged = ReferenceTimingToJson(p);
  damaged["wall_ms"] = {1.0};
  EXPECT_FALSE(ReferenceTimingFromJson(damaged).ok());
  EXPECT_FALSE(ReferenceTimingFromJson(nlohmann::json::array()).ok());
}

TEST(TimingJudge, SpeedupLazyAndPlausibility) {
  TimingOptions o;
  o.lazy_threshold = 0.8;
  o.speedup_cap = 10;
  TimingPhase ref = Honest(20, 2.0), cand = Honest(20, 1.0);
  ref.input_bytes = ref.output_bytes = 1 << 20;
  cand.kernel_share = 0.5;
  auto j = JudgeTiming(cand, ref, o, {}, "NVIDIA H200");
  ASSERT_TRUE(j.speedup.has_value());
  EXPECT_NEAR(*j.speedup, (2.0 + 0.0095) / (1.0 + 0.0095), 1e-9);  // ratio of medians
  EXPECT_TRUE(j.lazy);
  EXPECT_FALSE(j.implausible);
  EXPECT_TRUE(j.forgery.empty() && j.contention.empty());
  // 2 MiB in 1 us would need 2 TB/s... at 0.1 us it beats the H200's 4.27 TB/s.
  TimingPhase fast = Honest(20, 0.0001);
  for (auto& e : fast.event_ms) e = 0.0001;
  for (auto& w : fast.wall_ms) w = 0.01;
  j = JudgeTiming(fast, ref, o, {}, "NVIDIA H200");
  EXPECT_TRUE(j.implausible);
  EXPECT_NE(j.implausible_why.find("roofline"), std::string::npos);
  // Unknown device: only the cap applies.
  j = JudgeTiming(fast, ref, o, {}, "cpu");
  EXPECT_TRUE(j.implausible);
  EXPECT_NE(j.implausible_why.find("cap"), std::string::npos);
  // A compute-bound task: 2 MiB moved allows 0.5 us, but the reference counted 2*4096^3 FLOPs,
  // at least 0.17 ms at the H200's tensor-core peak, so a 0.1 ms candidate (a 20x speedup on a
  // 2 ms reference, under a cap of 50) is flagged; the candidate's own frame has no say in it.
  o.speedup_cap = 50;
  TimingPhase quick = Honest(20, 0.1);
  quick.flops = 1.0;  // ignored: only the reference's count is used
  j = JudgeTiming(quick, ref, o, {}, "NVIDIA H200");
  EXPECT_FALSE(j.implausible) << j.implausible_why;  // bytes alone allow it
  ref.flops = 2.0 * 4096 * 4096 * 4096;
  j = JudgeTiming(quick, ref, o, {}, "NVIDIA H200");
  EXPECT_TRUE(j.implausible);
  EXPECT_NE(j.implausible_why.find("FLOPs"), std::string::npos) << j.implausible_why;
  EXPECT_DOUBLE_EQ(j.evidence["reference_flops"].get<double>(), 2.0 * 4096 * 4096 * 4096);
}

// ---- Audited timed calls (issue 34): every call of the stage runs as a trial runs ----

TEST(TimingPlan, NoAnswerSaysWhetherACallIsAudited) {
  // Every timed call runs under the trial's audit, so there is nothing to announce or to draw:
  // the answers carry the seed and the previous call's re-check only, the same fields for all.
  TimingOptions o;
  o.trials = 100;
  DrawTimingPlan(o, 77);
  for (int i = 0; i <= TimedCalls(o); ++i) {
    const auto a = CallAnswer(o, i);
    EXPECT_FALSE(a.contains("audit")) << a.dump();
  }
}

// A candidate phase whose every timed call ran audited and clean, as the worker reports it.
TimingPhase AuditedHonest(int n, double ms) {
  TimingPhase p = Honest(n, ms);
  p.audited_calls = n;
  p.audited_guards = {{"call", 0},
                      {"output_writers", {"kernel"}},
                      {"module_hooks", nlohmann::json::array()},
                      {"host_calls", nlohmann::json::array()},
                      {"internal_calls", nlohmann::json::array()},
                      {"host_steps", nlohmann::json::array({{3, 1}, {260, 1}})}};
  p.audited_build_host_steps = nlohmann::json::array({{40, 0}});
  p.audit_ms = std::vector<double>(static_cast<std::size_t>(n), 0.02);
  return p;
}

TEST(TimingJudge, EveryTimedCallIsJudgedLikeATrial) {
  TimingOptions o;
  o.speedup_cap = 1e9;
  o.seeds = std::vector<std::int64_t>(20, 1);  // 20 timed calls, all audited
  TimingPhase ref = Honest(20, 2.0), cand = AuditedHonest(20, 1.0);
  auto j = JudgeTiming(cand, ref, o, {}, "cpu");
  auto r = RuleOnTiming(j, false);
  EXPECT_FALSE(r.incorrect) << (r.reasons.empty() ? "" : r.reasons[0].message);
  EXPECT_TRUE(r.speedup.has_value());
  EXPECT_EQ(j.evidence["audit_ms"]["n"], 20);
  EXPECT_DOUBLE_EQ(j.evidence["audit_ms"]["median"].get<double>(), 0.02);
  const auto fails = [&](TimingPhase c) {
    return RuleOnTiming(JudgeTiming(c, ref, o, {}, "cpu"), false);
  };
  TimingPhase bad = cand;
  bad.audited_forbidden_ops = {"aten::mul"};
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  EXPECT_EQ(r.reasons[0].code, "forbidden_aten_op");
  EXPECT_NE(r.reasons[0].message.find("aten::mul"), std::string::npos);
  EXPECT_FALSE(r.speedup.has_value());
  EXPECT_NE(std::find(r.flags.begin(), r.flags.end(), "lazy_optimization"), r.flags.end());
  bad = cand;
  bad.audited_held_tables = {"65536 elements held after the constructor"};
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  EXPECT_EQ(r.reasons[0].code, "constructor_table");
  EXPECT_NE(r.reasons[0].message.find("65536 elements"), std::string::npos);
  EXPECT_NE(std::find(r.flags.begin(), r.flags.end(), "lazy_optimization"), r.flags.end());
  bad = cand;
  bad.audited_without_launch = 1;
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  EXPECT_EQ(r.reasons[0].code, "no_triton_launch");
  bad = cand;
  bad.audited_state_changed = 2;
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  EXPECT_EQ(r.reasons[0].code, "global_state_changed");
  // The guard fields of a call, checked as a trial frame's (src/eval/proof_of_work.h).
  for (const auto& [field, value, code] :
       std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"output_writers", {"copy:torch:clone"}, "output_not_from_kernel"},
           {"output_writers", {"torch:copy_"}, "output_not_from_kernel"},
           {"host_calls", {"float() of a tensor (per-element loop)"}, "host_compute"},
           {"internal_calls", {"sys._getframe"}, "internal_access"},
           {"module_hooks", {"model.forward_hooks"}, "forward_hook"},
           // 265 steps in one call with one launch: over HostStepBudget(1) = 264.
           {"host_steps", nlohmann::json::array({{3, 1}, {265, 1}}), "host_compute"}}) {
    bad = cand;
    bad.audited_guards["call"] = 7;
    bad.audited_guards[field] = value;
    r = fails(bad);
    ASSERT_TRUE(r.incorrect) << field;
    ASSERT_EQ(r.reasons.size(), 1u) << field;
    EXPECT_EQ(r.reasons[0].code, code) << field;
    EXPECT_NE(r.reasons[0].message.find("timed call 7"), std::string::npos) << r.reasons[0].message;
  }
  // The timed model's constructor: the build stage's host-step budget (256 with no launch).
  bad = cand;
  bad.audited_build_host_steps = nlohmann::json::array({{257, 0}});
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_EQ(r.reasons[0].code, "host_compute");
  EXPECT_NE(r.reasons[0].message.find("the timed model's constructor"), std::string::npos)
      << r.reasons[0].message;
  // Default deny: guard fields missing are evidence_missing, as in a trial frame.
  bad = cand;
  bad.audited_guards = nlohmann::json();
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  EXPECT_EQ(r.reasons[0].code, "evidence_missing");
  bad = cand;
  bad.audited_build_host_steps = nlohmann::json();
  r = fails(bad);
  ASSERT_TRUE(r.incorrect);
  EXPECT_EQ(r.reasons[0].code, "evidence_missing");
  // Fewer audited calls than timed calls, none reported, or a lifted audit: forged evidence.
  for (int reported : {19, 2, -1}) {
    bad = cand;
    bad.audited_calls = reported;
    EXPECT_FALSE(JudgeTiming(bad, ref, o, {}, "cpu").forgery.empty()) << reported;
  }
  bad = cand;
  bad.audit_intact = false;
  EXPECT_FALSE(JudgeTiming(bad, ref, o, {}, "cpu").forgery.empty());
  // A reference that only re-checked (timings from the cache) is not audited: nothing to judge.
  TimingPhase recheck = Honest(0, 1.0);
  recheck.recheck_only = true;
  EXPECT_TRUE(JudgeTiming(recheck, ref, o, {}, "cpu").forgery.empty());
}

// ---- The load rule (src/eval/timing_verdict.h) over constructed evidence ----

// A phase of n calls of `ms` each as the worker reports them, with the engine's call frames: each
// cycle is the call's wall time plus `overhead` ms, and `stall` ms more on every cycle but each
// `stall_every`-th (a host descheduled outside the call; 0: none).
struct Scene {
  TimingPhase phase;
  Scene(int n, double ms, double overhead, double stall = 0, int stall_every = 0) {
    phase = Honest(n, ms);
    std::vector<double> cycles;
    for (int i = 0; i < n; ++i) {
      const bool stalled = stall_every > 0 && i % stall_every != 0;
      cycles.push_back(phase.wall_ms[static_cast<std::size_t>(i)] + overhead +
                       (stalled ? stall : 0.0));
    }
    phase.call_frame_ms = FramesOf(cycles);
    phase.parent_ms = phase.call_frame_ms.back() + 0.1;
  }
};

TimingRuling Rule(const TimingPhase& cand, const TimingPhase& ref) {
  TimingOptions o;
  o.speedup_cap = 1e9;
  return RuleOnTiming(JudgeTiming(cand, ref, o, {}, "cpu"), /*strict=*/false);
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The reference: 100 calls of 0.2 ms, 0.6 ms of overhead per cycle, a quiet host.
TimingPhase QuietReference() {
  return Scene(100, 0.2, 0.6).phase;
}

TEST(TimingLoadRule, HonestIdleIsMeasured) {
  const TimingPhase cand = Scene(100, 0.1, 0.6).phase;
  const TimingRuling r = Rule(cand, QuietReference());
  EXPECT_FALSE(r.incorrect);
  EXPECT_TRUE(r.flags.empty()) << r.flags.front();
  ASSERT_TRUE(r.speedup.has_value());
  EXPECT_NEAR(*r.speedup, 0.2495 / 0.1495, 1e-9);  // median events: ms + 0.001 x 49.5
}

// The case of issue 15 on the H200 with --jobs 8: events 0.110 ms, a synchronised clock of
// 0.527 ms on every call (other workers' kernels ahead of the pre event, the host descheduled),
// most cycles stalled by 3 ms, the device idle after each end event.
TEST(TimingLoadRule, HonestUnderLoadStaysCorrectWithItsSpeedupVoid) {
  Scene s(100, 0.110, 0.6, 3.0, 3);
  for (auto& w : s.phase.wall_ms) w = 0.527;
  s.phase.parent_ms = 1e4;
  const TimingRuling r = Rule(s.phase, QuietReference());
  EXPECT_FALSE(r.incorrect);
  EXPECT_TRUE(Has(r.flags, "timing_contended"));
  EXPECT_FALSE(Has(r.flags, "timing_inconsistent"));
  EXPECT_FALSE(r.speedup.has_value());
  EXPECT_TRUE(r.reasons.empty());
  // Stalls on most cycles alone (synchronised clock consistent) leave the speedup measured: the
  // parent clock's lower quartiles see through them.
  const TimingRuling stalled = Rule(Scene(100, 0.1, 0.6, 3.0, 3).phase, QuietReference());
  EXPECT_TRUE(stalled.flags.empty());
  EXPECT_TRUE(stalled.speedup.has_value());
}

TEST(TimingLoadRule, ForgeryUnderLoadFails) {
  // Side-stream work: the events see 0.02 ms, the worker's own device work runs 0.98 ms past the
  // end event on every call; the host is loaded too.
  Scene side(100, 0.02, 0.6, 3.0, 3);
  for (std::size_t i = 0; i < side.phase.event_ms.size(); ++i) {
    side.phase.event_ms[i] = 0.02;
    side.phase.tail_ms[i] = 0.98;
    side.phase.wall_ms[i] = 1.03;
  }
  side.phase.parent_ms = 1e4;
  TimingRuling r = Rule(side.phase, QuietReference());
  EXPECT_TRUE(r.incorrect);
  EXPECT_TRUE(Has(r.flags, "timing_inconsistent"));
  EXPECT_FALSE(r.speedup.has_value());
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0].code, "timing_inconsistent");
  EXPECT_NE(r.reasons[0].message.find("device busy after the end event"), std::string::npos);
  // A timer replaced, under the same load.
  Scene patched(100, 0.1, 0.6, 3.0, 3);
  patched.phase.tampered = {"time.perf_counter_ns"};
  r = Rule(patched.phase, QuietReference());
  EXPECT_TRUE(r.incorrect);
  EXPECT_TRUE(Has(r.flags, "timing_inconsistent"));
  // Reported times of a 1 ms call halved by a worker that dug out its trusted clock: the engine's
  // clock catches the gap, which voids the speedup (a statistical bound: never a failure; a gap
  // under 40 % of the cycle overhead is below its resolution, see ParentCallClock above).
  Scene halved(100, 1.0, 0.6, 3.0, 3);
  for (auto& e : halved.phase.event_ms) e /= 2;
  for (auto& w : halved.phase.wall_ms) w /= 2;
  r = Rule(halved.phase, QuietReference());
  EXPECT_FALSE(r.incorrect);
  EXPECT_TRUE(Has(r.flags, "parent_clock_gap"));
  EXPECT_FALSE(r.speedup.has_value());
}

TEST(TimingLoadRule, ForgeryIdleFails) {
  Scene patched(100, 0.1, 0.6);
  patched.phase.stream_changed = true;
  TimingRuling r = Rule(patched.phase, QuietReference());
  EXPECT_TRUE(r.incorrect);
  EXPECT_TRUE(Has(r.flags, "timing_inconsistent"));
  EXPECT_FALSE(r.speedup.has_value());
  // More reported time than the engine clocked for the whole phase.
  Scene inflated(100, 0.1, 0.6);
  inflated.phase.parent_ms = 1.0;
  EXPECT_TRUE(Rule(inflated.phase, QuietReference()).incorrect);
  // Halved times of a 1 ms call on a quiet host: flagged, speedup void, outcome kept.
  Scene halved(100, 1.0, 0.6);
  for (auto& e : halved.phase.event_ms) e /= 2;
  for (auto& w : halved.phase.wall_ms) w /= 2;
  r = Rule(halved.phase, QuietReference());
  EXPECT_FALSE(r.incorrect);
  EXPECT_TRUE(Has(r.flags, "parent_clock_gap"));
  EXPECT_FALSE(r.speedup.has_value());
  // A stale re-checked timed output fails whatever the clocks say.
  TimingPhase ref = QuietReference(), cand = Scene(100, 0.1, 0.6).phase;
  ref.rechecks = {{3, 0, true, DType::kFloat32, 3, {4, 8}, Floats({1, 2, 3})}};
  cand.rechecks = {{3, 0, true, DType::kFloat32, 3, {4, 8}, Floats({1, 2, 9})}};
  r = Rule(cand, ref);
  EXPECT_TRUE(r.incorrect);
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_EQ(r.reasons[0].code, "timed_output_mismatch");
}

TEST(TimingLoadRule, LazyFailsOnlyUnderTheStrictPolicy) {
  TimingPhase cand = Scene(100, 0.1, 0.6).phase;
  cand.kernel_share = 0.3;
  TimingOptions o;
  const TimingJudgement j = JudgeTiming(cand, QuietReference(), o, {}, "cpu");
  const TimingRuling standard = RuleOnTiming(j, false), strict = RuleOnTiming(j, true);
  EXPECT_FALSE(standard.incorrect);
  EXPECT_TRUE(Has(standard.flags, "lazy_optimization"));
  EXPECT_TRUE(standard.speedup.has_value());
  EXPECT_TRUE(strict.incorrect);
  EXPECT_EQ(strict.reasons.at(0).code, "lazy_optimization");
}

TEST(Roofline, FloorFromBytesAndFlops) {
  const DevicePeaks h200 = PeaksFor("NVIDIA H200");
  ASSERT_EQ(h200.name, "H200");
  // 4.27e9 bytes at 4.27 TB/s: 1 ms.
  EXPECT_NEAR(*RooflineFloorMs({4.27e9, std::nullopt, false}, h200), 1.0, 1e-12);
  // 2*4096^3 FLOPs on the tensor-core peak bounds a matmul from below.
  const double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_NEAR(*RooflineFloorMs({3 * 4096.0 * 4096 * 4, flops, true}, h200), flops / 790e12 * 1e3,
              1e-12);
  EXPECT_FALSE(RooflineFloorMs({1e9, std::nullopt, false}, PeaksFor("cpu")).has_value());
  const Plausibility ok = CheckPlausibility(1.2, 3.0, {4.27e9, std::nullopt, false}, h200, 10);
  EXPECT_FALSE(ok.implausible);
  const Plausibility below = CheckPlausibility(0.5, 3.0, {4.27e9, std::nullopt, false}, h200, 10);
  EXPECT_TRUE(below.implausible);
}

}  // namespace
}  // namespace tritonrl::eval
