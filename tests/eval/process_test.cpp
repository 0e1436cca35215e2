// Spawning, the sandbox, killpg and reaping with real processes.
#include "eval/process.h"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace tritonrl::eval {
namespace {

namespace fs = std::filesystem;

SpawnSpec Spec(std::vector<std::string> argv, bool sandbox = true, bool forbid_fork = true) {
  SpawnSpec s;
  s.argv = std::move(argv);
  s.env = {"PATH=/usr/bin:/bin"};
  s.sandbox.enabled = sandbox;
  s.sandbox.forbid_fork = forbid_fork;
  static const auto strict = BuildSeccompProgram(true);
  static const auto spawn_only = BuildSeccompProgram(false);
  s.seccomp_program = forbid_fork ? &*strict : &*spawn_only;
  return s;
}

Finished RunToEnd(const SpawnSpec& spec,
                  std::chrono::milliseconds grace = std::chrono::milliseconds(5000)) {
  auto child = Spawn(spec);
  EXPECT_TRUE(child.ok());
  return Finish(*child, grace);
}

TEST(ProcessTest, SeccompProgramBuilds) {
  auto prog = BuildSeccompProgram(true);
  ASSERT_TRUE(prog.ok()) << prog.status().message();
  EXPECT_GT(prog->size(), 10u);
  bool placeholder = false;
  for (const auto& ins : *prog) placeholder |= ins.k == kSelfPidPlaceholder;
  EXPECT_TRUE(placeholder);  // the tgkill rule's slot for the child's own pid
}

TEST(ProcessTest, ExitCodePassesThroughTheSandbox) {
  const Finished f = RunToEnd(Spec({"/bin/sh", "-c", "exit 3"}));
  ASSERT_TRUE(f.exit.known);
  EXPECT_FALSE(f.exit.signaled);
  EXPECT_EQ(f.exit.code, 3);
  EXPECT_FALSE(f.killed);
  EXPECT_TRUE(f.sandbox.known);
  EXPECT_TRUE(f.sandbox.setsid);
  EXPECT_TRUE(f.sandbox.rlimits);
  EXPECT_TRUE(f.sandbox.no_new_privs);
  EXPECT_TRUE(f.sandbox.seccomp);
}

TEST(ProcessTest, UnsandboxedReportsLevelNone) {
  const Finished f = RunToEnd(Spec({"/bin/true"}, /*sandbox=*/false));
  EXPECT_EQ(f.exit.code, 0);
  EXPECT_EQ(f.sandbox.Level(), "none");  // only the process group, which is not a sandbox
  EXPECT_FALSE(f.sandbox.seccomp);
  EXPECT_FALSE(f.sandbox.rlimits);
}

TEST(ProcessTest, SignalDeathIsNamed) {
  // A real fault: delivered even to the init process of a PID namespace.
  const Finished f =
      RunToEnd(Spec({TRITONRL_VENV_PYTHON, "-c", "import ctypes; ctypes.memset(0, 0, 8)"}));
  ASSERT_TRUE(f.exit.known);
  EXPECT_TRUE(f.exit.signaled);
  EXPECT_EQ(SignalName(f.exit.signal), "SIGSEGV");
  EXPECT_EQ(f.exit.ToString(), "killed by SIGSEGV");
}

TEST(ProcessTest, HangingGroupIsKilled) {
  // The child and a background grandchild both hang; killpg must end both.
  SpawnSpec spec = Spec({"/bin/sh", "-c", "sleep 1000 & echo $! >&4; sleep 1000"}, true, false);
  spec.sandbox.pid_namespace = false;  // the pid printed must be ours
  spec.seccomp_program = nullptr;      // sh forks
  auto child = Spawn(spec);
  ASSERT_TRUE(child.ok());
  std::string buf;
  char c;
  while (read(child->from_child, &c, 1) == 1 && c != '\n') buf += c;
  const pid_t bg = std::stoi(buf);
  const auto t0 = std::chrono::steady_clock::now();
  const Finished f = Finish(*child, std::chrono::milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(f.killed);
  EXPECT_TRUE(f.exit.signaled);
  EXPECT_EQ(f.exit.signal, SIGKILL);
  // The background sleep is gone (or a zombie waiting for init to reap it).
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(bg) + "/stat");
    std::string pid, comm, state;
    gone = !(stat >> pid >> comm >> state) || state == "Z";
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone);
}

