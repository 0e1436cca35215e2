// Evaluation metrics over per-sample results: valid/compiled/correct rates, fast_p,
// speedup means, unbiased pass@k, and TritonRL Figure 5 outcome shares, per level and
// overall. Exact definitions and the reasons for them: docs/metrics.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vocab/verdict_vocab.h"

namespace tritonrl::metrics {

// One evaluated sample, as the metrics see it.
struct SampleResult {
  std::string task;                // task id; samples of one task are grouped for pass@k
  int level = 0;                   // 1, 2, 3...; 0 = unknown (counted only in the overall group)
  std::string outcome;             // vocab::OutcomeName (invalid_syntax, ..., correct)
  bool valid = false;              // passed the syntax and functionality checks
  bool compiled = false;           // the candidate's kernels compiled and ran
  bool correct = false;            // the evaluator's correctness verdict
  std::optional<double> speedup;   // reference time / candidate time; none if not timed
  std::vector<std::string> flags;  // lazy_optimization, timing_inconsistent, ...
};

enum class CorrectnessPolicy {
  kStandard,  // correct = the evaluator's correct bit
  kStrict,    // additionally: no flag from MetricsOptions::strict_flags
};

struct MetricsOptions {
  std::vector<double> fast_p = {1.0, 2.0};  // thresholds p for fast_p (speedup > p)
  std::vector<int> pass_k = {1, 5, 10};     // k values for pass@k
  CorrectnessPolicy policy = CorrectnessPolicy::kStandard;
  std::vector<std::string> strict_flags = vocab::StrictFailFlags();
};

// A sample counts as correct under the options' policy.
bool IsCorrect(const SampleResult& s, const MetricsOptions& options);
// Correct under the policy and speedup > p (strictly, as KernelBench's fast_p).
bool IsFast(const SampleResult& s, double p, const MetricsOptions& options);

// Unbiased pass@k for one task with n samples of which c pass: 1 - C(n-c,k)/C(n,k), computed
// as the product 1 - prod_{i=n-c+1..n} (1 - k/i). Requires 0 <= c <= n and 1 <= k <= n.
double PassAtK(int64_t n, int64_t c, int64_t k);

// TritonRL Figure 5 categories, shares of all samples in the group (sum to 1 if any sample).
struct OutcomeShares {
  int64_t invalid_syntax = 0, invalid_functionality = 0, correct = 0, other = 0;
  double invalid_syntax_share = 0, invalid_functionality_share = 0, correct_share = 0,
         other_share = 0;
  // The correct class split by speed: `fast` of them are faster than the reference (IsFast at
  // p = 1, TritonRL's fast1), the rest are correct but not fast. The two shares add up to
  // correct_share; unknown (nullopt) where the group's speed is (SpeedKnown).
  int64_t fast = 0;
  std::optional<double> correct_not_fast_share, fast_share;
};

// fast_p at one threshold: share of all samples that are correct and faster than p.
// Unknown (rate nullopt) where the group has correct samples and none of them was timed (a CPU
// run, timing off): 0 would claim that nothing was fast. SpeedKnown says which groups.
struct FastP {
  double p = 0;
  int64_t count = 0;
  std::optional<double> rate;
};

// pass@k of one criterion ("correct" or "fast_<p>"), averaged over tasks.
struct PassAtKValue {
  std::string criterion;  // "correct", "fast_1", "fast_2", "fast_1.5", ...
  int k = 0;
  std::optional<double> value;  // nullopt: some task has fewer than k samples (not available)
};

struct GroupMetrics {
  std::string name;  // "level1", "level2", ..., "all"
  int level = 0;     // 0 for "all"
  // Tasks whose reference could not run (a sample flagged vocab::flag::kReferenceFailed) and
  // their samples: the task's failure, not the samples'. Left out of every figure below, the
  // counts and every denominator included (IsTaskFailure).
  int64_t failed_tasks = 0, failed_task_samples = 0;
  int64_t samples = 0, tasks = 0;  // the tasks and samples counted (failed tasks' left out)
  int64_t min_samples_per_task = 0;
  int64_t valid = 0, compiled = 0, correct = 0;
  double valid_rate = 0, compiled_rate = 0, correct_rate = 0;  // over all samples
  std::vector<FastP> fast_p;                                   // one per MetricsOptions::fast_p
  int64_t speedup_count = 0;           // correct samples with a speedup > 0 (the mean's population)
  std::optional<double> mean_speedup;  // arithmetic mean over correct, timed samples
  std::optional<double> geomean_speedup;  // geometric mean over the same samples
  // Sum of those speedups / all samples (0 for others); nullopt where speed is unknown.
  std::optional<double> mean_speedup_all;
  std::vector<PassAtKValue> pass_at_k;  // for each criterion (correct, each fast_p) and k
  OutcomeShares shares;
};

struct Metrics {
  MetricsOptions options;
  std::vector<GroupMetrics> levels;  // levels present, ascending (level 0 excluded)
  GroupMetrics overall;              // all samples
};

// The sample's task failed (its reference could not run): the flag reference_failed.
bool IsTaskFailure(const SampleResult& s);

// Whether the group's speed figures (fast_p, their pass@k, mean_speedup_all) are known: no
// correct sample (then nothing is fast), or at least one correct sample timed.
bool SpeedKnown(const GroupMetrics& g);

Metrics ComputeMetrics(const std::vector<SampleResult>& samples,
                       const MetricsOptions& options = {});

// Name of the fast_p criterion for threshold p: "fast_1", "fast_2", "fast_1.5".
std::string FastName(double p);

}  // namespace tritonrl::metrics
