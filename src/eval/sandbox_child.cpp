#include "eval/sandbox_child.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/child_fds.h"

namespace {

bool SetLimit(int resource, std::uint64_t value) {
  if (value == 0) return true;
  struct rlimit lim;
  lim.rlim_cur = value;
  lim.rlim_max = value;
  return setrlimit(resource, &lim) == 0;
}

// The character devices a worker opens for writing: /dev/null and friends (Python's dill, which
// `import torch` loads where it is installed, opens /dev/null "r+b" at import), and the NVIDIA
// nodes CUDA opens read-write. A read-only mount refuses such an open on this project's kernels
// (6.x: EROFS, device node or not), so each is bound onto itself and that one-file mount made
// writable again. The rest of /dev stays read-only: no file can be made there.
constexpr const char* kWritableDevices[] = {
    "/dev/null",          "/dev/zero",      "/dev/full",       "/dev/random",
    "/dev/urandom",       "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
    "/dev/nvidia0",       "/dev/nvidia1",   "/dev/nvidia2",    "/dev/nvidia3",
    "/dev/nvidia4",       "/dev/nvidia5",   "/dev/nvidia6",    "/dev/nvidia7",
    "/dev/nvidia-modeset"};

void KeepDevicesWritable() {
  struct mount_attr rw = {};
  rw.attr_clr = MOUNT_ATTR_RDONLY;
  for (const char* dev : kWritableDevices) {
    // A node this machine lacks fails the bind: nothing to keep.
    if (mount(dev, dev, nullptr, MS_BIND, nullptr) != 0) continue;
    syscall(SYS_mount_setattr, AT_FDCWD, dev, 0, &rw, sizeof rw);
  }
}

// Inside a private mount namespace: every mount read-only (mount_setattr, recursive), but the
// character devices above, then a fresh size-capped tmpfs on each scratch folder and on /dev/shm.
bool MakeFilesystemReadOnly(const SandboxPlan& plan) {
  if (plan.n_dirs == 0) return false;
  struct mount_attr ro = {};
  ro.attr_set = MOUNT_ATTR_RDONLY;
  if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro) != 0) return false;
  KeepDevicesWritable();
  for (std::uint32_t i = 0; i < plan.n_dirs && i < kPlanMaxDirs; ++i) {
    if (mount("tmpfs", plan.dirs[i], "tmpfs", MS_NOSUID | MS_NODEV, plan.tmpfs_options) != 0)
      return false;
  }
  // Shared memory of other processes stays out of reach.
  mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, plan.tmpfs_options);
  return true;
}

// Empties the bounding set first (so exec cannot grant anything back, uid 0
// included), then ambient, inheritable, permitted and effective.
bool DropCapabilities() {
  for (int cap = 0; cap <= 63; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;  // past the last cap
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) return false;
  // Without privileges the bounding set cannot shrink, but exec grants nothing either.
  return getuid() != 0 || prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) == 0;
}

bool PlanValid(const SandboxPlan* plan) {
  return plan != nullptr && plan->magic == kSandboxPlanMagic &&
         plan->version == kSandboxPlanVersion && plan->size == sizeof(SandboxPlan) &&
         plan->n_dirs <= kPlanMaxDirs && plan->n_filters <= kPlanMaxFilters;
}

}  // namespace

extern "C" {

void tritonrl_sandbox_record(int fd, std::int32_t tag, std::int32_t value) {
  SandboxRecord r{tag, value};
  ssize_t n;
  do {
    n = write(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
}

int tritonrl_sandbox_begin(const SandboxPlan* plan, int in_fd, int out_fd, int report_fd,
                           int log_fd, int null_fd) {
  if (!PlanValid(plan)) return -1;
  std::int32_t bits = 0;
  if (setsid() >= 0) bits |= kBitSetsid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const tritonrl::FdMapping fds[] = {{0, null_fd}, {1, log_fd}, {2, log_fd},
                                     {3, in_fd},   {4, out_fd}, {5, report_fd}};
  if (!tritonrl::ArrangeChildFds(fds, 6)) return -1;
  fcntl(5, F_SETFD, FD_CLOEXEC);
  if (!plan->enabled) return bits;
  bool ok = SetLimit(RLIMIT_FSIZE, plan->file_size) && SetLimit(RLIMIT_NOFILE, plan->open_files) &&
            SetLimit(RLIMIT_CPU, plan->cpu_seconds) && SetLimit(RLIMIT_AS, plan->address_space) &&
            SetLimit(RLIMIT_DATA, plan->data) && SetLimit(RLIMIT_NPROC, plan->processes);
  struct rlimit no_core = {0, 0};
  ok = setrlimit(RLIMIT_CORE, &no_core) == 0 && ok;
  if (ok) bits |= kBitRlimits;
  if (plan->net_namespace && unshare(CLONE_NEWNET) == 0) bits |= kBitNetNs;
  if (plan->pid_namespace && unshare(CLONE_NEWPID) == 0) bits |= kBitPidNs;
  return bits;
}

int tritonrl_sandbox_finish(SandboxPlan* plan, int bits, int close_report) {
  if (!PlanValid(plan)) return -1;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (plan->enabled) {
    if ((plan->read_only_fs || plan->private_proc) && unshare(CLONE_NEWNS) == 0 &&
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0) {
      if (plan->read_only_fs && MakeFilesystemReadOnly(*plan)) bits |= kBitReadOnlyFs;
      // proc belongs to the PID namespace of the process that mounts it.
      if (plan->private_proc && (bits & kBitPidNs) &&
          mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0) {
        bits |= kBitPrivateProc;
      }
    }
    if (plan->drop_capabilities && DropCapabilities()) bits |= kBitNoCaps;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) bits |= kBitNoNewPrivs;
    if (plan->seccomp && plan->n_filters > 0 && (bits & kBitNoNewPrivs)) {
      const std::uint32_t self = static_cast<std::uint32_t>(getpid());
      for (std::uint32_t i = 0; i < plan->n_filters; ++i) {
        if (plan->filters[i].k == kPlanSelfPid) plan->filters[i].k = self;
      }
      struct sock_fprog fprog = {static_cast<unsigned short>(plan->n_filters), plan->filters};
      if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0) bits |= kBitSeccomp;
    }
  }
  if (plan->cwd[0] != '\0' && chdir(plan->cwd) != 0) return -1;
  tritonrl_sandbox_record(5, 'S', bits);
  if (close_report) close(5);
  return bits;
}

void tritonrl_sandbox_relay(pid_t worker) {
  close(3);
  close(4);
  int status = 0;
  while (waitpid(worker, &status, 0) < 0) {
    if (errno != EINTR) _exit(125);
  }
  tritonrl_sandbox_record(5, 'X', status);
  _exit(0);
}

}  // extern "C"
