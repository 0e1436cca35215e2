// Chooses the task of each RL group: a level by mixture weight (TritonRL found
// all weight on level 1 best), then the next task of that level's current epoch
// (a shuffled pass over the level without replacement). Optionally prefers tasks
// whose recent pass-rate is strictly between 0 and 1, where GRPO has a signal.
// Deterministic for a seed; SaveState/RestoreState carry everything a
// checkpoint needs to continue the identical sequence.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "rl/rng.h"

namespace tritonrl::rl {

struct SamplerTask {
  std::string id;  // e.g. "level1/1_ReLU"; unique in the pool
  int level = 1;
};

struct SamplerConfig {
  // Level -> weight (>= 0). Levels not listed get weight 0 and are never drawn.
  std::map<int, double> level_weights = {{1, 1.0}};
  uint64_t seed = 0;
  // Pass-rate EMA: rate += ema_weight * (group pass fraction - rate); the first
  // group sets the rate.
  double pass_rate_ema_weight = 0.3;
  // When on, a task whose pass-rate is known and exactly 0 or 1 is skipped (for
  // the current epoch) unless a draw with this probability keeps it.
  bool prefer_learnable = false;
  double saturated_keep_probability = 0.1;
};

struct TaskPassRate {
  double rate = 0;
  int64_t groups = 0;  // groups recorded so far
};

class TaskSampler {
 public:
  // Fails on an empty pool, duplicate ids, a bad weight or probability, or a
  // level with positive weight and no task.
  static Result<TaskSampler> Create(std::vector<SamplerTask> tasks, SamplerConfig config);

  const SamplerTask& Next();

  // Records the outcome of one group of the task: `passed` of `group_size` correct.
  Status RecordGroup(std::string_view task_id, int64_t passed, int64_t group_size);
  std::optional<TaskPassRate> PassRate(std::string_view task_id) const;

  // JSON text: RNG state, each level's epoch order and position, pass-rates.
  std::string SaveState() const;
  // Restores a state saved from a sampler over the same pool and levels;
  // on error the sampler is unchanged.
  Status RestoreState(std::string_view json_text);

  const std::vector<SamplerTask>& tasks() const { return tasks_; }

 private:
  struct Level {
    int level = 0;
    double weight = 0;
    std::vector<size_t> members;  // task indices in pool order
    std::vector<size_t> order;    // current epoch's permutation of members
    size_t position = 0;          // next index into order; == size means the epoch ended
    uint64_t epoch = 0;           // epochs started so far
  };

  TaskSampler() = default;
  bool Saturated(size_t task) const;
  size_t NextInLevel(Level& level);

  std::vector<SamplerTask> tasks_;
  std::unordered_map<std::string, size_t> index_;
  SamplerConfig config_;
  std::vector<Level> levels_;  // only levels with weight > 0, ascending level
  std::vector<double> level_weights_;
  std::vector<std::optional<TaskPassRate>> pass_rates_;
  Xoshiro256 rng_;
};

}  // namespace tritonrl::rl
