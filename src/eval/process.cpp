#include "eval/process.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"
#include "base/mutex.h"
#include "base/spawn.h"

namespace tritonrl::eval {
namespace fs = std::filesystem;
namespace {

// The plan a new worker applies (sandbox_child.h), built before fork.
Result<std::unique_ptr<SandboxPlan>> MakePlan(const SpawnSpec& spec) {
  auto plan = std::make_unique<SandboxPlan>();
  const SandboxOptions& sb = spec.sandbox;
  plan->enabled = sb.enabled;
  plan->pid_namespace = sb.pid_namespace;
  plan->net_namespace = sb.net_namespace;
  plan->seccomp = sb.seccomp;
  plan->private_proc = sb.private_proc;
  plan->read_only_fs = sb.read_only_fs;
  plan->drop_capabilities = sb.drop_capabilities;
  plan->file_size = sb.file_size_bytes;
  plan->open_files = sb.open_files;
  plan->cpu_seconds = sb.cpu_seconds;
  plan->address_space = sb.address_space_bytes;
  plan->data = sb.data_bytes;
  plan->processes = sb.processes;
  auto put = [](char* to, std::size_t cap, const std::string& from) {
    if (from.size() >= cap) return false;
    std::memcpy(to, from.c_str(), from.size() + 1);
    return true;
  };
  if (spec.writable_dirs.size() > kPlanMaxDirs)
    return Status::InvalidArgument("spawn: too many writable folders");
  for (const std::string& dir : spec.writable_dirs) {
    if (!put(plan->dirs[plan->n_dirs++], kPlanPathMax, dir))
      return Status::InvalidArgument(fmt::format("spawn: path too long: {}", dir));
  }
  if (!put(plan->cwd, kPlanPathMax, spec.cwd))
    return Status::InvalidArgument(fmt::format("spawn: path too long: {}", spec.cwd));
  put(plan->tmpfs_options, sizeof plan->tmpfs_options,
      fmt::format("size={},nr_inodes=65536,mode=0700", sb.scratch_bytes));
  if (spec.seccomp_program) {
    if (spec.seccomp_program->size() > kPlanMaxFilters)
      return Status::InvalidArgument("spawn: seccomp program too long");
    plan->n_filters = static_cast<std::uint32_t>(spec.seccomp_program->size());
    std::copy(spec.seccomp_program->begin(), spec.seccomp_program->end(), plan->filters);
  }
  return plan;
}

// The cold worker's child, after ForkExec put fds 0-5 in place: the sandbox, then exec.
[[noreturn]] void ColdChildMain(const PreparedExec& exec, void* context) {
  auto* plan = static_cast<SandboxPlan*>(context);
  int bits = tritonrl_sandbox_begin(plan, 3, 4, 5, 1, 0);
  if (bits < 0) _exit(126);
  if (bits & kBitPidNs) {
    const pid_t worker = fork();
    if (worker > 0) tritonrl_sandbox_relay(worker);
    if (worker < 0) bits &= ~kBitPidNs;  // carry on without the namespace (the report says so)
  }
  if (tritonrl_sandbox_finish(plan, bits, /*close_report=*/0) < 0) _exit(126);
  ExecInChild(exec);
  tritonrl_sandbox_record(5, 'E', errno);
  _exit(127);
}

struct Pipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, report[2] = {-1, -1};
  int log = -1, null = -1;
  // The child's ends (and the log), closed once the child holds its copies.
  void CloseChildEnds() {
    for (int* fd : {&in[0], &out[1], &report[1], &log, &null}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }
  void CloseAll() {
    CloseChildEnds();
    for (int* fd : {&in[1], &out[0], &report[0]}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }
  Child ParentEnds(pid_t pid) {
    Child child;
    child.pid = pid;
    child.to_child = std::exchange(in[1], -1);
    child.from_child = std::exchange(out[0], -1);
    child.report_fd = std::exchange(report[0], -1);
    return child;
  }
};

Result<Pipes> OpenPipes(const SpawnSpec& spec) {
  Pipes p;
  if (pipe2(p.in, O_CLOEXEC) != 0 || pipe2(p.out, O_CLOEXEC) != 0 ||
      pipe2(p.report, O_CLOEXEC) != 0) {
    p.CloseAll();
    return Status::IoError("pipe2 failed");
  }
  p.log = spec.log_path.empty()
              ? open("/dev/null", O_WRONLY | O_CLOEXEC)
              : open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  p.null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (p.log < 0 || p.null < 0) {
    p.CloseAll();
    return Status::IoError(fmt::format("spawn: cannot open log file {}", spec.log_path));
  }
  return p;
}

// ---- The zygote (warm workers) ----------------------------------------------------------------

// Messages on the zygote's SOCK_SEQPACKET socket (python/tritonrl_runner/zygote.py):
//   zygote -> engine: "hello" as its first statement (an interpreter running zygote.py; anything
//                     else, e.g. a broken venv or a binary that is no Python, fails within
//                     kZygoteHelloTimeout), "ready" once torch and triton are imported; "P<pid>"
//                     per spawn, or "F<why>".
//   engine -> zygote: "S" + u32 header length + JSON header {env} + the SandboxPlan bytes, with
//                     five fds (request read end, result write end, report write end, log, null);
//                     "R<pid>": the engine is done with that worker, reap it.
constexpr auto kZygoteHelloTimeout = std::chrono::seconds(10);  // interpreter start only
constexpr auto kZygoteStartTimeout = std::chrono::seconds(300);
constexpr auto kZygoteReplyTimeout = std::chrono::seconds(60);
constexpr int kZygoteMaxStarts = 4;  // per process: a zygote that keeps dying is given up

struct Zygote {
  base::Mutex mu;
  pid_t pid GUARDED_BY(mu) = -1;
  int sock GUARDED_BY(mu) = -1;
  std::string key GUARDED_BY(mu);
  std::string dir GUARDED_BY(mu);
  std::string failure GUARDED_BY(mu);  // why warm spawns fall back to cold (empty: none)
  // Not started again: the spec whose zygote failed to start, and the program (interpreter and
  // script) that never said hello, whatever the environment.
  std::string failed_key GUARDED_BY(mu);
  std::string failed_program GUARDED_BY(mu);
  std::uint64_t generation GUARDED_BY(mu) = 0;
  int starts GUARDED_BY(mu) = 0;

  void StopLocked() REQUIRES(mu) {
    if (sock >= 0) close(sock);  // the zygote exits on EOF; its children die with it
    sock = -1;
    if (pid > 0) {
      kill(pid, SIGKILL);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    pid = -1;
    if (!dir.empty()) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
    dir.clear();
    key.clear();
  }
  // At static destruction, unlocked as before: a thread still spawning at exit must not hang it.
  ~Zygote() NO_THREAD_SAFETY_ANALYSIS { StopLocked(); }
};

Zygote& TheZygote() {
  static Zygote z;
  return z;
}

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool PerWorkerEnv(const std::string& kv) {
  return StartsWith(kv, "HOME=") || StartsWith(kv, "TMPDIR=") ||
         StartsWith(kv, "TRITON_CACHE_DIR=");
}

// Receives one message, waiting until the deadline. Empty with ok: EOF.
Result<std::string> ReceiveMessage(int sock, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Status::Unavailable("no answer in time");
    struct pollfd p = {sock, POLLIN, 0};
    const int pr = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (pr < 0 && errno != EINTR) return Status::IoError(std::strerror(errno));
    if (pr <= 0) continue;
    char buf[512];
    const ssize_t n = recv(sock, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Status::IoError(std::strerror(errno));
    }
    return std::string(buf, static_cast<std::size_t>(n));
  }
}

// The shared library holding the sandbox steps (the copy this process is linked with).
std::string SandboxLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&tritonrl_sandbox_begin), &info) == 0 ||
      info.dli_fname == nullptr)
    return "";
  std::error_code ec;
  const fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? "" : p.string();
}

