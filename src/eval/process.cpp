#include "eval/process.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "base/sigpipe.h"

namespace tritonrl::eval {
namespace {

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

// One record on the report pipe: 'S' sandbox bits (before exec), 'X' the
// worker's wait status (from the relay), 'E' errno of a failed exec.
struct Record {
  std::int32_t tag;
  std::int32_t value;
};

void PutRecord(int fd, std::int32_t tag, std::int32_t value) {
  Record r{tag, value};
  ssize_t n;
  do {
    n = write(fd, &r, sizeof r);
  } while (n < 0 && errno == EINTR);
}

bool SetLimit(int resource, std::uint64_t value) {
  if (value == 0) return true;
  struct rlimit lim;
  lim.rlim_cur = value;
  lim.rlim_max = value;
  return setrlimit(resource, &lim) == 0;
}

// Inside a private mount namespace: every mount read-only (mount_setattr, recursive), then a
// fresh size-capped tmpfs on each scratch folder and on /dev/shm. Device nodes stay usable: a
// read-only mount does not stop writes to them.
bool MakeFilesystemReadOnly(const std::vector<std::string>& scratch, const char* tmpfs_options) {
  if (scratch.empty()) return false;
  struct mount_attr ro = {};
  ro.attr_set = MOUNT_ATTR_RDONLY;
  if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro) != 0) return false;
  for (const std::string& dir : scratch) {
    if (mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, tmpfs_options) != 0)
      return false;
  }
  // Shared memory of other processes stays out of reach.
  mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, tmpfs_options);
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

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void ChildMain(const SpawnSpec& spec, char* const* argv, char* const* envp, int in_fd,
                            int out_fd, int report_fd, int log_fd, int null_fd, sock_filter* prog,
                            unsigned short prog_len, const char* tmpfs_options) {
  std::int32_t bits = 0;
  const SandboxOptions& sb = spec.sandbox;
  if (setsid() >= 0) bits |= kBitSetsid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  RestoreSigpipeInChild();
  // Move the fds out of the way, then into place.
  const int a = fcntl(in_fd, F_DUPFD, 20), b = fcntl(out_fd, F_DUPFD, 20);
  const int c = fcntl(report_fd, F_DUPFD, 20), l = fcntl(log_fd, F_DUPFD, 20);
  const int z = fcntl(null_fd, F_DUPFD, 20);
  if (a < 0 || b < 0 || c < 0 || l < 0 || z < 0 || dup2(z, 0) < 0 || dup2(l, 1) < 0 ||
      dup2(l, 2) < 0 || dup2(a, 3) < 0 || dup2(b, 4) < 0 || dup2(c, 5) < 0) {
    _exit(126);
  }
  fcntl(5, F_SETFD, FD_CLOEXEC);
  if (syscall(SYS_close_range, 6u, ~0u, 0u) != 0) {
    for (int fd = 6; fd < 65536; ++fd) close(fd);
  }
  if (sb.enabled) {
    bool ok = SetLimit(RLIMIT_FSIZE, sb.file_size_bytes) &&
              SetLimit(RLIMIT_NOFILE, sb.open_files) && SetLimit(RLIMIT_CPU, sb.cpu_seconds) &&
              SetLimit(RLIMIT_AS, sb.address_space_bytes) && SetLimit(RLIMIT_DATA, sb.data_bytes) &&
              SetLimit(RLIMIT_NPROC, sb.processes);
    struct rlimit no_core = {0, 0};
    ok = setrlimit(RLIMIT_CORE, &no_core) == 0 && ok;
    if (ok) bits |= kBitRlimits;
    if (sb.net_namespace && unshare(CLONE_NEWNET) == 0) bits |= kBitNetNs;
    if (sb.pid_namespace && unshare(CLONE_NEWPID) == 0) {
      const pid_t worker = fork();
      if (worker > 0) {
        // The relay: stays outside the namespace, owns no worker pipe.
        close(3);
        close(4);
        int status = 0;
        while (waitpid(worker, &status, 0) < 0) {
          if (errno != EINTR) _exit(125);
        }
        PutRecord(5, 'X', status);
        _exit(0);
      }
      if (worker == 0) {
        bits |= kBitPidNs;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
      }
      // fork failed: carry on without the namespace (the report says so).
    }
    if ((sb.read_only_fs || sb.private_proc) && unshare(CLONE_NEWNS) == 0 &&
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0) {
      if (sb.read_only_fs && MakeFilesystemReadOnly(spec.writable_dirs, tmpfs_options))
        bits |= kBitReadOnlyFs;
      // proc belongs to the PID namespace of the process that mounts it.
      if (sb.private_proc && (bits & kBitPidNs) &&
          mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0) {
        bits |= kBitPrivateProc;
      }
    }
    if (sb.drop_capabilities && DropCapabilities()) bits |= kBitNoCaps;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) bits |= kBitNoNewPrivs;
    if (sb.seccomp && prog != nullptr && (bits & kBitNoNewPrivs)) {
      const std::uint32_t self = static_cast<std::uint32_t>(getpid());
      for (unsigned short i = 0; i < prog_len; ++i) {
        if (prog[i].k == kSelfPidPlaceholder) prog[i].k = self;
      }
      struct sock_fprog fprog = {prog_len, prog};
      if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0) bits |= kBitSeccomp;
    }
  }
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) _exit(126);
  PutRecord(5, 'S', bits);
  execve(argv[0], argv, envp);
  PutRecord(5, 'E', errno);
  _exit(127);
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
          {"no_capabilities", no_capabilities}};
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
  // A worker can close its end of a pipe at any moment (a candidate may do it on purpose): the
  // engine's next write must fail with EPIPE, not kill the whole run with SIGPIPE.
  IgnoreSigpipe();
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<sock_filter> prog;
  if (spec.seccomp_program) prog = *spec.seccomp_program;
  // Formatted before fork: the child may not allocate.
  const std::string tmpfs_options =
      fmt::format("size={},nr_inodes=65536,mode=0700", spec.sandbox.scratch_bytes);

  int in_pipe[2], out_pipe[2], rep_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) return Status::IoError("pipe2 failed");
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return Status::IoError("pipe2 failed");
  }
  if (pipe2(rep_pipe, O_CLOEXEC) != 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) close(fd);
    return Status::IoError("pipe2 failed");
  }
  const int log_fd = spec.log_path.empty() ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                                           : open(spec.log_path.c_str(),
                                                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto close_all = [&] {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], rep_pipe[0], rep_pipe[1],
                   log_fd, null_fd}) {
      if (fd >= 0) close(fd);
    }
  };
  if (log_fd < 0 || null_fd < 0) {
    close_all();
    return Status::IoError(fmt::format("spawn: cannot open log file {}", spec.log_path));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close_all();
    return Status::Unavailable(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ChildMain(spec, argv.data(), envp.data(), in_pipe[0], out_pipe[1], rep_pipe[1], log_fd, null_fd,
              prog.empty() ? nullptr : prog.data(), static_cast<unsigned short>(prog.size()),
              tmpfs_options.c_str());
  }
  for (int fd : {in_pipe[0], out_pipe[1], rep_pipe[1], log_fd, null_fd}) close(fd);
  Child child;
  child.pid = pid;
  child.to_child = in_pipe[1];
  child.from_child = out_pipe[0];
  child.report_fd = rep_pipe[0];
  return child;
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
  if (child.to_child >= 0) close(child.to_child);
  child.to_child = -1;
  // Detect the exit without reaping, so the group id stays reserved while we
  // kill whatever the worker left in its group.
  const auto until = Clock::now() + grace;
  siginfo_t info;
  bool exited = false;
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
  killpg(child.pid, SIGKILL);
  if (!exited) {
    kill(child.pid, SIGKILL);
    fin.killed = true;
  }
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ExitInfo direct;
  direct.known = true;
  direct.signaled = WIFSIGNALED(status);
  direct.signal = direct.signaled ? WTERMSIG(status) : 0;
  direct.code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  // Read the report pipe to its end (every writer is gone or about to be).
  bool relayed = false;
  std::string bytes;
  const auto report_until = Clock::now() + std::chrono::seconds(2);
  for (;;) {
    struct pollfd p = {child.report_fd, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char buf[256];
      const ssize_t n = read(child.report_fd, buf, sizeof buf);
      if (n <= 0) break;
      bytes.append(buf, static_cast<std::size_t>(n));
    } else if (Clock::now() >= report_until) {
      break;
    }
  }
  for (std::size_t at = 0; at + sizeof(Record) <= bytes.size(); at += sizeof(Record)) {
    Record r;
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
  if (!relayed && !fin.sandbox.pid_namespace) fin.exit = direct;
  if (!relayed && fin.sandbox.pid_namespace && fin.killed) fin.exit = direct;
  for (int* fd : {&child.from_child, &child.report_fd}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  return fin;
}

}  // namespace tritonrl::eval
