#include "metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace tritonrl::metrics {

bool IsCorrect(const SampleResult& s, const MetricsOptions& options) {
  if (!s.correct) return false;
  if (options.policy == CorrectnessPolicy::kStrict) {
    for (const auto& f : s.flags) {
      if (std::find(options.strict_flags.begin(), options.strict_flags.end(), f) !=
          options.strict_flags.end())
        return false;
    }
  }
  return true;
}

bool IsFast(const SampleResult& s, double p, const MetricsOptions& options) {
  return IsCorrect(s, options) && s.speedup.has_value() && *s.speedup > p;
}

double PassAtK(int64_t n, int64_t c, int64_t k) {
  // C(n-c, k) / C(n, k) = prod_{i=n-c+1..n} (1 - k/i): factors in (0, 1), no large
  // binomials to overflow. Summed as logs and finished with expm1 so that a small
  // pass@k (1 - a product near 1) keeps its digits.
  if (n - c < k) return 1.0;
  double log_miss = 0.0;
  for (int64_t i = n - c + 1; i <= n; ++i) {
    log_miss += std::log1p(-static_cast<double>(k) / static_cast<double>(i));
  }
  return -std::expm1(log_miss);
}

std::string FastName(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fast_%g", p);
  return buf;
}

namespace {

double Rate(int64_t count, int64_t total) {
  return total > 0 ? static_cast<double>(count) / total : 0.0;
}

}  // namespace

bool IsTaskFailure(const SampleResult& s) {
  return std::find(s.flags.begin(), s.flags.end(), vocab::flag::kReferenceFailed) != s.flags.end();
}

bool SpeedKnown(const GroupMetrics& g) {
  return g.correct == 0 || g.speedup_count > 0;
}