// Where the runner's worker script sits in a spec's argv (`python ... worker.py 3 4 [args]`), or
// -1 for any other program. What follows "3 4" (a pre-started worker's `--prestart DEVICE`) goes
// to the worker's main as it would on a command line.
int WorkerScriptIndex(const SpawnSpec& spec) {
  for (std::size_t i = 1; i + 2 < spec.argv.size(); ++i) {
    if (fs::path(spec.argv[i]).filename() == "worker.py" && spec.argv[i + 1] == "3" &&
        spec.argv[i + 2] == "4")
      return static_cast<int>(i);
  }
  return -1;
}

// The interpreter and the worker script of a worker spec.
std::string ProgramOf(const SpawnSpec& spec) {
  return spec.argv[0] + "\n" + spec.argv[static_cast<std::size_t>(WorkerScriptIndex(spec))];
}

// Starts a zygote for `spec` (z.mu held). Sets z.failure on failure.
void StartZygoteLocked(Zygote& z, const SpawnSpec& spec, const std::string& key) REQUIRES(z.mu) {
  z.StopLocked();
  ++z.starts;
  ++z.generation;
  const std::string lib = SandboxLibraryPath();
  if (lib.empty() || lib.find(".so") == std::string::npos) {
    z.failure = "the sandbox library (libtritonrl_sandbox_child.so) was not found";
    return;
  }
  const fs::path script =
      fs::path(spec.argv[static_cast<std::size_t>(WorkerScriptIndex(spec))]).parent_path() /
      "zygote.py";
  std::error_code ec;
  // Its own folder under TMPDIR, not in the work folder of the scorer that happened to start it:
  // the zygote outlives that scorer (it serves the whole process), and a folder of its inside
  // would keep the scorer from removing its work folder when it ends.
  const fs::path work = TempFolder();
  std::string tmpl = (work / "tritonrl-zygote-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    z.failure = fmt::format("cannot create a folder in {}", work.string());
    return;
  }
  z.dir = tmpl;
  for (const char* sub : {"tmp", "home", "triton-cache"})
    fs::create_directory(z.dir + "/" + sub, ec);
  ExecSpec exec;
  exec.argv = {spec.argv[0], "-I", "-B", script.string(), "3", lib};
  for (const std::string& kv : spec.env) {
    if (!PerWorkerEnv(kv)) exec.env.push_back(kv);
  }
  exec.env.push_back("HOME=" + z.dir + "/home");
  exec.env.push_back("TMPDIR=" + z.dir + "/tmp");
  exec.env.push_back("TRITON_CACHE_DIR=" + z.dir + "/triton-cache");
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    z.failure = fmt::format("socketpair: {}", std::strerror(errno));
    return;
  }
  const int log =
      open((z.dir + "/zygote.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  exec.fds = {{0, null}, {1, log}, {2, log}, {3, sv[1]}};
  exec.new_session = true;
  // Shared by every pool thread: it must outlive the thread that happened to start it. It exits
  // when its socket closes (this process ended).
  exec.die_with_parent = false;
  auto pid = log >= 0 && null >= 0 ? ForkExec(exec) : Status::IoError("cannot open the zygote log");
  for (int fd : {sv[1], log, null}) {
    if (fd >= 0) close(fd);
  }
  if (!pid.ok()) {
    close(sv[0]);
    z.failure = pid.status().message();
    return;
  }
  z.pid = *pid;
  z.sock = sv[0];
  // Two steps, so that a program that is no working interpreter (it never says hello) fails in
  // seconds, not after the imports' long allowance.
  auto ready = ReceiveMessage(z.sock, Clock::now() + kZygoteHelloTimeout);
  const bool hello = ready.ok() && *ready == "hello";
  if (hello) ready = ReceiveMessage(z.sock, Clock::now() + kZygoteStartTimeout);
  if (!ready.ok() || *ready != "ready") {
    std::string log_tail;
    std::ifstream in(z.dir + "/zygote.log");
    std::stringstream ss;
    ss << in.rdbuf();
    log_tail = ss.str();
    if (log_tail.size() > 300) log_tail = "..." + log_tail.substr(log_tail.size() - 300);
    const std::string what =
        ready.ok() ? (ready->empty() ? "exited" : "said '" + ready->substr(0, 40) + "'")
                   : ready.status().message();
    z.failure = fmt::format("the zygote did not start ({}{}){}", hello ? "" : "no hello: ", what,
                            log_tail.empty() ? "" : ": " + log_tail);
    z.StopLocked();
    // The same interpreter, script and environment would fail the same way: later spawns of
    // this spec go cold at once instead of waiting for it again.
    z.failed_key = key;
    if (!hello) z.failed_program = ProgramOf(spec);
    return;
  }
  z.key = key;
  z.failure.clear();
}

// Asks the zygote for a worker (z.mu held). On error the zygote is stopped.
Result<Child> ForkFromZygoteLocked(Zygote& z, const SpawnSpec& spec) REQUIRES(z.mu) {
  auto plan = MakePlan(spec);
  if (!plan.ok()) return plan.status();
  auto pipes = OpenPipes(spec);
  if (!pipes.ok()) return pipes.status();
  const auto args_from = spec.argv.begin() + WorkerScriptIndex(spec) + 3;
  nlohmann::json header = {{"env", spec.env},
                           {"args", std::vector<std::string>(args_from, spec.argv.end())}};
  const std::string text = header.dump();
  std::string message = "S";
  const std::uint32_t length = static_cast<std::uint32_t>(text.size());
  message.append(reinterpret_cast<const char*>(&length), sizeof length);
  message += text;
  message.append(reinterpret_cast<const char*>(plan->get()), sizeof(SandboxPlan));
  const int fds[5] = {pipes->in[0], pipes->out[1], pipes->report[1], pipes->log, pipes->null};
  char control[CMSG_SPACE(sizeof fds)] = {};
  struct iovec iov = {message.data(), message.size()};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  struct cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof fds);
  std::memcpy(CMSG_DATA(cm), fds, sizeof fds);
  ssize_t sent;
  do {
    sent = sendmsg(z.sock, &msg, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  pipes->CloseChildEnds();
  auto fail = [&](std::string why) -> Status {
    z.mu.AssertHeld();  // called from this function only, under its lock
    pipes->CloseAll();
    z.StopLocked();
    z.failure = std::move(why);
    return Status::Unavailable(z.failure);
  };
  if (sent != static_cast<ssize_t>(message.size()))
    return fail(fmt::format("the zygote stopped taking requests ({})", std::strerror(errno)));
  auto reply = ReceiveMessage(z.sock, Clock::now() + kZygoteReplyTimeout);
  if (!reply.ok()) return fail("the zygote did not answer: " + reply.status().message());
  if (reply->empty()) return fail("the zygote exited");
  if ((*reply)[0] != 'P') return fail("the zygote could not fork: " + reply->substr(1, 200));
  pid_t pid = 0;
  try {
    pid = static_cast<pid_t>(std::stol(reply->substr(1)));
  } catch (const std::exception&) {
    return fail("the zygote's answer is malformed");
  }
  if (pid <= 0) return fail("the zygote's answer is malformed");
  Child child = pipes->ParentEnds(pid);
  child.warm = true;
  child.zygote_generation = z.generation;
  child.spawn = "warm";
  return child;
}

// The zygote no longer needs to keep `pid` unreaped (its process group is dead).
void ReleaseWarm(pid_t pid, std::uint64_t generation) {
  Zygote& z = TheZygote();
  base::MutexLock lock(&z.mu);
  if (z.sock < 0 || z.generation != generation) return;  // that zygote and its children are gone
  const std::string msg = fmt::format("R{}", pid);
  (void)send(z.sock, msg.data(), msg.size(), MSG_NOSIGNAL);
}

}  // namespace

std::string SandboxReport::Level() const {
  if (!known) return "none";
  const bool all = setsid && rlimits && pid_namespace && net_namespace && no_new_privs && seccomp &&
                   private_proc && read_only_fs && no_capabilities;
  const bool any = rlimits || pid_namespace || net_namespace || no_new_privs || seccomp ||
                   private_proc || read_only_fs || no_capabilities;
  return all ? "full" : any ? "partial" : "none";
}

nlohmann::json SandboxReport::ToJson() const {
  return {{"level", Level()},
          {"process_group", setsid},
          {"rlimits", rlimits},
          {"pid_namespace", pid_namespace},
          {"net_namespace", net_namespace},
          {"no_new_privs", no_new_privs},
          {"seccomp", seccomp},
          {"private_proc", private_proc},
          {"read_only_fs", read_only_fs},
          {"no_capabilities", no_capabilities},
          {"spawn", spawn}};
}

std::string ExitInfo::ToString() const {
  if (!known) return "unknown exit";
  if (signaled) return fmt::format("killed by {}", SignalName(signal));
  return fmt::format("exit code {}", code);
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

Result<std::vector<sock_filter>> BuildSeccompProgram(bool forbid_fork) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return Status::Unavailable("seccomp_init failed");
  int rc = 0;
  auto deny = [&](int nr, int err) {
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(static_cast<std::uint16_t>(err)), nr, 0);
  };
  // No tracing or reading of other processes, no escape from the group or namespaces.
  for (int nr : {SCMP_SYS(ptrace),
                 SCMP_SYS(process_vm_readv),
                 SCMP_SYS(process_vm_writev),
                 SCMP_SYS(kcmp),
                 SCMP_SYS(pidfd_open),
                 SCMP_SYS(pidfd_getfd),
                 SCMP_SYS(pidfd_send_signal),
                 SCMP_SYS(rt_sigqueueinfo),
                 SCMP_SYS(rt_tgsigqueueinfo),
                 SCMP_SYS(tkill),
                 SCMP_SYS(setsid),
                 SCMP_SYS(setpgid),
                 SCMP_SYS(unshare),
                 SCMP_SYS(setns),
                 SCMP_SYS(mount),
                 SCMP_SYS(umount2),
                 SCMP_SYS(chroot),
                 SCMP_SYS(pivot_root),
                 SCMP_SYS(bpf),
                 SCMP_SYS(keyctl),
                 SCMP_SYS(add_key),
                 SCMP_SYS(request_key),
                 SCMP_SYS(init_module),
                 SCMP_SYS(finit_module),
                 SCMP_SYS(delete_module),
                 SCMP_SYS(reboot),
                 SCMP_SYS(kexec_load),
                 SCMP_SYS(swapon),
                 SCMP_SYS(swapoff),
                 SCMP_SYS(userfaultfd)}) {
    deny(nr, EPERM);
  }
  // kill() only to the own process group (pid 0); tgkill only to itself.
  if (rc == 0)
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, 0));
  if (rc == 0) {
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), 1,
                          SCMP_A0(SCMP_CMP_NE, kSelfPidPlaceholder));
  }
  // No IP or raw networking (the network namespace is the second layer).
  for (int family : {AF_INET, AF_INET6, AF_PACKET}) {
    if (rc == 0) {
      rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                            SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
    }
  }
  // New processes: fork() never (a fork bomb fails at once); clone only for
  // threads, plus vfork-style spawns (posix_spawn, subprocess) when allowed,
  // because Triton runs ptxas and a C compiler on the GPU.
  deny(SCMP_SYS(fork), EAGAIN);
  // clone3 hides its flags in memory: ENOSYS makes glibc fall back to clone.
  deny(SCMP_SYS(clone3), ENOSYS);
  if (forbid_fork) deny(SCMP_SYS(vfork), EAGAIN);
  const scmp_datum_t allowed = CLONE_THREAD | (forbid_fork ? 0 : CLONE_VFORK);
  if (rc == 0) {
    rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAGAIN), SCMP_SYS(clone), 1,
                          SCMP_A0(SCMP_CMP_MASKED_EQ, allowed, 0));
  }
  if (rc != 0) {
    seccomp_release(ctx);
    return Status::Internal(fmt::format("seccomp_rule_add: {}", std::strerror(-rc)));
  }
  const int mfd = memfd_create("tritonrl-seccomp", MFD_CLOEXEC);
  if (mfd < 0) {
    seccomp_release(ctx);
    return Status::IoError("memfd_create failed");
  }
  rc = seccomp_export_bpf(ctx, mfd);
  seccomp_release(ctx);
  const off_t size = lseek(mfd, 0, SEEK_END);
  if (rc != 0 || size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
    close(mfd);
    return Status::Internal("seccomp_export_bpf failed");
  }
  std::vector<sock_filter> prog(static_cast<std::size_t>(size) / sizeof(sock_filter));
  const ssize_t n = pread(mfd, prog.data(), static_cast<std::size_t>(size), 0);
  close(mfd);
  if (n != size) return Status::IoError("reading the seccomp program failed");
  return prog;
}

