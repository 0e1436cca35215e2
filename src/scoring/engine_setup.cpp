#include "scoring/engine_setup.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "base/file.h"
#include "base/runner_locate.h"
#include "eval/admission.h"
#include "eval/sandbox_check.h"
#include "eval/schedule.h"
#include "verify/allowlist.h"

namespace tritonrl::scoring {

namespace fs = std::filesystem;

Result<std::string> ResolveDevice(const std::string& requested) {
  if (requested == "cpu" || requested == "cuda") return requested;
  if (requested != "auto") return Status::InvalidArgument("--device must be auto, cpu or cuda");
  std::error_code ec;
  return std::string(fs::exists("/dev/nvidia0", ec) ? "cuda" : "cpu");
}

std::string DeviceModel(const std::string& device) {
  if (device == "cpu") return "cpu";
  std::string name;
  if (FILE* p = popen("nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null", "r")) {
    char buf[256];
    while (fgets(buf, sizeof buf, p)) name += buf;
    pclose(p);
  }
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name.empty() ? "cuda" : name;
}

Status ValidateConfig(const ScoringConfig& c) {
  if (c.tasks.empty()) return Status::InvalidArgument("the task suite folder is required");
  if (c.db.empty()) return Status::InvalidArgument("the results store path is required");
  if (c.trials < 5) return Status::InvalidArgument("--trials must be at least 5");
  if (c.jobs < 1) return Status::InvalidArgument("--jobs must be at least 1");
  if (c.large_trials < 1) return Status::InvalidArgument("--large-trials must be at least 1");
  if (!(c.large_output_mb >= 0))
    return Status::InvalidArgument("--large-output-mb must not be negative");
  if (c.timing_trials < 5) return Status::InvalidArgument("--timing-trials must be at least 5");
  if (c.timing_cover_us < 0 || c.timing_cover_us > 20000)
    return Status::InvalidArgument("--timing-cover-us must be within [0, 20000]");
  if (c.baseline != "eager" && c.baseline != "compile")
    return Status::InvalidArgument("--baseline must be eager or compile");
  if (c.lazy_threshold < 0 || c.lazy_threshold > 1)
    return Status::InvalidArgument("--lazy-threshold must be within [0, 1]");
  if (!(c.slow_factor > 0) || !(c.slow_floor_s >= 0))
    return Status::InvalidArgument("--slow-factor must be positive and --slow-floor not negative");
  if (c.stage_timeout_s < 0) return Status::InvalidArgument("--stage-timeout must not be negative");
  if (!(c.idle_timeout_s >= 0))
    return Status::InvalidArgument("--idle-timeout must not be negative");
  if (c.prestart_workers < -1)
    return Status::InvalidArgument("--prestart-workers must be -1 (one per job), 0 (off) or more");
  return Status::Ok();
}

Result<eval::EngineConfig> MakeEngineConfig(const ScoringConfig& o, const std::string& device,
                                            const std::string& device_model) {
  eval::EngineConfig cfg;
  auto runner = LocateRunner(o.runner);
  if (!runner.ok()) return runner.status();
  auto python = LocateInterpreter(o.python, *runner);
  if (!python.ok()) return python.status();
  cfg.python = *python;
  cfg.runner_dir = *runner;
  cfg.device = device;
  cfg.large_variant_trials = o.large_trials;
  cfg.large_output_bytes =
      static_cast<std::uint64_t>(std::min(o.large_output_mb, 1e12) * 1024.0 * 1024.0);
  cfg.variants = o.variants;
  cfg.keep_work = o.keep_work;
  cfg.all_trials = o.all_trials || o.autotriton_check;
  cfg.warm_workers = !o.cold_workers;
  cfg.prestart_workers = o.prestart_workers;
  cfg.host_memory_budget = o.memory_budget_mb << 20;
  cfg.device_memory_budget = o.device_memory_budget_mb << 20;
  cfg.spill_budget = std::make_shared<eval::SpillBudget>();
  cfg.spill_budget->limit = o.spill_budget_mb << 20;
  cfg.memory_spill_budget = std::make_shared<eval::SpillBudget>();
  cfg.memory_spill_budget->limit = o.spill_memory_mb < 0
                                       ? eval::HostAvailableBytes().value_or(0) / 3
                                       : static_cast<std::uint64_t>(o.spill_memory_mb) << 20;
  cfg.memory_spill_budget->keep_available = 4ull << 30;
  cfg.tolerance_policy = o.tolerance;
  cfg.timing.enabled = (device == "cuda" || o.cpu_timing) && !o.no_timing;
  cfg.timing.trials = o.timing_trials;
  cfg.timing.cover_us = o.timing_cover_us;
  cfg.timing.recheck = std::max(3, o.timing_trials / 10);
  cfg.timing.baseline = o.baseline;
  cfg.timing.lazy_threshold = o.lazy_threshold;
  cfg.timing.speedup_cap = o.speedup_cap;
  cfg.timing.slow_factor = o.slow_factor;
  cfg.timing.slow_floor =
      std::chrono::milliseconds(static_cast<std::int64_t>(o.slow_floor_s * 1000));
  cfg.timing.strict = o.policy == "strict";
  cfg.timing.quiet = o.quiet_timing;
  if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis && *vis) {
    cfg.timing.device_key = "gpu-" + std::string(vis).substr(0, std::string(vis).find(','));
  }
  cfg.device_model = device_model;
  // Several Scorers of one process each get their own folder.
  static std::atomic<int> instance{0};
  const int n = instance.fetch_add(1);
  cfg.work_dir =
      !o.work_dir.empty()
          ? o.work_dir
          : (fs::path(TempFolder()) / (n == 0 ? fmt::format("tritonrl-eval-{}", getpid())
                                              : fmt::format("tritonrl-eval-{}-{}", getpid(), n)))
                .string();
  std::error_code ec;
  fs::create_directories(cfg.work_dir, ec);
  if (ec) return Status::IoError(cfg.work_dir + ": cannot create the work folder: " + ec.message());
  cfg.allowlist_path = (fs::path(cfg.work_dir) / "allowlist.json").string();
  TRITONRL_RETURN_IF_ERROR(
      WriteFileAtomic(cfg.allowlist_path, std::string(verify::BuiltinAllowlistJson())));
  cfg.sandbox.enabled = o.sandbox;
  if (device == "cpu") {
    cfg.sandbox.forbid_fork = true;
    cfg.sandbox.address_space_bytes = 6ull << 30;
  } else {
    cfg.sandbox.forbid_fork = false;  // Triton runs ptxas and a C compiler on first launch
    cfg.sandbox.data_bytes = 64ull << 30;
  }
  cfg.sandbox.cpu_seconds = 1800;
  // Diagnostics only (docs/eval.md): switch sandbox features off by name, e.g.
  // TRITONRL_SANDBOX_OFF=pidns,seccomp. Every verdict still records the level actually reached.
  if (const char* off = std::getenv("TRITONRL_SANDBOX_OFF"); off != nullptr) {
    if (auto s = eval::DisableSandboxFeatures(cfg.sandbox, off); !s.ok())
      return Status::InvalidArgument("TRITONRL_SANDBOX_OFF: " + s.message());
  }
  if (o.stage_timeout_s > 0) {
    const auto t = std::chrono::milliseconds(static_cast<long long>(o.stage_timeout_s * 1000));
    cfg.import_timeout = cfg.build_timeout = cfg.trial_timeout = t;
  }
  if (device != "cpu") {
    cfg.trial_idle_timeout =
        std::chrono::milliseconds(static_cast<long long>(std::min(o.idle_timeout_s, 1e6) * 1000));
  }
  if (cfg.sandbox.enabled && cfg.sandbox.seccomp) {
    auto prog = eval::BuildSeccompProgram(cfg.sandbox.forbid_fork);
    if (prog.ok()) {
      cfg.seccomp_program = std::move(*prog);
    } else {
      cfg.sandbox.seccomp = false;  // recorded per verdict as a degraded sandbox
    }
  }
  return cfg;
}

