// Outcome classification of the engine, driven by fake_worker (same protocol,
// scripted misbehaviour), inside the real sandbox.
#include "eval/engine.h"
#include "eval/evidence.h"
#include "eval/pool.h"
#include "eval/schedule.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace tritonrl::eval {
namespace {

namespace fs = std::filesystem;

// The pool's evidence of a verdict (src/eval/evidence.h); all defaults when it has none.
PoolEvidence PoolOf(const Verdict& v) {
  return ReadEvidence<PoolEvidence>(v.evidence).value_or(PoolEvidence{});
}

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cfg_.python = FAKE_WORKER_PATH;
    cfg_.runner_dir = "/nonexistent";  // the fake worker ignores its arguments
    cfg_.allowlist_path = "allowlist.json";
    cfg_.work_dir =
        (fs::temp_directory_path() / ("tritonrl-engine-test-" + std::to_string(getpid()))).string();
    cfg_.schedule = MakeSchedule(5, 987654321);
    cfg_.trial_timeout = cfg_.build_timeout = cfg_.import_timeout = std::chrono::milliseconds(1500);
    auto prog = BuildSeccompProgram(true);
    ASSERT_TRUE(prog.ok()) << prog.status().message();
    cfg_.seccomp_program = *prog;
    ref_ = RunReference(cfg_, "task.py");
    ASSERT_TRUE(ref_.ok) << ref_.error.message;
  }
  void TearDown() override { fs::remove_all(cfg_.work_dir); }

  Verdict Run(const std::string& scenario) {
    cfg_.extra_env = {"FAKE_SCENARIO=" + scenario};
    return RunCandidate(cfg_, "task.py", "print('unused')\n", ref_);
  }
  static std::set<std::string> Codes(const Verdict& v) {
    std::set<std::string> s;
    for (const auto& r : v.reasons) s.insert(r.code);
    return s;
  }

  EngineConfig cfg_;
  ReferenceResult ref_;
};

TEST_F(EngineTest, ReferenceRecordsEveryTrial) {
  EXPECT_EQ(ref_.variants, std::vector<std::string>{"v"});
  ASSERT_EQ(ref_.trials.size(), 5u);
  EXPECT_EQ(ref_.trials[2].index, 2);
  EXPECT_EQ(ref_.trials[2].seed, cfg_.schedule[2].seed);
  ASSERT_EQ(ref_.trials[0].outputs.size(), 1u);
  EXPECT_EQ(ref_.trials[0].outputs[0].nbytes, 8);
  // The bytes are in the spill file, not in memory: trial 2's output starts at byte 16.
  ASSERT_NE(ref_.spill, nullptr);
  EXPECT_EQ(ref_.spill->size(), 5 * 8);
  EXPECT_EQ(ref_.trials[2].outputs[0].spill_offset, 16);
  std::string bytes;
  ASSERT_TRUE(ref_.spill->ReadAt(16, 8, bytes).ok());
  float first = 0;
  std::memcpy(&first, bytes.data(), 4);
  EXPECT_EQ(first, static_cast<float>(cfg_.schedule[2].seed % 7));
  EXPECT_EQ(ref_.max_output_bytes, 8);
  EXPECT_EQ(ref_.peak_device_bytes, 5 << 20);  // the largest of the five trials' reports
  // The pool hears the peak so far after every trial (it grows the reference's admission).
  std::vector<std::int64_t> heard;
  const ReferenceResult again =
      RunReference(cfg_, "task.py", [&](std::int64_t peak) { heard.push_back(peak); });
  ASSERT_TRUE(again.ok);
  EXPECT_EQ(heard, (std::vector<std::int64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20, 5 << 20}));
}

TEST_F(EngineTest, HonestWorkerIsCorrect) {
  const Verdict v = Run("correct");
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect);
  EXPECT_TRUE(v.reasons.empty());
  EXPECT_TRUE(v.compiled);
  EXPECT_EQ(v.evidence["trials_checked"], 5);
  EXPECT_EQ(v.evidence["kernels"], nlohmann::json::array({"k"}));
  EXPECT_EQ(v.evidence["modes"].size(), 4u);  // train/eval x grad/no_grad
  EXPECT_TRUE(v.sandbox["process_group"].get<bool>());
  EXPECT_TRUE(v.sandbox["rlimits"].get<bool>());
  // Warm workers are on, but the scripted worker is no interpreter a zygote could run: the
  // zygote fails its handshake in seconds and the workers run cold, saying why.
  EXPECT_EQ(v.sandbox["spawn"].get<std::string>().rfind(
                "cold (zygote unavailable: the zygote did not start (no hello", 0),
            0u)
      << v.sandbox["spawn"];
}