Result<Child> Spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) return Status::InvalidArgument("spawn: empty argv");
  auto plan = MakePlan(spec);
  if (!plan.ok()) return plan.status();
  auto pipes = OpenPipes(spec);
  if (!pipes.ok()) return pipes.status();
  ExecSpec exec;
  exec.argv = spec.argv;
  exec.env = spec.env;
  exec.fds = {{0, pipes->null},  {1, pipes->log},    {2, pipes->log},
              {3, pipes->in[0]}, {4, pipes->out[1]}, {5, pipes->report[1]}};
  exec.new_session = false;      // the sandbox's first step (its report says whether it worked)
  exec.die_with_parent = false;  // ditto
  exec.child_main = ColdChildMain;
  exec.context = plan->get();
  auto pid = ForkExec(exec);
  pipes->CloseChildEnds();
  if (!pid.ok()) {
    pipes->CloseAll();
    return pid.status();
  }
  return pipes->ParentEnds(*pid);
}

Result<Child> SpawnWorker(const SpawnSpec& spec, bool warm) {
  if (!warm || WorkerScriptIndex(spec) < 0) return Spawn(spec);
  Zygote& z = TheZygote();
  std::string why;
  {
    base::MutexLock lock(&z.mu);
    std::string key = ProgramOf(spec);
    for (const std::string& kv : spec.env) {
      if (!PerWorkerEnv(kv)) key += "\n" + kv;
    }
    if (z.key != key && z.failed_key != key && z.failed_program != ProgramOf(spec) &&
        z.starts < kZygoteMaxStarts)
      StartZygoteLocked(z, spec, key);
    if (z.key == key) {
      auto child = ForkFromZygoteLocked(z, spec);
      if (child.ok()) return child;
    }
    why = z.failure.empty() ? "the zygote kept failing" : z.failure;
  }
  auto child = Spawn(spec);
  if (child.ok()) child->spawn = fmt::format("cold (zygote unavailable: {})", why);
  return child;
}