namespace {

// A task with any sample whose reference failed is a failed task, all its samples with it: its
// other samples' verdicts (a reference that failed once may be flaky) would give pass@k a
// different n for it than for the others.
std::vector<const SampleResult*> WithoutFailedTasks(const std::vector<const SampleResult*>& ss,
                                                    GroupMetrics& g) {
  std::set<std::string> failed;
  for (const SampleResult* s : ss)
    if (IsTaskFailure(*s)) failed.insert(s->task);
  std::vector<const SampleResult*> kept;
  for (const SampleResult* s : ss) {
    if (failed.count(s->task)) {
      ++g.failed_task_samples;
    } else {
      kept.push_back(s);
    }
  }
  g.failed_tasks = static_cast<int64_t>(failed.size());
  return kept;
}

GroupMetrics Compute(const std::string& name, int level,
                     const std::vector<const SampleResult*>& all_samples, const MetricsOptions& o) {
  GroupMetrics g;
  g.name = name;
  g.level = level;
  const std::vector<const SampleResult*> ss = WithoutFailedTasks(all_samples, g);
  g.samples = static_cast<int64_t>(ss.size());
  std::vector<int64_t> fast_counts(o.fast_p.size(), 0);
  double speed_sum = 0, log_sum = 0;
  // Per task: sample count, correct count, fast counts (for pass@k).
  struct TaskCounts {
    int64_t n = 0, correct = 0;
    std::vector<int64_t> fast;
  };
  std::map<std::string, TaskCounts> per_task;
  for (const SampleResult* s : ss) {
    bool correct = IsCorrect(*s, o);
    g.valid += s->valid;
    g.compiled += s->compiled;
    g.correct += correct;
    TaskCounts& t = per_task[s->task];
    if (t.fast.empty()) t.fast.assign(o.fast_p.size(), 0);
    ++t.n;
    t.correct += correct;
    for (size_t i = 0; i < o.fast_p.size(); ++i) {
      bool fast = IsFast(*s, o.fast_p[i], o);
      fast_counts[i] += fast;
      t.fast[i] += fast;
    }
    if (correct && s->speedup && *s->speedup > 0 && std::isfinite(*s->speedup)) {
      ++g.speedup_count;
      speed_sum += *s->speedup;
      log_sum += std::log(*s->speedup);
    }
    // Figure 5's categories; every other outcome (compile and runtime errors, timeouts,
    // resource_exhausted, incorrect) and a correct sample the strict policy fails are "other".
    const auto outcome = vocab::ParseOutcome(s->outcome);
    if (outcome == vocab::Outcome::kInvalidSyntax) {
      ++g.shares.invalid_syntax;
    } else if (outcome == vocab::Outcome::kInvalidFunctionality) {
      ++g.shares.invalid_functionality;
    } else if (outcome == vocab::Outcome::kCorrect && correct) {
      ++g.shares.correct;
      g.shares.fast += IsFast(*s, 1.0, o);
    } else {
      ++g.shares.other;
    }
  }
  g.tasks = static_cast<int64_t>(per_task.size());
  g.valid_rate = Rate(g.valid, g.samples);
  g.compiled_rate = Rate(g.compiled, g.samples);
  g.correct_rate = Rate(g.correct, g.samples);
  const bool speed_known = SpeedKnown(g);
  for (size_t i = 0; i < o.fast_p.size(); ++i) {
    g.fast_p.push_back(
        {o.fast_p[i], fast_counts[i],
         speed_known ? std::optional(Rate(fast_counts[i], g.samples)) : std::nullopt});
  }
  if (g.speedup_count > 0) {
    g.mean_speedup = speed_sum / g.speedup_count;
    g.geomean_speedup = std::exp(log_sum / g.speedup_count);
  }
  if (g.samples > 0 && speed_known) g.mean_speedup_all = speed_sum / g.samples;
  g.shares.invalid_syntax_share = Rate(g.shares.invalid_syntax, g.samples);
  g.shares.invalid_functionality_share = Rate(g.shares.invalid_functionality, g.samples);
  g.shares.correct_share = Rate(g.shares.correct, g.samples);
  g.shares.other_share = Rate(g.shares.other, g.samples);
  if (speed_known) {
    g.shares.fast_share = Rate(g.shares.fast, g.samples);
    g.shares.correct_not_fast_share = Rate(g.shares.correct - g.shares.fast, g.samples);
  }

  g.min_samples_per_task = 0;
  for (const auto& [task, t] : per_task) {
    if (g.min_samples_per_task == 0 || t.n < g.min_samples_per_task) g.min_samples_per_task = t.n;
  }
  // Criteria: correct, then each fast_p; for each, every k.
  auto add_pass = [&](const std::string& criterion, bool known, auto count_of) {
    for (int k : o.pass_k) {
      PassAtKValue v;
      v.criterion = criterion;
      v.k = k;
      // Averaging over only the tasks with enough samples would change the task mix,
      // so pass@k is reported only when every task has at least k samples.
      if (known && k >= 1 && g.tasks > 0 && g.min_samples_per_task >= k) {
        double sum = 0;
        for (const auto& [task, t] : per_task) sum += PassAtK(t.n, count_of(t), k);
        v.value = sum / static_cast<double>(g.tasks);
      }
      g.pass_at_k.push_back(std::move(v));
    }
  };
  add_pass("correct", true, [](const TaskCounts& t) { return t.correct; });
  for (size_t i = 0; i < o.fast_p.size(); ++i) {
    add_pass(FastName(o.fast_p[i]), speed_known, [i](const TaskCounts& t) { return t.fast[i]; });
  }
  return g;
}

}  // namespace

Metrics ComputeMetrics(const std::vector<SampleResult>& samples, const MetricsOptions& options) {
  Metrics m;
  m.options = options;
  std::map<int, std::vector<const SampleResult*>> by_level;
  std::vector<const SampleResult*> all;
  for (const auto& s : samples) {
    all.push_back(&s);
    if (s.level > 0) by_level[s.level].push_back(&s);
  }
  for (const auto& [level, ss] : by_level) {
    m.levels.push_back(Compute("level" + std::to_string(level), level, ss, options));
  }
  m.overall = Compute("all", 0, all, options);
  return m;
}

}  // namespace tritonrl::metrics