TEST_F(EngineTest, WrongValuesAreIncorrect) {
  const Verdict v = Run("wrong_values");
  EXPECT_EQ(v.outcome, vocab::Outcome::kIncorrect);
  EXPECT_TRUE(Codes(v).count("not_allclose"));
  EXPECT_DOUBLE_EQ(v.evidence["max_abs_err"].get<double>(), 1.0);
}

TEST_F(EngineTest, AFailedTrialStopsTheCandidateUnlessAllTrialsAreAsked) {
  const Verdict late = Run("wrong_at_trial_2");
  EXPECT_EQ(late.outcome, vocab::Outcome::kIncorrect);
  EXPECT_TRUE(Codes(late).count("not_allclose"));
  EXPECT_EQ(late.evidence["trials_checked"], 3);  // trials 0 and 1 passed, 2 failed
  EXPECT_EQ(late.evidence["stopped_after_failed_trial"], true);
  EXPECT_EQ(Run("wrong_values").evidence["trials_checked"], 1);
  // A header that fails ends it before its outputs: their wrong values are never compared.
  const Verdict lazy = Run("forbidden_op_wrong");
  EXPECT_EQ(lazy.evidence["trials_checked"], 1);
  EXPECT_EQ(lazy.evidence["max_abs_err"], 0.0);
  EXPECT_EQ(Codes(lazy), std::set<std::string>{"forbidden_aten_op"});
  EXPECT_FALSE(Run("correct").evidence.contains("stopped_after_failed_trial"));

  cfg_.all_trials = true;
  const Verdict all = Run("wrong_at_trial_2");
  EXPECT_EQ(all.outcome, vocab::Outcome::kIncorrect);
  EXPECT_EQ(all.evidence["trials_checked"], 5);
  const Verdict all_lazy = Run("forbidden_op_wrong");
  EXPECT_EQ(Codes(all_lazy), (std::set<std::string>{"forbidden_aten_op", "not_allclose"}));
  EXPECT_EQ(all_lazy.evidence["trials_checked"], 5);
  EXPECT_FALSE(all.evidence.contains("stopped_after_failed_trial"));
}

// A worker counts its launches per kernel ([name, own, count]): a call that launches once per
// row makes hundreds of thousands, which a list of single launches could not carry in a header.
TEST_F(EngineTest, LaunchesCountedPerKernel) {
  const Verdict v = Run("counted_launches");
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect);
  EXPECT_EQ(v.evidence["min_own_launches_per_call"], 655362);
  EXPECT_EQ(v.evidence["kernels"], nlohmann::json::array({"k", "k2"}));
  EXPECT_EQ(Run("correct").evidence["min_own_launches_per_call"], 1);  // [name, own]: one launch
}

TEST_F(EngineTest, ProofOfWorkFailures) {
  EXPECT_TRUE(Codes(Run("no_launch")).count("no_triton_launch"));
  const Verdict lazy = Run("forbidden_op");
  EXPECT_EQ(lazy.outcome, vocab::Outcome::kIncorrect);
  EXPECT_TRUE(Codes(lazy).count("forbidden_aten_op"));
  EXPECT_NE(std::find(lazy.flags.begin(), lazy.flags.end(), "lazy_optimization"), lazy.flags.end());
  const Verdict table = Run("held_table");
  EXPECT_EQ(table.outcome, vocab::Outcome::kIncorrect);
  EXPECT_TRUE(Codes(table).count("constructor_table"));
  EXPECT_NE(std::find(table.flags.begin(), table.flags.end(), "lazy_optimization"),
            table.flags.end());
  // Host steps over the budget in the constructor: a table computed there serves every call.
  const Verdict ctor = Run("ctor_steps");
  EXPECT_EQ(ctor.outcome, vocab::Outcome::kIncorrect);
  ASSERT_TRUE(Codes(ctor).count("host_compute"));
  bool named = false;
  for (const auto& r : ctor.reasons) {
    named = named || r.message.find("v constructor: the candidate's code ran 300 host steps") !=
                         std::string::npos;
  }
  EXPECT_TRUE(named);
  EXPECT_TRUE(Codes(Run("tamper")).count("hooks_tampered"));
  EXPECT_TRUE(Codes(Run("mutation")).count("input_mutated"));
  EXPECT_TRUE(Codes(Run("subclass")).count("output_type"));
}