void StopZygote() {
  Zygote& z = TheZygote();
  base::MutexLock lock(&z.mu);
  z.StopLocked();
  z.starts = 0;
  z.failure.clear();
  z.failed_key.clear();
  z.failed_program.clear();
}

Status WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(fmt::format("write to worker: {}", std::strerror(errno)));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

ReadResult ReadFrameUntil(int fd, std::string& buffer, Clock::time_point deadline,
                          const FrameLimits& limits) {
  ReadResult result;
  char chunk[1 << 16];
  for (;;) {
    auto taken = TakeFrame(buffer, limits);
    if (!taken.ok()) {
      result.kind = ReadKind::kMalformed;
      result.error = taken.status().message();
      return result;
    }
    if (taken->has_value()) {
      result.kind = ReadKind::kFrame;
      result.frame = std::move(**taken);
      return result;
    }
    // Rounded up: a truncated wait would declare the timeout up to 1 ms before the deadline.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.kind = ReadKind::kTimeout;
      return result;
    }
    struct pollfd p = {fd, POLLIN, 0};
    const int pr = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (pr < 0 && errno != EINTR) {
      result.kind = ReadKind::kEof;
      result.error = std::strerror(errno);
      return result;
    }
    if (pr <= 0) continue;
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      result.kind = ReadKind::kEof;
      result.error = std::strerror(errno);
      return result;
    }
    if (n == 0) {
      result.kind = ReadKind::kEof;
      if (!buffer.empty())
        result.error = fmt::format("{} trailing bytes (a truncated frame)", buffer.size());
      return result;
    }
    buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

