// Pre-started workers (src/eval/worker_pool.h) with the real runner: python/tritonrl_runner/
// worker.py `--prestart cpu` under the full sandbox, torch and Triton's interpreter. No mocks: the
// workers are the ones `tritonrl eval` starts.
#include "eval/worker_pool.h"

#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "eval/engine.h"
#include "eval/pool.h"
#include "eval/schedule.h"

namespace tritonrl::eval {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kSource = TRITONRL_SOURCE_DIR;

std::string ReadSource(const std::string& rel) {
  std::ifstream in(kSource + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Waits up to `limit` for `done`.
template <class F>
bool WaitFor(F done, milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return true;
}

// Whether no process of process group `pgid` is still running (each has exited: gone, or a zombie
// not yet reaped). An exited process has closed its files, so a pipe it held shows its end.
bool GroupExited(pid_t pgid) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;  // not a process
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = 0, pgrp = 0;
    if (!(rest >> state >> ppid >> pgrp)) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') return false;
  }
  return true;
}

// The workers' folders (w-XXXXXX) left under the work folder.
int WorkerFolders(const std::string& work_dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(work_dir, ec))
    n += e.path().filename().string().rfind("w-", 0) == 0;
  return n;
}

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(TRITONRL_VENV_PYTHON).empty()) GTEST_SKIP() << "no .venv";
    cfg_.python = TRITONRL_VENV_PYTHON;
    cfg_.runner_dir = kSource + "/python";
    cfg_.allowlist_path = kSource + "/src/verify/allowlist.json";
    cfg_.work_dir =
        (fs::temp_directory_path() / ("tritonrl-prestart-test-" + std::to_string(getpid())))
            .string();
    fs::create_directories(cfg_.work_dir);
    cfg_.device = "cpu";
    cfg_.schedule = MakeSchedule(5, 424242);
    cfg_.sandbox.address_space_bytes = 6ull << 30;  // as `tritonrl eval` on the CPU
    cfg_.sandbox.cpu_seconds = 1800;
    auto prog = BuildSeccompProgram(true);
    ASSERT_TRUE(prog.ok()) << prog.status().message();
    cfg_.seccomp_program = *prog;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(cfg_.work_dir, ec);
  }

  // Runs `codes` as candidates of level1/1_ReLU through the pool; verdicts in input order.
  std::vector<Verdict> RunAll(const EngineConfig& cfg, const std::vector<std::string>& codes,
                              int threads) {
    std::vector<SampleJob> jobs;
    for (std::size_t i = 0; i < codes.size(); ++i)
      jobs.push_back({std::to_string(i), "level1/1_ReLU", kSource + "/tasks/level1/1_ReLU.py",
                      codes[i], std::nullopt});
    std::vector<Verdict> out(codes.size());
    RunPool(cfg, jobs, threads, [&](std::size_t i, Verdict v) { out[i] = std::move(v); });
    return out;
  }

  EngineConfig cfg_;
};