TEST_F(EngineTest, CrashIsRuntimeErrorWithSignalName) {
  const Verdict v = Run("segv");
  EXPECT_EQ(v.outcome, vocab::Outcome::kRuntimeError);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons[0].code, "signal");
  EXPECT_NE(v.reasons[0].message.find("SIGSEGV"), std::string::npos) << v.reasons[0].message;
}

TEST_F(EngineTest, EarlyExitIsAMissingRecord) {
  const Verdict v = Run("exit0");
  EXPECT_EQ(v.outcome, vocab::Outcome::kRuntimeError);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons[0].code, "missing_record");
  EXPECT_NE(v.reasons[0].message.find("exit code 0"), std::string::npos) << v.reasons[0].message;
}

TEST_F(EngineTest, HangIsATimeout) {
  const Verdict v = Run("hang");
  EXPECT_EQ(v.outcome, vocab::Outcome::kTimeout);
  ASSERT_FALSE(v.reasons.empty());
  EXPECT_EQ(v.reasons[0].code, "stage_timeout");
}

// With an idle limit, a hung trial ends at that limit, not the stage's; a compile in flight is
// waited for; progress frames never move the stage limit itself.
TEST_F(EngineTest, IdleDeadlineEndsAHangEarlyAndWaitsForACompile) {
  cfg_.trial_idle_timeout = std::chrono::milliseconds(300);
  cfg_.trial_timeout = std::chrono::milliseconds(4000);
  ref_.ms = 100;  // the idle limit is at least 2x the reference's run: here 300 ms
  const auto timed = [&](const std::string& scenario, double& ms) {
    const auto t0 = std::chrono::steady_clock::now();
    Verdict v = Run(scenario);
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return v;
  };
  double ms = 0;
  const Verdict spin = timed("spin_trial", ms);
  EXPECT_EQ(spin.outcome, vocab::Outcome::kTimeout);
  ASSERT_FALSE(spin.reasons.empty());
  EXPECT_EQ(spin.reasons[0].code, "stage_timeout");
  EXPECT_NE(spin.reasons[0].message.find("nothing happened for 300 ms"), std::string::npos)
      << spin.reasons[0].message;
  EXPECT_LT(ms, 3000);

  // 900 ms of compile with a 300 ms idle limit.
  EXPECT_EQ(Run("compile_then_trial").outcome, vocab::Outcome::kCorrect);
  // 900 ms of launches (a call that launches once per row), reported every 100 ms.
  EXPECT_EQ(Run("launching_trial").outcome, vocab::Outcome::kCorrect);
  const Verdict launching = timed("launching_flood", ms);
  EXPECT_EQ(launching.outcome, vocab::Outcome::kTimeout);
  EXPECT_GE(ms, 4000);
  EXPECT_LT(ms, 30000);

  const Verdict forged = timed("forged_compile", ms);
  EXPECT_EQ(forged.outcome, vocab::Outcome::kTimeout);
  EXPECT_GE(ms, 4000);
  const Verdict flood = timed("progress_flood", ms);
  EXPECT_EQ(flood.outcome, vocab::Outcome::kTimeout);
  EXPECT_GE(ms, 4000);
  EXPECT_LT(ms, 30000);

  ref_.ms = 1000;  // a slow reference: 2 s of idle allowed
  const Verdict slow = timed("spin_trial", ms);
  EXPECT_NE(slow.reasons.at(0).message.find("nothing happened for 2000 ms"), std::string::npos)
      << slow.reasons[0].message;
  EXPECT_GE(ms, 2000);

  cfg_.trial_idle_timeout = std::chrono::milliseconds(0);  // off: the stage limit alone
  const Verdict off = timed("spin_trial", ms);
  EXPECT_EQ(off.outcome, vocab::Outcome::kTimeout);
  EXPECT_GE(ms, 4000);
}

