// Sandboxed worker processes: spawn, talk over two pipes, kill the whole
// process group, reap, and say how the process ended.
//
// The sandbox steps themselves (src/eval/sandbox_child.h) run in the new process before any
// candidate code: setsid, PR_SET_PDEATHSIG, fds 3 (requests in) and 4 (frames out), stdout and
// stderr to a log file, every other fd closed, rlimits, unshare of the network and PID namespaces,
// a private mount namespace (the whole tree read-only except its scratch folders, size-capped
// tmpfs, a private /dev/shm, a fresh /proc in the PID namespace), every capability dropped,
// PR_SET_NO_NEW_PRIVS, and a seccomp filter compiled in the parent (BuildSeccompProgram). With a
// PID namespace the forked child stays outside as a small relay that waits for the worker (PID 1
// inside) and passes its wait status back. What the child achieved is reported on a pipe the
// candidate never holds.
//
// Two ways to start a worker (SpawnWorker): cold, fork and exec of a fresh interpreter (Spawn);
// warm, a fork of a zygote interpreter that imported torch and triton once
// (python/tritonrl_runner/zygote.py, no CUDA context), whose child applies the same sandbox steps
// before it runs the worker. A zygote that cannot start or dies is replaced, and meanwhile workers
// start cold; SandboxReport::spawn says which way each one started. Callable from any thread.
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "eval/clock.h"
#include "eval/protocol.h"
#include "eval/sandbox_child.h"

namespace tritonrl::eval {

struct SandboxOptions {
  bool enabled = true;
  bool pid_namespace = true;
  bool net_namespace = true;
  bool seccomp = true;
  bool private_proc = true;  // mount namespace + fresh /proc (needs the PID namespace)
  bool read_only_fs = true;  // mount namespace: all read-only but SpawnSpec::writable_dirs
  std::uint64_t scratch_bytes = 512ull << 20;  // size of each writable folder (a tmpfs)
  bool drop_capabilities = true;  // an empty capability set survives exec even for uid 0
  // fork() is always refused; this also refuses vfork-style spawns (CPU). The
  // GPU needs them: Triton runs ptxas and a C compiler on first launch.
  bool forbid_fork = true;
  std::uint64_t address_space_bytes = 0;  // RLIMIT_AS (CPU); 0 = unchanged
  std::uint64_t data_bytes = 0;           // RLIMIT_DATA (GPU: CUDA reserves huge PROT_NONE ranges)
  std::uint64_t file_size_bytes = 256ull << 20;
  std::uint64_t cpu_seconds = 0;
  std::uint64_t open_files = 1024;
  std::uint64_t processes = 4096;  // RLIMIT_NPROC; the kernel ignores it for root
};

// What the child put in place before exec (bit per feature).
struct SandboxReport {
  bool setsid = false;
  bool rlimits = false;
  bool pid_namespace = false;
  bool net_namespace = false;
  bool no_new_privs = false;
  bool seccomp = false;
  bool private_proc = false;
  bool read_only_fs = false;
  bool no_capabilities = false;
  bool known = false;  // a report arrived at all
  // "cold", "warm" (forked from the zygote), or "cold (zygote unavailable: why)"; with
  // "+prestarted" after "cold" or "warm" when the worker was started ahead of its sample
  // (src/eval/worker_pool.h).
  std::string spawn = "cold";
  // "full" (every feature), "partial", or "none".
  std::string Level() const;
  nlohmann::json ToJson() const;
};

struct SpawnSpec {
  std::vector<std::string> argv;  // argv[0]: the executable's path
  std::vector<std::string> env;   // the complete environment ("KEY=VALUE")
  std::string cwd;
  std::string log_path;  // stdout and stderr; empty: /dev/null
  // Under read_only_fs the only writable places: each becomes a fresh tmpfs of
  // sandbox.scratch_bytes (so many files below the file-size limit cannot fill a disk either).
  std::vector<std::string> writable_dirs;
  SandboxOptions sandbox;
  const std::vector<sock_filter>* seccomp_program = nullptr;  // from BuildSeccompProgram
};

struct Child {
  pid_t pid = -1;       // the process to wait for (the relay when there is a PID namespace)
  int to_child = -1;    // the worker's fd 3
  int from_child = -1;  // the worker's fd 4
  int report_fd = -1;   // sandbox report, relayed wait status
  bool warm = false;    // forked by the zygote: pid is the zygote's child, not ours
  std::uint64_t zygote_generation = 0;
  std::string spawn = "cold";  // SandboxReport::spawn
};

struct ExitInfo {
  bool known = false;
  bool signaled = false;
  int code = 0;
  int signal = 0;
  std::string ToString() const;
};

struct Finished {
  ExitInfo exit;
  SandboxReport sandbox;
  bool killed = false;  // we sent SIGKILL to the group
};

// The seccomp policy as a BPF program; kSelfPidPlaceholder marks where the
// child patches in its own PID (tgkill may only target itself).
inline constexpr std::uint32_t kSelfPidPlaceholder = kPlanSelfPid;
Result<std::vector<sock_filter>> BuildSeccompProgram(bool forbid_fork);

// The first call sets SIGPIPE to ignored for the whole process (a write to a worker that closed
// its pipe then fails with EPIPE); the child restores the default before exec.
Result<Child> Spawn(const SpawnSpec& spec);

// A worker for spec (its argv: python -I -B .../tritonrl_runner/worker.py 3 4, optionally followed
// by the worker's own arguments, e.g. `--prestart cpu`, which a warm worker gets too): forked from
// the process-wide zygote when `warm` (started on first use, about as long as one cold start; a
// different interpreter, runner folder or environment replaces it), else, or when the zygote is
// unavailable, Spawn(spec). Any other script always starts cold.
Result<Child> SpawnWorker(const SpawnSpec& spec, bool warm);

// Stops the zygote, if any (tests; the zygote also exits when this process ends).
void StopZygote();

Status WriteAll(int fd, std::string_view data);

enum class ReadKind { kFrame, kEof, kTimeout, kMalformed };
struct ReadResult {
  ReadKind kind = ReadKind::kEof;
  Frame frame;
  std::string error;
};
ReadResult ReadFrameUntil(int fd, std::string& buffer, Clock::time_point deadline,
                          const FrameLimits& limits = {});

// Waits up to `grace` for the child to exit by itself, then SIGKILLs its
// process group; reaps; closes the pipes.
Finished Finish(Child& child, std::chrono::milliseconds grace);

std::string SignalName(int sig);

}  // namespace tritonrl::eval