void DrawBatchSeeds(const ScoringConfig& config, eval::EngineConfig& engine) {
  engine.schedule = eval::MakeSchedule(config.trials, eval::DrawSecretSeed());
  engine.init_seed = static_cast<std::int64_t>(eval::DrawSecretSeed() % 1000000007ULL);
  eval::DrawTimingPlan(engine.timing, eval::DrawSecretSeed());
}

nlohmann::json RunConfigJson(const ScoringConfig& o, const std::string& device) {
  nlohmann::json j = {{"evaluator", kEvaluatorVersion},
                      {"device", device},
                      {"trials", o.trials},
                      {"large_trials", o.large_trials},
                      {"large_output_mb", o.large_output_mb},
                      {"variants", o.variants},
                      {"static", o.static_stage},
                      {"policy", o.policy},
                      {"tolerance", o.tolerance},
                      {"sandbox", o.sandbox},
                      {"stage_timeout_s", o.stage_timeout_s},
                      {"idle_timeout_s", o.idle_timeout_s},
                      {"timing_trials", o.timing_trials},
                      {"timing_cover_us", o.timing_cover_us},
                      {"baseline", o.baseline},
                      {"lazy_threshold", o.lazy_threshold},
                      {"speedup_cap", o.speedup_cap},
                      {"slow_factor", o.slow_factor},
                      {"slow_floor_s", o.slow_floor_s},
                      {"cpu_timing", o.cpu_timing},
                      {"no_timing", o.no_timing}};
  // Only when on: runs recorded before the option keep their ids and cache keys.
  if (o.autotriton_check) j["autotriton_check"] = true;
  if (o.quiet_timing) j["quiet_timing"] = true;
  return j;
}

}  // namespace tritonrl::scoring