Finished Finish(Child& child, std::chrono::milliseconds grace) {
  Finished fin;
  fin.sandbox.spawn = child.spawn;
  if (child.to_child >= 0) close(child.to_child);
  child.to_child = -1;
  const auto until = Clock::now() + grace;
  std::string bytes;
  // Reads the report pipe until EOF (every writer gone: the relay has written the worker's status
  // and exited) or the deadline; true at EOF.
  const auto read_report = [&](Clock::time_point deadline) {
    for (;;) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      struct pollfd p = {child.report_fd, POLLIN, 0};
      const int pr = poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 0, 100)));
      if (pr > 0) {
        char buf[256];
        const ssize_t n = read(child.report_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
        bytes.append(buf, static_cast<std::size_t>(n));
      } else if (Clock::now() >= deadline) {
        return false;
      }
    }
  };
  bool exited = false;
  if (child.warm) {
    // Not our child: its end shows as the report pipe's EOF. The zygote keeps it unreaped (so the
    // group id stays reserved) until ReleaseWarm below.
    exited = read_report(until);
  } else {
    // Detect the exit without reaping, so the group id stays reserved while we
    // kill whatever the worker left in its group.
    siginfo_t info;
    for (;;) {
      std::memset(&info, 0, sizeof info);
      if (waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid != 0) {
        exited = true;
        break;
      }
      if (Clock::now() >= until) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  killpg(child.pid, SIGKILL);
  if (!exited) {
    if (!child.warm) kill(child.pid, SIGKILL);
    fin.killed = true;
  }
  ExitInfo direct;
  if (child.warm) {
    direct.known = fin.killed;
    direct.signaled = fin.killed;
    direct.signal = fin.killed ? SIGKILL : 0;
  } else {
    int status = 0;
    while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    direct.known = true;
    direct.signaled = WIFSIGNALED(status);
    direct.signal = direct.signaled ? WTERMSIG(status) : 0;
    direct.code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  }
  // Read the report pipe to its end (every writer is gone or about to be).
  bool relayed = false;
  read_report(Clock::now() + std::chrono::seconds(2));
  if (child.warm) ReleaseWarm(child.pid, child.zygote_generation);
  for (std::size_t at = 0; at + sizeof(SandboxRecord) <= bytes.size();
       at += sizeof(SandboxRecord)) {
    SandboxRecord r;
    std::memcpy(&r, bytes.data() + at, sizeof r);
    if (r.tag == 'S') {
      fin.sandbox.known = true;
      fin.sandbox.setsid = r.value & kBitSetsid;
      fin.sandbox.rlimits = r.value & kBitRlimits;
      fin.sandbox.pid_namespace = r.value & kBitPidNs;
      fin.sandbox.net_namespace = r.value & kBitNetNs;
      fin.sandbox.no_new_privs = r.value & kBitNoNewPrivs;
      fin.sandbox.seccomp = r.value & kBitSeccomp;
      fin.sandbox.private_proc = r.value & kBitPrivateProc;
      fin.sandbox.read_only_fs = r.value & kBitReadOnlyFs;
      fin.sandbox.no_capabilities = r.value & kBitNoCaps;
    } else if (r.tag == 'X') {
      relayed = true;
      fin.exit.known = true;
      fin.exit.signaled = WIFSIGNALED(r.value);
      fin.exit.signal = fin.exit.signaled ? WTERMSIG(r.value) : 0;
      fin.exit.code = WIFEXITED(r.value) ? WEXITSTATUS(r.value) : 0;
    } else if (r.tag == 'E') {
      fin.exit.known = true;
      fin.exit.code = 127;
      relayed = true;
    }
  }
  if (!relayed && (child.warm || !fin.sandbox.pid_namespace)) fin.exit = direct;
  if (!relayed && fin.sandbox.pid_namespace && fin.killed) fin.exit = direct;
  for (int* fd : {&child.from_child, &child.report_fd}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  return fin;
}

}  // namespace tritonrl::eval
