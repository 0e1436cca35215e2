// Paired comparison of two evaluations of the same tasks, with percentile-bootstrap confidence
// intervals over tasks (an RL claim is an experiment: before and after on the same tasks, paired
// by task, with a control at learning rate 0). Each task contributes one number per evaluation
// (e.g. its pass@1: passed / samples); tasks are the resampled unit, so a task with many samples
// weighs as much as one with few, as in KernelBench's per-task averages. Pairs may come in
// blocks (one block per independent run: a seed, a lease with its own SFT and pool; docs/demo.md
// E2): with more than one block the bootstrap is two-stage, blocks drawn with replacement and
// then tasks within each drawn block, so the run-to-run spread enters the interval. Deterministic
// for a seed; pure functions, any thread.
//
//   std::vector<metrics::TaskPair> pairs = {{"t1", 0.25, 0.5}, {"t2", 0.0, 0.125}, ...};
//   metrics::PairedComparison c = metrics::ComparePaired(pairs, {});
//   // c.difference.estimate = mean(after - before); [c.difference.low, c.difference.high]
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tritonrl::metrics {

struct TaskPair {
  std::string task;
  double before = 0, after = 0;
  int block = 0;  // the independent run the pair belongs to (any ids; one block: a plain bootstrap)
};

struct Interval {
  double estimate = 0;  // the statistic on the tasks as they are
  double low = 0, high = 0;
  // Two-sided bootstrap p-value of "the mean is 0": twice the smaller share of resampled means on
  // either side of 0 (a mean of exactly 0 counts half to each side), at most 1. It inverts the
  // percentile interval: p < 1 - level where the interval excludes 0 (up to the interpolation
  // of the percentiles). For a difference; for a plain mean it says whether the mean is 0.
  double p = 1;
  bool Excludes(double x) const { return x < low || x > high; }
};

struct BootstrapOptions {
  int resamples = 10000;
  double level = 0.95;  // two-sided: the (1 - level) / 2 and (1 + level) / 2 percentiles
  uint64_t seed = 0;
};

struct PairedComparison {
  int64_t tasks = 0;
  Interval before, after, difference;  // means over tasks; difference = after - before
};

// Resamples the tasks with replacement `resamples` times (the same draw for all three means;
// two-stage where the pairs span several blocks). The estimate is the mean over all pairs. An
// empty span gives all zeros.
PairedComparison ComparePaired(std::span<const TaskPair> pairs, const BootstrapOptions& options);

// A run against its control, both paired by task on the same task list: the interval of
// mean((run.after - run.before) - (control.after - control.before)), each resample drawing the
// same tasks for both. `run` and `control` must list the same tasks in the same order (the
// caller pairs them); extra tasks of the longer are ignored. Blocks are `run`'s.
Interval DifferenceFromControl(std::span<const TaskPair> run, std::span<const TaskPair> control,
                               const BootstrapOptions& options);

// Holm's step-down adjustment of m p-values for testing them together (family-wise error at
// most alpha where adjusted p <= alpha): sorted ascending, the i-th (from 0) becomes
// max over j <= i of min(1, (m - j) p_(j)); returned in the input's order.
std::vector<double> HolmAdjusted(std::span<const double> p);

}  // namespace tritonrl::metrics