// Acquire hands out each worker once, a replacement keeps `ready` idle, and Drain leaves neither
// a process nor a folder.
TEST_F(WorkerPoolTest, EachWorkerIsHandedOutOnceAndDrainLeavesNothing) {
  std::vector<pid_t> idle_at_drain;
  std::set<pid_t> handed;
  {
    WorkerPool pool(cfg_, 2, 4);
    ASSERT_TRUE(WaitFor([&] { return pool.idle() == 2; }, seconds(120)));
    for (int i = 0; i < 2; ++i) {
      auto w = pool.Acquire(cfg_);
      ASSERT_TRUE(w.has_value());
      EXPECT_EQ(w->child.spawn, "warm+prestarted");
      EXPECT_TRUE(handed.insert(w->child.pid).second) << "handed out twice: " << w->child.pid;
      EXPECT_TRUE(fs::exists(w->dir + "/worker.log"));
      EXPECT_TRUE(w->discarded.empty());
      // The sample's side: the engine finishes the worker and removes its folder.
      Finish(w->child, milliseconds(0));
      fs::remove_all(w->dir);
    }
    // Demand 4: two more started, and no more than that.
    ASSERT_TRUE(WaitFor([&] { return pool.idle() == 2; }, seconds(120)));
    idle_at_drain = pool.IdlePids();
    for (pid_t p : idle_at_drain) EXPECT_EQ(handed.count(p), 0u);
    pool.Drain();
    EXPECT_EQ(pool.idle(), 0);
    EXPECT_FALSE(pool.Acquire(cfg_).has_value());  // nothing after Drain
    const WorkerPool::Stats s = pool.stats();
    EXPECT_EQ(s.started, 4);
    EXPECT_EQ(s.handed_out, 2);
    EXPECT_EQ(s.drained, 2);
  }
  EXPECT_EQ(WorkerFolders(cfg_.work_dir), 0);
  // The drained workers' process groups are gone (the zygote reaps them once released).
  for (pid_t p : idle_at_drain)
    EXPECT_TRUE(WaitFor([&] { return killpg(p, 0) != 0; }, seconds(10))) << "group " << p;
}

// A config that would spawn another worker (here: another device) gets none from the pool.
TEST_F(WorkerPoolTest, AnotherSpecGetsNoWorker) {
  WorkerPool pool(cfg_, 1, 2);
  ASSERT_TRUE(WaitFor([&] { return pool.idle() == 1; }, seconds(120)));
  EngineConfig other = cfg_;
  other.sandbox.seccomp = false;
  EXPECT_FALSE(pool.Acquire(other).has_value());
  other = cfg_;
  other.warm_workers = false;
  EXPECT_FALSE(pool.Acquire(other).has_value());
  other = cfg_;
  other.extra_env = {"X=1"};
  EXPECT_FALSE(pool.Acquire(other).has_value());
  EXPECT_EQ(pool.idle(), 1);
  EngineConfig same = cfg_;
  same.schedule = MakeSchedule(5, 1);  // seeds are the request's, not the spawn's
  auto w = pool.Acquire(same);
  ASSERT_TRUE(w.has_value());
  Finish(w->child, milliseconds(0));
  fs::remove_all(w->dir);
}

// A worker killed while it waited is discarded and reported, never handed out.
TEST_F(WorkerPoolTest, AWorkerKilledWhileIdleIsReplacedAndNeverHandedOut) {
  WorkerPool pool(cfg_, 1, 4);
  ASSERT_TRUE(WaitFor([&] { return pool.idle() == 1; }, seconds(120)));
  const pid_t victim = pool.IdlePids().at(0);
  ASSERT_EQ(killpg(victim, SIGKILL), 0);
  // Its pipe's end shows once every process of its group has exited (a fixed sleep was once too
  // short on a loaded 2-core machine).
  ASSERT_TRUE(WaitFor([&] { return GroupExited(victim); }, seconds(60)));
  std::optional<PrestartedWorker> got;
  std::vector<std::string> notes;
  ASSERT_TRUE(WaitFor(
      [&] {
        got = pool.Acquire(cfg_);
        return got.has_value();
      },
      seconds(120)));
  EXPECT_NE(got->child.pid, victim);
  ASSERT_EQ(got->discarded.size(), 1u);
  EXPECT_NE(got->discarded[0].find("pid " + std::to_string(victim)), std::string::npos)
      << got->discarded[0];
  // Its relay died with it (the whole group was killed): no exit status came back.
  EXPECT_NE(got->discarded[0].find("while idle"), std::string::npos) << got->discarded[0];
  EXPECT_EQ(pool.stats().discarded, 1);
  Finish(got->child, milliseconds(0));
  fs::remove_all(got->dir);
}