TEST_F(EngineTest, ForgedOrMalformedFramesFail) {
  const Verdict garbage = Run("garbage");
  EXPECT_EQ(garbage.outcome, vocab::Outcome::kRuntimeError);
  EXPECT_TRUE(Codes(garbage).count("protocol_violation"));
  const Verdict skip = Run("skip_trials");  // "done" where a trial was due
  EXPECT_EQ(skip.outcome, vocab::Outcome::kRuntimeError);
  EXPECT_TRUE(Codes(skip).count("protocol_violation"));
  EXPECT_TRUE(Codes(Run("lie_shape")).count("protocol_violation"));
  // Output bytes that do not follow the header's declaration end the worker.
  for (const char* sc : {"slice_out_of_order", "slice_overflow", "slice_missing", "odd_slices"}) {
    const Verdict v = Run(sc);
    EXPECT_EQ(v.outcome, vocab::Outcome::kRuntimeError) << sc;
    EXPECT_TRUE(Codes(v).count("protocol_violation")) << sc;
  }
}

TEST_F(EngineTest, ExceptionsByStage) {
  EXPECT_EQ(Run("error_import").outcome, vocab::Outcome::kCompileError);
  EXPECT_EQ(Run("error_trial").outcome, vocab::Outcome::kRuntimeError);
  const Verdict refused = Run("triton_refused");
  EXPECT_EQ(refused.outcome, vocab::Outcome::kCompileError);
  EXPECT_TRUE(Codes(refused).count("compile_exception"));
}

TEST_F(EngineTest, HostComputeRefusedIsHostCompute) {
  const Verdict v = Run("host_refused");
  EXPECT_EQ(v.outcome, vocab::Outcome::kIncorrect);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0].code, "host_compute");
  EXPECT_EQ(v.reasons[0].message.rfind("refused by the evaluator: float(tensor)", 0), 0u)
      << v.reasons[0].message;
}

// The worker's phase timings are diagnostics from an untrusted process: kept only as finite,
// non-negative numbers under short names, at most 16 names, summed over trials.
TEST_F(EngineTest, WorkerPhaseTimingsAreBoundedAndSummed) {
  const Verdict v = Run("phases");
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect);
  EXPECT_DOUBLE_EQ(v.timings_ms["phase_forward"].get<double>(), 2.5 * 5);
  EXPECT_DOUBLE_EQ(v.timings_ms["phase_hash"].get<double>(), 5.0);
  int phases = 0;
  for (const auto& [k, ms] : v.timings_ms.items()) {
    if (k.rfind("phase_", 0) != 0) continue;
    ++phases;
    EXPECT_LE(k.size(), 6u + 32u) << k;
    EXPECT_TRUE(ms.is_number() && ms.get<double>() >= 0) << k;
  }
  EXPECT_EQ(phases, 16);
  EXPECT_FALSE(v.timings_ms.contains("phase_negative"));
  EXPECT_FALSE(v.timings_ms.contains("phase_text"));
  EXPECT_FALSE(v.timings_ms.contains("phase_nan"));
}

TEST_F(EngineTest, FailedReferenceIsAnInfraFailure) {
  ReferenceResult bad;
  bad.error = {"reference", "reference_failed", "boom"};
  const Verdict v = RunCandidate(cfg_, "task.py", "", bad);
  EXPECT_EQ(v.outcome, vocab::Outcome::kRuntimeError);
  EXPECT_TRUE(v.infra_failure);
}

TEST_F(EngineTest, PoolSamplesThatWaitedForTheirTasksReferenceSayHowLong) {
  // Three samples of one task on three threads: one runs the (slow) reference, the other two
  // block meanwhile; that wait belongs to no stage of their own, so it is reported apart. A
  // sample decided before running is passed through untouched.
  cfg_.extra_env = {"FAKE_SCENARIO=correct", "FAKE_REFERENCE_DELAY_MS=400"};
  std::vector<SampleJob> jobs;
  for (int i = 0; i < 3; ++i)
    jobs.push_back({"s" + std::to_string(i), "t", "task.py", "print('unused')\n", std::nullopt});
  Verdict decided;
  decided.outcome = vocab::Outcome::kInvalidSyntax;
  jobs.push_back({"s3", "t", "task.py", "", decided});
  std::vector<Verdict> got(jobs.size());
  RunPool(cfg_, jobs, 3, [&](std::size_t i, Verdict v) { got[i] = std::move(v); });
  int waited = 0, ran = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].outcome, vocab::Outcome::kCorrect) << i;
    EXPECT_EQ(got[i].sample, "s" + std::to_string(i));
    EXPECT_GE(got[i].timings_ms["reference"].get<double>(), 400.0) << i;  // the shared run
    if (got[i].timings_ms.contains("reference_wait")) {
      ++waited;
      EXPECT_GE(got[i].timings_ms["reference_wait"].get<double>(), 200.0) << i;
    } else {
      ++ran;
    }
  }
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(waited, 2);
  EXPECT_EQ(got[3].outcome, vocab::Outcome::kInvalidSyntax);
  EXPECT_FALSE(got[3].timings_ms.contains("reference_wait"));
}

