#include "eval/sandbox_check.h"
#include "eval/worker_spawn.h"

#include <poll.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace tritonrl::eval {
namespace fs = std::filesystem;
namespace {

std::string LastLines(const std::string& path, std::size_t max_chars) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.size() > max_chars) text = text.substr(text.size() - max_chars);
  return text;
}

// Reads from `fd` until EOF or the deadline.
std::string ReadUntilEof(int fd, Clock::time_point deadline) {
  std::string out;
  char buf[512];
  for (;;) {
    // Rounded up, as in ReadFrameUntil: truncating would stop up to 1 ms early.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return out;
    struct pollfd p = {fd, POLLIN, 0};
    const int pr = poll(&p, 1, static_cast<int>(left));
    if (pr <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

const std::vector<std::string>& SandboxFeatureNames() {
  static const std::vector<std::string> names = {"private_proc", "netns", "rofs",   "rlimits",
                                                 "pidns",        "caps",  "seccomp"};
  return names;
}

Status DisableSandboxFeatures(SandboxOptions& o, const std::string& comma_list) {
  std::stringstream ss(comma_list);
  std::string name;
  while (std::getline(ss, name, ',')) {
    if (name.empty()) continue;
    if (name == "private_proc") {
      o.private_proc = false;
    } else if (name == "rofs") {
      o.read_only_fs = false;
    } else if (name == "netns") {
      o.net_namespace = false;
    } else if (name == "rlimits") {
      o.address_space_bytes = o.data_bytes = 0;
    } else if (name == "pidns") {
      o.pid_namespace = false;
      o.private_proc = false;  // the fresh /proc belongs to the PID namespace
    } else if (name == "caps") {
      o.drop_capabilities = false;
    } else if (name == "seccomp") {
      o.seccomp = false;
    } else {
      return Status::InvalidArgument(
          fmt::format("unknown sandbox feature '{}' (known: private_proc, netns, rofs, rlimits, "
                      "pidns, caps, seccomp)",
                      name));
    }
  }
  return Status::Ok();
}

SandboxProbe RunSandboxProbe(const EngineConfig& cfg, const SandboxOptions& options,
                             const std::string& dropped) {
  SandboxProbe probe;
  probe.dropped = dropped;
  const auto t0 = Clock::now();
  std::error_code ec;
  auto dir = MakeWorkDir(cfg.work_dir);
  if (!dir.ok()) {
    probe.detail = dir.status().message();
    return probe;
  }
  const std::string tmpl = *dir;
  SpawnSpec spec = WorkerSpawnSpec(cfg, tmpl, "sandbox_probe.py",
                                   {cfg.device == "cpu" ? "cpu" : "cuda"}, "probe.log");
  spec.sandbox = options;
  auto child = Spawn(spec);
  if (!child.ok()) {
    probe.detail = child.status().message();
    fs::remove_all(tmpl, ec);
    return probe;
  }
  const std::string said = ReadUntilEof(child->from_child, Clock::now() + std::chrono::seconds(60));
  Finished fin = Finish(*child, std::chrono::seconds(5));
  probe.report = fin.sandbox;
  probe.ok = said.rfind("ok", 0) == 0 && fin.exit.known && !fin.exit.signaled && fin.exit.code == 0;
  if (probe.ok) {
    probe.detail = said.substr(0, said.find('\n'));
  } else {
    const std::string log = LastLines(spec.log_path, 600);
    probe.detail = fmt::format("{}{}{}", fin.killed ? "timed out; " : "", fin.exit.ToString(),
                               log.empty() ? "" : ": " + log);
  }
  probe.ms = MsSince(t0);
  fs::remove_all(tmpl, ec);
  return probe;
}

SandboxChoice ChooseSandbox(const EngineConfig& cfg) {
  SandboxChoice choice;
  choice.options = cfg.sandbox;
  auto attempt = [&](const SandboxOptions& options, const std::string& dropped) {
    choice.tried.push_back(RunSandboxProbe(cfg, options, dropped));
    if (choice.tried.back().ok) {
      choice.options = options;
      choice.ok = true;
    }
    return choice.ok;
  };
  if (attempt(cfg.sandbox, "")) return choice;
  // Without any sandbox: if the device fails here too, the sandbox is not the cause.
  SandboxOptions none = cfg.sandbox;
  none.enabled = false;
  const SandboxProbe bare = RunSandboxProbe(cfg, none, "all");
  if (!bare.ok) {
    choice.tried.push_back(bare);
    return choice;
  }
  const auto& names = SandboxFeatureNames();
  std::vector<std::string> settings(names.begin(), names.end());
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j)
      settings.push_back(names[i] + "," + names[j]);
  }
  for (const auto& dropped : settings) {
    SandboxOptions options = cfg.sandbox;
    (void)DisableSandboxFeatures(options, dropped);  // names from the fixed list
    if (attempt(options, dropped)) return choice;
  }
  choice.tried.push_back(bare);
  choice.options = none;
  choice.ok = true;
  return choice;
}

}  // namespace tritonrl::eval