// A pre-started worker gets exactly the sandbox of a cold one, warm or cold itself.
TEST_F(WorkerPoolTest, SandboxOfAPrestartedWorkerIsFullAsACold) {
  for (bool warm : {true, false}) {
    EngineConfig cfg = cfg_;
    cfg.warm_workers = warm;
    WorkerPool pool(cfg, 1, 1);
    ASSERT_TRUE(WaitFor([&] { return pool.idle() == 1; }, seconds(120)));
    auto w = pool.Acquire(cfg);
    ASSERT_TRUE(w.has_value());
    // Its request pipe closes: the worker's main fails reading it, as a cold worker does.
    const Finished f = Finish(w->child, seconds(60));
    fs::remove_all(w->dir);
    EXPECT_EQ(f.sandbox.spawn, warm ? "warm+prestarted" : "cold+prestarted");
    EXPECT_EQ(f.sandbox.Level(), "full") << f.sandbox.ToJson().dump();
    EXPECT_TRUE(f.sandbox.read_only_fs && f.sandbox.private_proc && f.sandbox.seccomp &&
                f.sandbox.pid_namespace && f.sandbox.no_capabilities);
  }
}

// candidate.py is written into a worker's folder after the worker made its read-only mount
// namespace: it still sees the file (the folder is the host's, remounted read-only).
TEST_F(WorkerPoolTest, FilesWrittenAfterTheSandboxWasMadeAreVisible) {
  const ReferenceResult ref = RunReference(cfg_, kSource + "/tasks/level1/1_ReLU.py");
  ASSERT_TRUE(ref.ok) << ref.error.message;
  EngineConfig cfg = cfg_;
  cfg.worker_pool = std::make_shared<WorkerPool>(cfg_, 1, 1);
  ASSERT_TRUE(WaitFor([&] { return cfg.worker_pool->idle() == 1; }, seconds(120)));
  // Long enough for the worker to have applied its sandbox and imported the runner (it then
  // blocks on its request).
  std::this_thread::sleep_for(seconds(3));
  const Verdict v = RunCandidate(cfg, kSource + "/tasks/level1/1_ReLU.py",
                                 ReadSource("tests/corpus/legit/relu_basic.py"), ref);
  EXPECT_EQ(v.sandbox.value("spawn", ""), "warm+prestarted");
  EXPECT_EQ(v.sandbox.value("level", ""), "full");
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect) << v.ToJson().dump();
  cfg.worker_pool->Drain();
}

// A worker killed just before its sample takes it, whether the pool still saw it alive or not:
// the sample runs in a fresh worker, its verdict is the one it would have had, and names the
// dead worker.
TEST_F(WorkerPoolTest, AWorkerKilledAsItIsHandedOutCostsTheSampleNothing) {
  const std::string task = kSource + "/tasks/level1/1_ReLU.py";
  const ReferenceResult ref = RunReference(cfg_, task);
  ASSERT_TRUE(ref.ok) << ref.error.message;
  EngineConfig cfg = cfg_;
  cfg.worker_pool = std::make_shared<WorkerPool>(cfg_, 1, 1);
  ASSERT_TRUE(WaitFor([&] { return cfg.worker_pool->idle() == 1; }, seconds(120)));
  const pid_t victim = cfg.worker_pool->IdlePids().at(0);
  ASSERT_EQ(killpg(victim, SIGKILL), 0);
  const Verdict v = RunCandidate(cfg, task, ReadSource("tests/corpus/legit/relu_basic.py"), ref);
  EXPECT_EQ(v.outcome, vocab::Outcome::kCorrect) << v.ToJson().dump();
  EXPECT_FALSE(v.infra_failure);
  ASSERT_TRUE(v.evidence.contains("prestart_discarded")) << v.ToJson().dump();
  ASSERT_EQ(v.evidence["prestart_discarded"].size(), 1u);
  EXPECT_NE(
      v.evidence["prestart_discarded"][0].get<std::string>().find("pid " + std::to_string(victim)),
      std::string::npos);
  EXPECT_EQ(v.sandbox.value("level", ""), "full");
  cfg.worker_pool->Drain();
  EXPECT_EQ(WorkerFolders(cfg_.work_dir), 0);
}