TEST(ProcessTest, ReadFrameTimesOutOnSilence) {
  auto child = Spawn(Spec({"/bin/sleep", "30"}));
  ASSERT_TRUE(child.ok());
  std::string buf;
  const auto r =
      ReadFrameUntil(child->from_child, buf, Clock::now() + std::chrono::milliseconds(200));
  EXPECT_EQ(r.kind, ReadKind::kTimeout);
  const Finished f = Finish(*child, std::chrono::milliseconds(0));
  EXPECT_TRUE(f.killed);
}

TEST(ProcessTest, GarbageOnTheResultPipeIsMalformed) {
  auto child = Spawn(Spec({"/bin/sh", "-c", "printf 'PASS: all tests passed\\n' >&4"}));
  ASSERT_TRUE(child.ok());
  std::string buf;
  const auto r = ReadFrameUntil(child->from_child, buf, Clock::now() + std::chrono::seconds(10));
  EXPECT_EQ(r.kind, ReadKind::kMalformed);
  Finish(*child, std::chrono::milliseconds(1000));
}

TEST(ProcessTest, SeccompRefusesForkNetworkAndSignallingOthers) {
  const char* script =
      "import os, socket, errno\n"
      "try:\n os.fork(); raise SystemExit(10)\nexcept BlockingIOError: pass\n"
      "try:\n socket.socket(socket.AF_INET, socket.SOCK_STREAM); raise SystemExit(11)\nexcept "
      "PermissionError: pass\n"
      "try:\n os.kill(1 if os.getpid() != 1 else 2, 0); raise SystemExit(12)\nexcept "
      "(PermissionError, ProcessLookupError): pass\n"
      "try:\n os.setsid(); raise SystemExit(13)\nexcept PermissionError: pass\n"
      "raise SystemExit(42)\n";
  const Finished f = RunToEnd(Spec({TRITONRL_VENV_PYTHON, "-I", "-c", script}));
  EXPECT_EQ(f.exit.code, 42) << f.exit.ToString();
}

TEST(ProcessTest, SpawnOnlyPolicyAllowsSubprocessButNotFork) {
  const char* script =
      "import os, subprocess\n"
      "assert subprocess.run(['/bin/true']).returncode == 0\n"
      "try:\n os.fork(); raise SystemExit(10)\nexcept BlockingIOError: pass\n"
      "raise SystemExit(42)\n";
  const Finished f =
      RunToEnd(Spec({TRITONRL_VENV_PYTHON, "-I", "-c", script}, true, /*forbid_fork=*/false));
  EXPECT_EQ(f.exit.code, 42) << f.exit.ToString();
}

TEST(ProcessTest, FileSizeLimitHolds) {
  SpawnSpec spec = Spec(
      {TRITONRL_VENV_PYTHON, "-I", "-c",
       "import errno, os\ntry:\n open(os.environ['TMPDIR'] + '/f', 'wb').write(b'0' * (2 << 20))\n"
       "except OSError as e:\n raise SystemExit(42 if e.errno == errno.EFBIG else 43)\n"});
  const fs::path dir = fs::temp_directory_path() / ("tritonrl-fsize-" + std::to_string(getpid()));
  fs::create_directories(dir);
  spec.env.push_back("TMPDIR=" + dir.string());
  spec.writable_dirs = {dir.string()};
  spec.sandbox.file_size_bytes = 1 << 20;
  const Finished f = RunToEnd(spec);
  fs::remove_all(dir);
  EXPECT_EQ(f.exit.code, 42) << f.exit.ToString();
}

