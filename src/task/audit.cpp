#include "task/audit.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "base/runner_locate.h"
#include "base/sigpipe.h"
#include "base/spawn.h"

namespace tritonrl::task {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One run of the runner process over a list of tasks.
struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
};

[[noreturn]] void RunnerMain(const PreparedExec& exec, void*) {
  ExecInChild(exec);
  dprintf(2, "cannot run %s: %s\n", exec.argv[0], std::strerror(errno));
  _exit(127);
}

Result<Child> Spawn(const std::string& python, const std::string& runner_dir) {
  int pin[2], pout[2], perr[2];
  if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0) {
    return Status::IoError(std::string("pipe: ") + std::strerror(errno));
  }
  std::string pythonpath = runner_dir;
  if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') {
    pythonpath += ":" + std::string(old);
  }
  ExecSpec exec;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (kv.starts_with("PYTHONPATH=") || kv.starts_with("PYTHONUNBUFFERED=")) continue;
    exec.env.emplace_back(kv);
  }
  exec.env.push_back("PYTHONPATH=" + pythonpath);
  exec.env.push_back("PYTHONUNBUFFERED=1");
  exec.argv = {python, "-m", "tritonrl_runner.audit"};
  exec.search_path = true;
  exec.fds = {{0, pin[0]}, {1, pout[1]}, {2, perr[1]}};
  exec.die_with_parent = true;  // the runner never outlives the command
  exec.child_main = RunnerMain;
  auto pid = ForkExec(exec);
  close(pin[0]);
  close(pout[1]);
  close(perr[1]);
  if (!pid.ok()) {
    for (int fd : {pin[1], pout[0], perr[0]}) close(fd);
    return pid.status();
  }
  return Child{*pid, pin[1], pout[0], perr[0]};
}

void WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the child died; its exit is reported from the read side
    off += static_cast<size_t>(n);
  }
}

std::string Tail(const std::string& s, size_t n) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

}  // namespace

std::vector<std::string> PassedNullModels(const AuditResult& result) {
  std::vector<std::string> out;
  if (result.detail.contains("passed_null_models") &&
      result.detail["passed_null_models"].is_array()) {
    for (const Json& n : result.detail["passed_null_models"]) {
      if (n.is_string()) out.push_back(n.get<std::string>());
    }
  }
  return out;
}

namespace {

// Audits `tasks` with one runner process at a time (a new one after a task that killed the
// last); hands each record to `record` and says when a task is over. Fails only if the runner
// cannot be started.
Status RunAuditShard(const std::vector<TaskInfo>& tasks, const AuditOptions& options,
                     const std::string& python, const std::string& runner_dir,
                     const std::function<void(AuditResult)>& record,
                     const std::function<void(const std::string&)>& task_over) {
  // A hung task gets its own alarm in the runner first; this is the backstop.
  const double grace_s = std::clamp(options.timeout_s, 5.0, 30.0);
  std::set<std::string> finished;
  size_t next = 0;  // first task not yet handed to a runner that finished it
  while (next < tasks.size()) {
    Json request;
    request["tasks"] = Json::array();
    for (size_t i = next; i < tasks.size(); ++i) {
      Json t;
      t["id"] = tasks[i].id;
      t["path"] = fs::absolute(tasks[i].path).string();
      t["level"] = tasks[i].level ? Json(*tasks[i].level) : Json(nullptr);
      request["tasks"].push_back(t);
    }
    request["variants"] = options.variants;
    request["device"] = options.device;
    request["seed"] = options.seed;
    request["timeout_s"] = options.timeout_s;
    request["max_memory_gb"] = options.max_memory_gb;

    auto child = Spawn(python, runner_dir);
    if (!child.ok()) return child.status();
    WriteAll(child->in, request.dump() + "\n");
    close(child->in);

    std::string out_buf, err_buf, current;
    bool any_event = false;
    auto task_start = Clock::now();
    bool killed = false;
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
      pollfd fds[2] = {{child->out, POLLIN, 0}, {child->err, POLLIN, 0}};
      int rc = poll(fds, 2, 1000);
      if (rc < 0 && errno != EINTR) break;
      char buf[65536];
      if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = read(child->out, buf, sizeof buf);
        if (n <= 0) {
          out_open = false;
        } else {
          out_buf.append(buf, static_cast<size_t>(n));
        }
      }
      if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = read(child->err, buf, sizeof buf);
        if (n <= 0) {
          err_open = false;
        } else {
          err_buf = Tail(err_buf + std::string(buf, static_cast<size_t>(n)), 8192);
        }
      }
      size_t nl;
      while ((nl = out_buf.find('\n')) != std::string::npos) {
        std::string line = out_buf.substr(0, nl);
        out_buf.erase(0, nl + 1);
        Json ev = Json::parse(line, nullptr, false);
        if (ev.is_discarded() || !ev.is_object() || !ev.contains("event")) {
          Json detail;
          detail["error"] = "runner protocol: unreadable record: " + line.substr(0, 200);
          record({current.empty() ? "?" : current, "*", "error", detail});
          continue;
        }
        any_event = true;
        std::string kind = ev.value("event", "");
        std::string task = ev.value("task", "");
        if (kind == "begin") {
          current = task;
          task_start = Clock::now();
        } else if (kind == "end") {
          finished.insert(task);
          task_over(task);
          current.clear();
          while (next < tasks.size() && finished.count(tasks[next].id)) ++next;
        } else if (kind == "result") {
          record({task, ev.value("variant", "*"), ev.value("status", "error"), ev});
        }
      }
      if (!current.empty() && !killed &&
          std::chrono::duration<double>(Clock::now() - task_start).count() >
              options.timeout_s + grace_s) {
        kill(child->pid, SIGKILL);
        killed = true;
      }
    }
    close(child->out);
    close(child->err);
    int wstatus = 0;
    waitpid(child->pid, &wstatus, 0);

    if (next >= tasks.size()) break;
    if (!any_event) {
      return Status::Unavailable("the audit runner (" + python + " -m tritonrl_runner.audit) " +
                                 "failed to start: " + Tail(err_buf, 2000));
    }
    // The runner stopped inside a task (killed, crashed, out of memory): report that task and
    // resume after it.
    const TaskInfo& stuck = tasks[next];
    std::string why =
        killed
            ? "killed after " + std::to_string(static_cast<int>(options.timeout_s + grace_s)) + " s"
            : (WIFSIGNALED(wstatus)
                   ? "runner died with signal " + std::to_string(WTERMSIG(wstatus))
                   : "runner exited with status " + std::to_string(WEXITSTATUS(wstatus)));
    Json detail;
    detail["error"] = why + (err_buf.empty() ? "" : ": " + Tail(err_buf, 1000));
    record({stuck.id, "*", killed ? "timeout" : "error", detail});
    task_over(stuck.id);
    finished.insert(stuck.id);
    while (next < tasks.size() && finished.count(tasks[next].id)) ++next;
  }
  return Status::Ok();
}