// The candidate this test runs twice: honest, but it fails its import if its process, or its
// scratch folder, ever held another candidate (a module attribute and a file it leaves behind).
constexpr const char* kMarker = R"(
import torch
import triton

if getattr(triton, "_tritonrl_prestart_marker", None) is not None:
    raise ImportError("this process ran a candidate before")
triton._tritonrl_prestart_marker = 1
)";

TEST_F(WorkerPoolTest, VerdictsWithThePoolEqualVerdictsWithoutAndEachWorkerRunsOneCandidate) {
  const std::string honest = ReadSource("tests/corpus/legit/relu_basic.py");
  const std::vector<std::string> codes = {
      honest + kMarker,
      honest + kMarker,
      ReadSource("tests/corpus/hacks/adv_poison_byte_detect.py"),
      ReadSource("tests/corpus/hacks/rt_instance_output_cache.py"),
      honest + kMarker,
  };
  EngineConfig with = cfg_, without = cfg_;
  with.prestart_workers = -1;
  without.prestart_workers = 0;
  const std::vector<Verdict> a = RunAll(with, codes, 2);
  const std::vector<Verdict> b = RunAll(without, codes, 2);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("sample " + std::to_string(i));
    EXPECT_EQ(a[i].outcome, b[i].outcome) << a[i].ToJson().dump() << "\n" << b[i].ToJson().dump();
    std::vector<std::string> ra, rb;
    for (const Reason& r : a[i].reasons) ra.push_back(r.stage + "/" + r.code);
    for (const Reason& r : b[i].reasons) rb.push_back(r.stage + "/" + r.code);
    EXPECT_EQ(ra, rb);
    EXPECT_EQ(a[i].flags, b[i].flags);
    EXPECT_EQ(a[i].sandbox.value("level", ""), "full");
    EXPECT_EQ(b[i].sandbox.value("level", ""), "full");
    EXPECT_EQ(b[i].sandbox.value("spawn", ""), "warm");
    EXPECT_FALSE(a[i].evidence.contains("prestart_discarded"));
  }
  // Pre-started workers were used (all but perhaps those asked for before the first was up).
  int prestarted = 0;
  for (const Verdict& v : a) prestarted += v.sandbox.value("spawn", "") == "warm+prestarted";
  EXPECT_GE(prestarted, 2);
  // Each honest candidate with the marker ran in a process of its own.
  for (std::size_t i : {0u, 1u, 4u}) EXPECT_EQ(a[i].outcome, vocab::Outcome::kCorrect);
  EXPECT_NE(a[2].outcome, vocab::Outcome::kCorrect);
  EXPECT_NE(a[3].outcome, vocab::Outcome::kCorrect);
  // The run drained its idle workers: no folder is left.
  EXPECT_EQ(WorkerFolders(cfg_.work_dir), 0);
}