TEST_F(EngineTest, PoolStartsAnotherTasksReferenceRatherThanWait) {
  // Tasks A, A, A, B on two threads with slow references: the second thread does not block on
  // A's reference but starts B's, so B's sample begins at once.
  cfg_.extra_env = {"FAKE_SCENARIO=correct", "FAKE_REFERENCE_DELAY_MS=400"};
  std::vector<SampleJob> jobs;
  for (int i = 0; i < 3; ++i)
    jobs.push_back({"a" + std::to_string(i), "A", "task.py", "print('unused')\n", std::nullopt});
  jobs.push_back({"b0", "B", "task_b.py", "print('unused')\n", std::nullopt});
  std::vector<Verdict> got(jobs.size());
  std::vector<std::size_t> order;
  RunPool(cfg_, jobs, 2, [&](std::size_t i, Verdict v) {
    got[i] = std::move(v);
    order.push_back(i);
  });
  for (const Verdict& v : got) EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect) << v.sample;
  ASSERT_TRUE(ReadEvidence<PoolEvidence>(got[3].evidence));
  EXPECT_TRUE(PoolOf(got[3]).ran_reference);
  EXPECT_LT(PoolOf(got[3]).start_ms, 300.0);  // not after A's 400 ms
  EXPECT_FALSE(got[3].timings_ms.contains("reference_wait"));
  EXPECT_TRUE(PoolOf(got[0]).ran_reference);
  for (const Verdict& v : got) EXPECT_LE(PoolOf(v).start_ms, PoolOf(v).end_ms);

  // One thread, tasks A, B, A: once A's reference is ready, A's other sample goes before B's
  // (whose reference would be a second one held at once).
  std::vector<SampleJob> mixed = {jobs[0], jobs[3], jobs[1]};
  order.clear();
  std::vector<Verdict> one(mixed.size());
  RunPool(cfg_, mixed, 1, [&](std::size_t i, Verdict v) {
    one[i] = std::move(v);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 2, 1}));
}

TEST_F(EngineTest, PoolHoldsASharedSlotPerSampleAndStopsWhenCancelled) {
  // Six samples on three threads with a budget of two slots: never more than two run at once,
  // and each slot taken is given back.
  cfg_.extra_env = {"FAKE_SCENARIO=correct"};
  std::vector<SampleJob> jobs;
  for (int i = 0; i < 6; ++i)
    jobs.push_back({"s" + std::to_string(i), "t", "task.py", "print('unused')\n", std::nullopt});
  std::mutex mu;
  std::condition_variable cv;
  int free_slots = 2, most_held = 0, acquired = 0;
  PoolControl control;
  control.acquire_slot = [&] {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return free_slots > 0; });
    --free_slots;
    ++acquired;
    most_held = std::max(most_held, 2 - free_slots);
  };
  control.release_slot = [&] {
    std::lock_guard<std::mutex> lock(mu);
    ++free_slots;
    cv.notify_one();
  };
  std::vector<Verdict> got(jobs.size());
  RunPool(
      cfg_, jobs, 3, [&](std::size_t i, Verdict v) { got[i] = std::move(v); }, control);
  for (const Verdict& v : got) EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect) << v.sample;
  EXPECT_EQ(acquired, 6);
  EXPECT_EQ(most_held, 2);
  EXPECT_EQ(free_slots, 2);

  // Cancelled after the second verdict: the samples not yet started never run.
  int done = 0;
  PoolControl stop;
  stop.cancelled = [&] { return done >= 2; };
  RunPool(
      cfg_, jobs, 1, [&](std::size_t, Verdict) { ++done; }, stop);
  EXPECT_EQ(done, 2);
}