bool IsOutOfMemory(const AuditResult& r) {
  return r.status == "error" && r.detail.is_object() && r.detail.value("oom", false);
}

}  // namespace

Result<std::vector<AuditResult>> RunAudit(
    const std::vector<TaskInfo>& tasks, const AuditOptions& options,
    const std::function<void(const AuditResult&)>& on_result) {
  auto runner_dir = LocateRunner(options.runner_dir, "audit.py");
  if (!runner_dir.ok()) return runner_dir.status();
  auto interpreter = LocateInterpreter(options.python, *runner_dir);
  if (!interpreter.ok()) return interpreter.status();
  const std::string& python = *interpreter;

  IgnoreSigpipe();  // a runner that dies before reading its request must not kill us

  // Task i goes to shard i % jobs; records stream out as they arrive and are returned in the
  // suite's order.
  const size_t jobs = std::clamp<size_t>(options.jobs, 1, std::max<size_t>(tasks.size(), 1));
  std::vector<std::vector<TaskInfo>> shards(jobs);
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < tasks.size(); ++i) {
    shards[i % jobs].push_back(tasks[i]);
    order.emplace(tasks[i].id, i);
  }
  // A task's records are held until it is over. With several runners on one GPU a task can
  // fail for want of memory the others hold; such a task is audited again alone afterwards.
  std::mutex mu;
  std::vector<AuditResult> results;
  std::map<std::string, std::vector<AuditResult>> pending;
  std::vector<TaskInfo> retry;
  bool retrying = false;
  auto publish = [&](AuditResult r) {
    if (on_result) on_result(r);
    results.push_back(std::move(r));
  };
  auto record = [&](AuditResult r) {
    std::lock_guard<std::mutex> lock(mu);
    pending[r.task].push_back(std::move(r));
  };
  auto task_over = [&](const std::string& task) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<AuditResult> done = std::move(pending[task]);
    pending.erase(task);
    auto known = order.find(task);
    if (jobs > 1 && !retrying && known != order.end() && std::ranges::any_of(done, IsOutOfMemory)) {
      retry.push_back(tasks[known->second]);
      return;
    }
    for (AuditResult& r : done) publish(std::move(r));
  };
  std::vector<Status> status(jobs, Status::Ok());
  {
    std::vector<std::jthread> threads;
    for (size_t j = 0; j < jobs; ++j) {
      threads.emplace_back([&, j] {
        status[j] = RunAuditShard(shards[j], options, python, *runner_dir, record, task_over);
      });
    }
  }
  for (const Status& st : status) {
    if (!st.ok()) return st;
  }
  if (!retry.empty()) {
    retrying = true;
    std::ranges::sort(retry, {}, [&](const TaskInfo& t) { return order.at(t.id); });
    Status st = RunAuditShard(retry, options, python, *runner_dir, record, task_over);
    if (!st.ok()) return st;
  }
  for (auto& [task, left] : pending) {  // records of no known task (protocol errors)
    for (AuditResult& r : left) publish(std::move(r));
  }
  std::stable_sort(results.begin(), results.end(), [&](const AuditResult& a, const AuditResult& b) {
    auto ia = order.find(a.task), ib = order.find(b.task);
    size_t xa = ia == order.end() ? tasks.size() : ia->second;
    size_t xb = ib == order.end() ? tasks.size() : ib->second;
    return xa < xb;
  });
  return results;
}

}  // namespace tritonrl::task