// What a candidate sees of the machine: a size-capped scratch folder and nothing else
// writable, only its own processes in /proc, no capabilities left (uid 0 included).
TEST(ProcessTest, MountNamespaceAndCapabilitiesIsolateTheWorker) {
  const fs::path base = fs::temp_directory_path() / ("tritonrl-iso-" + std::to_string(getpid()));
  const fs::path own = base / "worker";
  fs::create_directories(own);
  const char* script =
      "import os, sys\n"
      "own = sys.argv[1]\n"
      "r = []\n"
      "open(os.path.join(own, 'inside.txt'), 'w').write('x'); r.append('inside=ok')\n"
      "try:\n open(os.path.join(os.path.dirname(own), 'outside.txt'), 'w'); "
      "r.append('outside=ok')\n"
      "except OSError as e:\n r.append(f'outside={e.errno}')\n"
      "try:\n"
      " with open(os.path.join(own, 'big.bin'), 'wb') as f:\n"
      "  for _ in range(16): f.write(bytes(1 << 20))\n"
      " r.append('cap=none')\n"
      "except OSError as e:\n r.append(f'cap={e.errno}')\n"
      "r.append(f\"pids={len([p for p in os.listdir('/proc') if p.isdigit()])}\")\n"
      "st = dict(l.split(':\\t') for l in open('/proc/self/status').read().splitlines() if ':\\t' "
      "in l)\n"
      "r.append(f\"capeff={st['CapEff']} capbnd={st['CapBnd']}\")\n"
      // A character device opens for writing (dill does so at import); /dev itself stays
      // read-only.
      "open('/dev/null', 'r+b').write(b'x'); r.append('devnull=ok')\n"
      "try:\n open('/dev/tritonrl-made-here', 'w'); r.append('devfile=ok')\n"
      "except OSError as e:\n r.append(f'devfile={e.errno}')\n"
      "os.write(4, ' '.join(r).encode())\n";
  SpawnSpec spec = Spec({TRITONRL_VENV_PYTHON, "-I", "-c", script, own.string()});
  spec.writable_dirs = {own.string()};
  spec.sandbox.scratch_bytes = 8 << 20;
  auto child = Spawn(spec);
  ASSERT_TRUE(child.ok());
  std::string said;
  char buf[512];
  for (ssize_t n; (n = read(child->from_child, buf, sizeof buf)) > 0;) said.append(buf, n);
  const Finished f = Finish(*child, std::chrono::milliseconds(5000));
  const bool outside_exists = fs::exists(base / "outside.txt");
  const bool inside_leaked = fs::exists(own / "inside.txt");
  fs::remove_all(base);
  EXPECT_EQ(f.exit.code, 0) << f.exit.ToString();
  if (getuid() != 0) {
    // Namespaces and mounts need privileges: the report must say they are missing.
    EXPECT_FALSE(f.sandbox.read_only_fs);
    EXPECT_FALSE(f.sandbox.private_proc);
    EXPECT_NE(f.sandbox.Level(), "full");
    return;
  }
  EXPECT_EQ(f.sandbox.Level(), "full");
  EXPECT_TRUE(f.sandbox.read_only_fs && f.sandbox.private_proc && f.sandbox.no_capabilities);
  // EROFS outside, ENOSPC past the 8 MiB scratch cap.
  EXPECT_EQ(said,
            "inside=ok outside=30 cap=28 pids=1 capeff=0000000000000000 capbnd=0000000000000000 "
            "devnull=ok devfile=30");
  EXPECT_FALSE(fs::exists("/dev/tritonrl-made-here"));
  EXPECT_FALSE(outside_exists);
  EXPECT_FALSE(inside_leaked);  // the scratch folder was a tmpfs of the worker's own
}

}  // namespace
}  // namespace tritonrl::eval