TEST_F(EngineTest, ConcurrentPoolsRunASharedTasksReferenceOnce) {
  // A second run starts while the first computes the task's reference: it runs none of its own,
  // and serves its samples from the one the first keeps.
  cfg_.extra_env = {"FAKE_SCENARIO=correct", "FAKE_REFERENCE_DELAY_MS=1500"};
  std::mutex mu;
  std::shared_ptr<const ReferenceResult> kept;
  bool computing = false;
  int refused = 0;
  cfg_.reuse_reference = [&](const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    return kept;
  };
  cfg_.keep_reference = [&](const std::string&, std::shared_ptr<const ReferenceResult> r) {
    std::lock_guard<std::mutex> lock(mu);
    kept = std::move(r);
  };
  cfg_.claim_reference = [&](const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    if (computing) {
      ++refused;
      return false;
    }
    return computing = true;
  };
  cfg_.release_reference = [&](const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    computing = false;
  };
  const auto jobs_of = [](const std::string& prefix) {
    std::vector<SampleJob> jobs;
    for (int i = 0; i < 2; ++i)
      jobs.push_back(
          {prefix + std::to_string(i), "t", "task.py", "print('unused')\n", std::nullopt});
    return jobs;
  };
  std::vector<Verdict> first(2), second(2);
  std::thread a([&] {
    RunPool(cfg_, jobs_of("a"), 2, [&](std::size_t i, Verdict v) { first[i] = std::move(v); });
  });
  for (;;) {  // until the first run has claimed the reference
    {
      std::lock_guard<std::mutex> lock(mu);
      if (computing) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  RunPool(cfg_, jobs_of("b"), 2, [&](std::size_t i, Verdict v) { second[i] = std::move(v); });
  a.join();
  int ran = 0;
  for (const auto* set : {&first, &second}) {
    for (const Verdict& v : *set) {
      EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect) << v.sample;
      ran += PoolOf(v).ran_reference;
    }
  }
  EXPECT_EQ(ran, 1);
  EXPECT_GE(refused, 1);
  for (const Verdict& v : second) EXPECT_TRUE(PoolOf(v).reference_kept);
}

TEST(CandidateConfig, RunsWithTheSeedsItsReferenceRanWith) {
  EngineConfig now;
  now.schedule = MakeSchedule(5, 1234);
  now.init_seed = 7;
  now.timing.seeds = {1, 2};
  now.timing.input_seed = 3;
  now.timing.recheck_indices = {1};
  now.timing.sample_seeds = {4, 5};
  now.timing.warmup_seeds = {6};
  now.timing.trials = 2;
  ReferenceResult kept;  // a reference of an earlier run, drawn with other secrets
  EngineConfig then = now;
  then.schedule = MakeSchedule(5, 98765);
  then.init_seed = 11;
  DrawTimingPlan(then.timing, 555);
  kept.schedule = then.schedule;
  kept.init_seed = then.init_seed;
  kept.timing_plan = then.timing;
  const EngineConfig c = CandidateConfig(now, kept);
  ASSERT_EQ(c.schedule.size(), then.schedule.size());
  for (std::size_t i = 0; i < c.schedule.size(); ++i)
    EXPECT_EQ(c.schedule[i].seed, then.schedule[i].seed);
  EXPECT_NE(now.schedule[0].seed + now.schedule[1].seed, c.schedule[0].seed + c.schedule[1].seed);
  EXPECT_EQ(c.init_seed, 11);
  EXPECT_EQ(c.timing.seeds, then.timing.seeds);
  EXPECT_EQ(c.timing.input_seed, then.timing.input_seed);
  EXPECT_EQ(c.timing.recheck_indices, then.timing.recheck_indices);
  EXPECT_EQ(c.timing.sample_seeds, then.timing.sample_seeds);
  EXPECT_EQ(c.timing.warmup_seeds, then.timing.warmup_seeds);
  // A reference that carries no seeds (built by hand): the run's own.
  const EngineConfig own = CandidateConfig(now, ReferenceResult{});
  EXPECT_EQ(own.init_seed, 7);
  EXPECT_EQ(own.timing.seeds, now.timing.seeds);
}

TEST_F(EngineTest, PoolServesATaskFromAKeptReference) {
  // The first pool run keeps its reference; the second takes it and runs no reference of its own.
  cfg_.extra_env = {"FAKE_SCENARIO=correct", "FAKE_REFERENCE_DELAY_MS=400"};
  std::shared_ptr<const ReferenceResult> kept;
  int reused = 0;
  cfg_.keep_reference = [&](const std::string&, std::shared_ptr<const ReferenceResult> r) {
    kept = std::move(r);
  };
  cfg_.reuse_reference = [&](const std::string&) -> std::shared_ptr<const ReferenceResult> {
    if (kept) ++reused;
    return kept;
  };
  std::vector<SampleJob> jobs = {{"s0", "t", "task.py", "print('unused')\n", std::nullopt}};
  Verdict v;
  RunPool(cfg_, jobs, 1, [&](std::size_t, Verdict got) { v = std::move(got); });
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect);
  ASSERT_TRUE(kept);
  EXPECT_FALSE(kept->schedule.empty());  // the seeds travel with it
  jobs[0].sample_id = "s1";
  RunPool(cfg_, jobs, 1, [&](std::size_t, Verdict got) { v = std::move(got); });
  EXPECT_EQ(reused, 1);
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect);
  EXPECT_TRUE(PoolOf(v).reference_kept);
  EXPECT_FALSE(PoolOf(v).ran_reference);
  EXPECT_FALSE(v.timings_ms.contains("reference"));
  EXPECT_LT(PoolOf(v).end_ms, 400.0);  // no reference delay this time
}