// A pool the caller gives (EngineConfig::worker_pool, demand unbounded) outlives RunPool: the run
// takes its workers and leaves it filled, the next run takes the workers that waited between the
// two, each still runs one candidate, and only the caller's Drain ends them.
TEST_F(WorkerPoolTest, APoolGivenByTheCallerOutlivesTheRunAndServesTheNext) {
  const std::string honest = ReadSource("tests/corpus/legit/relu_basic.py");
  const std::string hack = ReadSource("tests/corpus/hacks/rt_instance_output_cache.py");
  auto pool = std::make_shared<WorkerPool>(cfg_, 2, WorkerPool::kUnbounded);
  EngineConfig cfg = cfg_;
  cfg.worker_pool = pool;
  ASSERT_TRUE(WaitFor([&] { return pool->idle() == 2; }, seconds(120)));
  const std::vector<Verdict> first = RunAll(cfg, {honest + kMarker, hack}, 2);
  EXPECT_EQ(first[0].outcome, vocab::Outcome::kCorrect) << first[0].ToJson().dump();
  EXPECT_NE(first[1].outcome, vocab::Outcome::kCorrect);
  EXPECT_EQ(first[0].sandbox.value("spawn", ""), "warm+prestarted");

  // Between the runs the pool refills and keeps its workers.
  ASSERT_TRUE(WaitFor([&] { return pool->idle() == 2; }, seconds(120)));
  const std::vector<pid_t> waited = pool->IdlePids();
  const int handed_in_first = pool->stats().handed_out;
  EXPECT_EQ(pool->stats().drained, 0);
  const std::vector<Verdict> second = RunAll(cfg, {hack, honest + kMarker}, 2);
  EXPECT_NE(second[0].outcome, vocab::Outcome::kCorrect);
  EXPECT_EQ(second[1].outcome, vocab::Outcome::kCorrect) << second[1].ToJson().dump();
  for (const Verdict& v : second) EXPECT_FALSE(v.evidence.contains("prestart_discarded"));
  // The workers that waited ran the second run's first workers (its reference and a candidate):
  // none is idle any more.
  EXPECT_GE(std::count_if(
                second.begin(), second.end(),
                [](const Verdict& v) { return v.sandbox.value("spawn", "") == "warm+prestarted"; }),
            1);
  const std::vector<pid_t> now = pool->IdlePids();
  for (pid_t p : waited) EXPECT_EQ(std::count(now.begin(), now.end(), p), 0) << p;
  const WorkerPool::Stats s = pool->stats();
  EXPECT_GE(s.handed_out, handed_in_first + 2);
  EXPECT_EQ(s.drained, 0);
  pool->Drain();
  EXPECT_EQ(WorkerFolders(cfg_.work_dir), 0);
}

// The idle workers' memory comes off the budgets, so their number is bounded by them.
TEST(WorkerPoolSizing, ReadyCountFollowsThreadsSettingAndBudgets) {
  EngineConfig cfg;
  cfg.device = "cpu";
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 4, 0, 0), 4);  // -1: one per thread
  cfg.prestart_workers = 2;
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 4, 0, 0), 2);
  cfg.prestart_workers = 9;
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 4, 0, 0), 4);  // never more than threads
  cfg.prestart_workers = 0;
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 4, 0, 0), 0);
  cfg.prestart_workers = -1;
  // 768 MiB each on the CPU, at most a quarter of the host budget: 8 GiB -> 2 of 4.
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 4, 8ull << 30, 0), 2);
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 64, 0, 0), WorkerPool::kMaxPrestartWorkers);
  cfg.device = "cuda";
  // 1 GiB of device memory each: 16 GiB of device budget -> 4 of 16.
  EXPECT_EQ(WorkerPool::ReadyCount(cfg, 16, 0, 16ull << 30), 4);
  const MemoryNeed idle = WorkerPool::IdleNeed(cfg);
  EXPECT_EQ(idle.device, kWorkerBaseDeviceBytes);
  EXPECT_EQ(idle.host, kWorkerBaseHostBytesCuda);
}

TEST(WorkerPoolSizing, SpawnNames) {
  EXPECT_EQ(PrestartedSpawnName("warm"), "warm+prestarted");
  EXPECT_EQ(PrestartedSpawnName("cold"), "cold+prestarted");
  EXPECT_EQ(PrestartedSpawnName("cold (zygote unavailable: x y)"),
            "cold+prestarted (zygote unavailable: x y)");
}

// Admission: the idle workers' reservation comes off a limited budget, never off an unlimited one.
TEST(WorkerPoolSizing, AdmissionBudgetsLessTheReservation) {
  const MemoryAdmission a = MakeAdmission({10ull << 30, 0}, {2ull << 30, 1ull << 30});
  EXPECT_EQ(a.host_budget(), 8ull << 30);
  EXPECT_EQ(a.device_budget(), 0u);
}

}  // namespace
}  // namespace tritonrl::eval