namespace tritonrl::eval {
namespace {

// A real worker (python/tritonrl_runner/worker.py) in a private folder, as the engine spawns it.
struct WorkerFolder {
  std::string dir;
  WorkerFolder() {
    std::string tmpl = (fs::temp_directory_path() / "tritonrl-warm-XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
    for (const char* sub : {"tmp", "home", "triton-cache"}) fs::create_directory(dir + "/" + sub);
  }
  ~WorkerFolder() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  SpawnSpec Spec() const {
    SpawnSpec s = tritonrl::eval::Spec(
        {TRITONRL_VENV_PYTHON, "-I", "-B",
         std::string(TRITONRL_SOURCE_DIR) + "/python/tritonrl_runner/worker.py", "3", "4"});
    s.env = {"HOME=" + dir + "/home",
             "TMPDIR=" + dir + "/tmp",
             "TRITON_CACHE_DIR=" + dir + "/triton-cache",
             "PATH=/usr/bin:/bin",
             "TRITON_INTERPRET=1",
             "CUDA_VISIBLE_DEVICES=",
             "OMP_NUM_THREADS=1"};
    s.cwd = dir + "/tmp";
    s.log_path = dir + "/worker.log";
    s.writable_dirs = {dir + "/tmp", dir + "/home", dir + "/triton-cache"};
    return s;
  }
};

nlohmann::json WithoutSpawn(const SandboxReport& r) {
  nlohmann::json j = r.ToJson();
  j.erase("spawn");
  return j;
}

// A worker whose request pipe closes at once fails in its main(): the same exit, the same
// sandbox, whether it was exec'd afresh or forked from the zygote.
TEST(WarmWorkerTest, SameSandboxAndExitAsACold) {
  WorkerFolder cold_dir, warm_dir;
  auto cold = Spawn(cold_dir.Spec());
  ASSERT_TRUE(cold.ok()) << cold.status().message();
  const Finished c = Finish(*cold, std::chrono::seconds(120));
  auto warm = SpawnWorker(warm_dir.Spec(), /*warm=*/true);
  ASSERT_TRUE(warm.ok()) << warm.status().message();
  EXPECT_TRUE(warm->warm);
  const Finished w = Finish(*warm, std::chrono::seconds(120));
  EXPECT_EQ(c.sandbox.spawn, "cold");
  EXPECT_EQ(w.sandbox.spawn, "warm");
  EXPECT_EQ(WithoutSpawn(w.sandbox), WithoutSpawn(c.sandbox));
  EXPECT_EQ(w.sandbox.Level(), "full");
  ASSERT_TRUE(c.exit.known && w.exit.known);
  EXPECT_EQ(w.exit.ToString(), c.exit.ToString());
  EXPECT_FALSE(w.killed);
  // A second worker comes from the same zygote.
  WorkerFolder again;
  auto second = SpawnWorker(again.Spec(), true);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->zygote_generation, warm->zygote_generation);
  EXPECT_EQ(Finish(*second, std::chrono::seconds(60)).sandbox.spawn, "warm");
  StopZygote();
}

// A warm worker that waits forever (its request pipe stays open) is killed with its group.
TEST(WarmWorkerTest, HangingWarmWorkerIsKilled) {
  WorkerFolder dir;
  auto warm = SpawnWorker(dir.Spec(), true);
  ASSERT_TRUE(warm.ok()) << warm.status().message();
  ASSERT_TRUE(warm->warm);
  const pid_t group = warm->pid;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  // Finish closes the request pipe first; keep the worker blocked by never letting it read EOF:
  // a copy of the write end held here.
  const int held = dup(warm->to_child);
  const Finished f = Finish(*warm, std::chrono::milliseconds(200));
  close(held);
  EXPECT_TRUE(f.killed);
  ASSERT_TRUE(f.exit.known);
  EXPECT_TRUE(f.exit.signaled);
  EXPECT_EQ(f.exit.signal, SIGKILL);
  // The group is gone once the zygote has reaped the relay (it does on the engine's release).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (killpg(group, 0) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_NE(killpg(group, 0), 0);
  StopZygote();
}

// Without the zygote (an interpreter that does not exist), workers start cold and say why.
TEST(WarmWorkerTest, FallsBackToColdWhenTheZygoteCannotStart) {
  WorkerFolder dir;
  SpawnSpec spec = dir.Spec();
  spec.argv[0] = dir.dir + "/no-such-python";
  auto child = SpawnWorker(spec, true);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_FALSE(child->warm);
  EXPECT_NE(child->spawn.find("cold (zygote unavailable"), std::string::npos) << child->spawn;
  const Finished f = Finish(*child, std::chrono::seconds(10));
  EXPECT_EQ(f.sandbox.spawn, child->spawn);
  EXPECT_EQ(f.exit.code, 127);  // the cold exec failed too
  StopZygote();
}

// A program that is no interpreter (the engine tests' scripted worker: it waits for a request on
// fd 3, which for a zygote is its socket) never says hello: the warm path gives up within the
// hello timeout, not the imports' five minutes, starts the worker cold and says why; the next spawn
// of the same spec does not wait for it again.
TEST(WarmWorkerTest, NoInterpreterFailsFastAndFallsBackCold) {
  WorkerFolder dir;
  SpawnSpec spec = dir.Spec();
  spec.argv[0] = FAKE_WORKER_PATH;
  const auto t0 = std::chrono::steady_clock::now();
  auto child = SpawnWorker(spec, true);
  const auto first = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_FALSE(child->warm);
  EXPECT_NE(child->spawn.find("cold (zygote unavailable: the zygote did not start (no hello"),
            std::string::npos)
      << child->spawn;
  EXPECT_LT(first, std::chrono::seconds(60));
  const Finished f = Finish(*child, std::chrono::seconds(10));
  EXPECT_EQ(f.sandbox.spawn, child->spawn);
  EXPECT_EQ(f.exit.code, 2);  // the fake worker ran cold: the request pipe closed, no request

  const auto t1 = std::chrono::steady_clock::now();
  auto again = SpawnWorker(spec, true);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::seconds(5));
  EXPECT_FALSE(again->warm);
  EXPECT_EQ(again->spawn, child->spawn);
  Finish(*again, std::chrono::seconds(10));
  StopZygote();
}

}  // namespace
}  // namespace tritonrl::eval