TEST_F(EngineTest, OutOfGpuMemoryBesideOthersRunsAgainAlone) {
  // Alone (one thread) the error is the sample's own: one run, reason out_of_memory.
  cfg_.extra_env = {"FAKE_SCENARIO=oom_trial"};
  const Verdict single = Run("oom_trial");
  EXPECT_EQ(single.outcome, vocab::Outcome::kRuntimeError);
  EXPECT_TRUE(Codes(single).count("out_of_memory"));
  std::vector<SampleJob> jobs;
  for (int i = 0; i < 3; ++i)
    jobs.push_back({"s" + std::to_string(i), "t", "task.py", "print('unused')\n", std::nullopt});
  std::vector<Verdict> got(jobs.size());
  RunPool(cfg_, jobs, 1, [&](std::size_t i, Verdict v) { got[i] = std::move(v); });
  for (const Verdict& v : got) EXPECT_FALSE(ReadEvidence<OomRerunEvidence>(v.evidence));
  // Beside other workers (three threads) it may be theirs: each sample runs again with the pool
  // to itself, and that second verdict (here the same failure) stands.
  RunPool(cfg_, jobs, 3, [&](std::size_t i, Verdict v) { got[i] = std::move(v); });
  for (const Verdict& v : got) {
    EXPECT_EQ(v.outcome, vocab::Outcome::kRuntimeError);
    EXPECT_TRUE(Codes(v).count("out_of_memory"));
    const auto rerun = ReadEvidence<OomRerunEvidence>(v.evidence);
    ASSERT_TRUE(rerun) << v.evidence.dump();
    EXPECT_NE(rerun->first_run.find("CUDA out of memory"), std::string::npos);
  }
}

TEST_F(EngineTest, AReferenceOutOfGpuMemoryRunsAgainWithRoomForWhatItNeeded) {
  // torch's message says what the reference held and asked for: 1.5 GiB + 2 GiB, a quarter more
  // admitted for the rerun beside others; out of memory again, it runs alone.
  cfg_.extra_env = {"FAKE_REFERENCE_SCENARIO=oom"};
  std::vector<SampleJob> jobs;
  for (int i = 0; i < 2; ++i)
    jobs.push_back({"s" + std::to_string(i), "t", "task.py", "print('unused')\n", std::nullopt});
  std::vector<Verdict> got(jobs.size());
  RunPool(cfg_, jobs, 2, [&](std::size_t i, Verdict v) { got[i] = std::move(v); });
  for (const Verdict& v : got) {
    EXPECT_EQ(v.outcome, vocab::Outcome::kRuntimeError) << v.evidence.dump();
    EXPECT_EQ(PoolOf(v).reference_oom_reruns,
              (std::vector<std::string>{"beside others, 4480 MiB admitted", "alone"}))
        << v.evidence.dump();
  }
  // No sizes in the message: straight to alone. One thread: nobody else's doing, no rerun.
  cfg_.extra_env = {"FAKE_REFERENCE_SCENARIO=oom_no_sizes"};
  RunPool(cfg_, jobs, 2, [&](std::size_t i, Verdict v) { got[i] = std::move(v); });
  EXPECT_EQ(PoolOf(got[0]).reference_oom_reruns, std::vector<std::string>{"alone"});
  RunPool(cfg_, jobs, 1, [&](std::size_t i, Verdict v) { got[i] = std::move(v); });
  EXPECT_FALSE(got[0].evidence["pool"].contains("reference_oom_reruns"));
}

