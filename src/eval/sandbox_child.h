// The sandbox steps that run inside a new worker process, before any candidate code: one owner for
// both ways a worker starts (docs/eval.md, "The sandbox" and "Warm workers").
//
//  * cold: the engine forks, these steps run, then exec of a fresh interpreter (process.cpp);
//  * warm: a zygote interpreter (python/tritonrl_runner/zygote.py, torch and triton imported, no
//    CUDA context) forks a child per candidate, which calls these same functions through ctypes
//    before it runs the worker's main.
//
// Built twice: into tritonrl_eval, and as the shared library tritonrl_sandbox_child that the zygote
// loads (the engine tells it the path of the copy it is itself linked with). libc only, async-
// signal-safe; every input is a SandboxPlan prepared by the engine before fork.
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <cstdint>

// Bits of the report record 'S' (what the child achieved).
enum SandboxBit : std::int32_t {
  kBitSetsid = 1,
  kBitRlimits = 2,
  kBitPidNs = 4,
  kBitNetNs = 8,
  kBitNoNewPrivs = 16,
  kBitSeccomp = 32,
  kBitPrivateProc = 64,
  kBitNoCaps = 128,
  kBitReadOnlyFs = 256,
};

// One record on the report pipe (fd 5 of the child): 'S' sandbox bits (before the worker runs),
// 'X' the worker's wait status (from the relay), 'E' errno of a failed exec.
struct SandboxRecord {
  std::int32_t tag;
  std::int32_t value;
};

inline constexpr std::uint32_t kSandboxPlanMagic = 0x54524c53;  // "SLRT"
inline constexpr std::uint32_t kSandboxPlanVersion = 1;
inline constexpr int kPlanMaxDirs = 4;
inline constexpr int kPlanPathMax = 1024;
inline constexpr int kPlanMaxFilters = 1024;
// Where the seccomp program names the child's own PID (patched in by the child).
inline constexpr std::uint32_t kPlanSelfPid = 0x7EADBEEF;

// Everything the child needs, in one flat block (sent to the zygote as bytes, as is).
struct SandboxPlan {
  std::uint32_t magic = kSandboxPlanMagic;
  std::uint32_t version = kSandboxPlanVersion;
  std::uint32_t size = sizeof(SandboxPlan);
  std::uint8_t enabled = 0, pid_namespace = 0, net_namespace = 0, seccomp = 0, private_proc = 0,
               read_only_fs = 0, drop_capabilities = 0, pad = 0;
  std::uint64_t file_size = 0, open_files = 0, cpu_seconds = 0, address_space = 0, data = 0,
                processes = 0;
  std::uint32_t n_dirs = 0;
  char dirs[kPlanMaxDirs][kPlanPathMax] = {};  // writable scratch folders (fresh tmpfs each)
  char cwd[kPlanPathMax] = {};
  char tmpfs_options[128] = {};
  std::uint32_t n_filters = 0;  // 0: no seccomp program
  sock_filter filters[kPlanMaxFilters] = {};
};

extern "C" {

// In the new child, right after fork. setsid, PR_SET_PDEATHSIG, fds: 0 /dev/null, 1 and 2 the
// log, 3 requests, 4 results, 5 the report pipe, all others closed; then (plan->enabled) rlimits,
// a network namespace and unshare(CLONE_NEWPID). Returns the bits achieved, or -1 if the fds could
// not be put in place. With kBitPidNs set the caller must fork once more: the next child is PID 1
// of the new namespace (the worker), the caller stays outside as the relay.
int tritonrl_sandbox_begin(const SandboxPlan* plan, int in_fd, int out_fd, int report_fd,
                           int log_fd, int null_fd);

// In the process that becomes the worker (after the extra fork, if any): a private mount namespace
// (read-only tree, tmpfs scratch folders and /dev/shm, a fresh /proc inside the PID namespace),
// capabilities dropped, no-new-privs, the seccomp program (own PID patched in), chdir to plan->cwd;
// then the 'S' record on fd 5. With close_report (the warm path: no exec follows that would close
// it) fd 5 is closed, so the candidate never holds it. Returns the bits, or -1 if chdir failed.
int tritonrl_sandbox_finish(SandboxPlan* plan, int bits, int close_report);

// The relay: owns no worker pipe, waits for `worker` and writes its wait status ('X') to fd 5.
[[noreturn]] void tritonrl_sandbox_relay(pid_t worker);

// Writes one record to fd (retrying on EINTR).
void tritonrl_sandbox_record(int fd, std::int32_t tag, std::int32_t value);

}  // extern "C"