TEST(DeviceBytesAtOomTest, HeldPlusAskedFromTorchsMessage) {
  EXPECT_EQ(DeviceBytesAtOom("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 "
                             "GiB. GPU 0 has a total capacity of 139.80 GiB of which 5.25 GiB is "
                             "free. Including non-PyTorch memory, this process has 12.50 GiB "
                             "memory in use. Of the allocated memory 12.00 GiB is allocated"),
            static_cast<std::uint64_t>(18.5 * (1ull << 30)));
  EXPECT_EQ(DeviceBytesAtOom("Tried to allocate 512.00 MiB. this process has 100 bytes memory"),
            (512ull << 20) + 100);
  EXPECT_EQ(DeviceBytesAtOom("CUDA out of memory. Tried to allocate 2.00 GiB."), 0u);
  EXPECT_EQ(DeviceBytesAtOom("this process has 2.00 GiB memory in use"), 0u);
  EXPECT_EQ(DeviceBytesAtOom("Tried to allocate lots. this process has 2.00 GiB"), 0u);
  EXPECT_EQ(DeviceBytesAtOom("Tried to allocate 1.00 PiB. this process has 2.00 GiB"), 0u);
}

TEST(ScheduleTest, LargeVariantKeepsTheSecretTrial) {
  EngineConfig cfg;
  cfg.schedule = MakeSchedule(5, 7);  // secret at 7 % 5 = 2
  ASSERT_TRUE(cfg.schedule[2].secret);
  EXPECT_EQ(TrialIndicesFor(cfg, "large"), (std::vector<int>{0, 1, 2, 3, 4}));  // no cap set
  cfg.large_variant_trials = 2;
  EXPECT_EQ(TrialIndicesFor(cfg, "large"), (std::vector<int>{0, 2}));
  EXPECT_EQ(TrialIndicesFor(cfg, "medium"), (std::vector<int>{0, 1, 2, 3, 4}));
  cfg.large_variant_trials = 1;
  EXPECT_EQ(TrialIndicesFor(cfg, "large"), (std::vector<int>{2}));
  cfg.schedule = MakeSchedule(5, 5);  // secret at 0
  cfg.large_variant_trials = 3;
  EXPECT_EQ(TrialIndicesFor(cfg, "large"), (std::vector<int>{0, 1, 2}));
  cfg.large_variant_trials = 9;  // more than the schedule: all of it
  EXPECT_EQ(TrialIndicesFor(cfg, "large").size(), 5u);
}

TEST(ScheduleTest, OneSecretSeedAndAllModes) {
  const auto a = MakeSchedule(5, 123456789);
  const auto b = MakeSchedule(5, 987654321);
  ASSERT_EQ(a.size(), 5u);
  int secret = 0;
  std::set<std::pair<bool, bool>> modes;
  for (const auto& t : a) {
    secret += t.seed == 123456789;
    modes.insert({t.train, t.grad});
  }
  EXPECT_EQ(secret, 1);
  EXPECT_EQ(modes.size(), 4u);
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += a[i].seed != b[i].seed;
  EXPECT_GE(differ, 1);
  EXPECT_NE(DrawSecretSeed(), DrawSecretSeed());
}

TEST(VerdictTest, StableJsonFields) {
  Verdict v;
  v.sample = "s";
  v.task = "level1/1_ReLU";
  v.outcome = vocab::Outcome::kIncorrect;
  v.reasons.push_back({"correctness", "not_allclose", "m"});
  const auto j = v.ToJson();
  for (const char* key : {"sample", "task", "outcome", "reasons", "flags", "sandbox", "timings_ms",
                          "evidence", "speedup", "device", "provisional"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["outcome"], "incorrect");  // vocab's stored spelling
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_EQ(j["reasons"][0]["code"], "not_allclose");
}

}  // namespace
}  // namespace tritonrl::eval
