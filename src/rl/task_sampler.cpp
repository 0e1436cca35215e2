#include "rl/task_sampler.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

namespace tritonrl::rl {
namespace {

constexpr int kStateVersion = 1;

std::string Hex64(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

std::optional<uint64_t> ParseHex64(const std::string& s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace

Result<TaskSampler> TaskSampler::Create(std::vector<SamplerTask> tasks, SamplerConfig config) {
  if (tasks.empty()) return Status::InvalidArgument("task sampler: empty task pool");
  if (!std::isfinite(config.pass_rate_ema_weight) || config.pass_rate_ema_weight <= 0 ||
      config.pass_rate_ema_weight > 1)
    return Status::InvalidArgument("task sampler: pass-rate EMA weight must be in (0, 1]");
  if (!std::isfinite(config.saturated_keep_probability) || config.saturated_keep_probability < 0 ||
      config.saturated_keep_probability > 1)
    return Status::InvalidArgument("task sampler: saturated keep probability must be in [0, 1]");

  TaskSampler s;
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!s.index_.emplace(tasks[i].id, i).second)
      return Status::InvalidArgument("task sampler: duplicate task id '" + tasks[i].id + "'");
  }
  for (const auto& [level, weight] : config.level_weights) {
    if (!std::isfinite(weight) || weight < 0)
      return Status::InvalidArgument("task sampler: weight of level " + std::to_string(level) +
                                     " must be a finite number >= 0");
    if (weight == 0) continue;
    Level l;
    l.level = level;
    l.weight = weight;
    for (size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i].level == level) l.members.push_back(i);
    if (l.members.empty())
      return Status::InvalidArgument("task sampler: level " + std::to_string(level) +
                                     " has weight " + std::to_string(weight) +
                                     " but no task in the pool");
    l.position = 0;  // order is empty: the first draw starts epoch 1
    s.levels_.push_back(std::move(l));
    s.level_weights_.push_back(weight);
  }
  if (s.levels_.empty())
    return Status::InvalidArgument("task sampler: no level has a positive weight");
  s.pass_rates_.assign(tasks.size(), std::nullopt);
  s.tasks_ = std::move(tasks);
  s.rng_ = Xoshiro256::FromSeed(config.seed);
  s.config_ = std::move(config);
  return s;
}

bool TaskSampler::Saturated(size_t task) const {
  const auto& pr = pass_rates_[task];
  return pr && (pr->rate <= 0.0 || pr->rate >= 1.0);
}

size_t TaskSampler::NextInLevel(Level& level) {
  if (level.position >= level.order.size()) {
    level.order = level.members;
    Shuffle(rng_, level.order);
    level.position = 0;
    ++level.epoch;
  }
  return level.order[level.position++];
}

const SamplerTask& TaskSampler::Next() {
  size_t li = levels_.size() == 1 ? 0 : WeightedIndex(rng_, level_weights_);
  Level& level = levels_[li];
  size_t task = NextInLevel(level);
  if (config_.prefer_learnable) {
    // Skipping consumes the task for this epoch; after a level's worth of skips
    // (every task saturated) the next one is taken regardless.
    for (size_t skips = 0; skips < level.members.size() && Saturated(task); ++skips) {
      if (UniformUnit(rng_) < config_.saturated_keep_probability) break;
      task = NextInLevel(level);
    }
  }
  return tasks_[task];
}

Status TaskSampler::RecordGroup(std::string_view task_id, int64_t passed, int64_t group_size) {
  auto it = index_.find(std::string(task_id));
  if (it == index_.end())
    return Status::NotFound("task sampler: unknown task '" + std::string(task_id) + "'");
  if (group_size <= 0 || passed < 0 || passed > group_size)
    return Status::InvalidArgument("task sampler: " + std::to_string(passed) + " passed of " +
                                   std::to_string(group_size) + " is not a group outcome");
  const double fraction = static_cast<double>(passed) / static_cast<double>(group_size);
  auto& pr = pass_rates_[it->second];
  if (!pr) {
    pr = TaskPassRate{fraction, 1};
  } else {
    // rate += w * (x - rate) keeps an all-0 or all-1 history exactly at 0 or 1.
    pr->rate += config_.pass_rate_ema_weight * (fraction - pr->rate);
    ++pr->groups;
  }
  return Status::Ok();
}

std::optional<TaskPassRate> TaskSampler::PassRate(std::string_view task_id) const {
  auto it = index_.find(std::string(task_id));
  if (it == index_.end()) return std::nullopt;
  return pass_rates_[it->second];
}

std::string TaskSampler::SaveState() const {
  nlohmann::json j;
  j["version"] = kStateVersion;
  j["rng"] = nlohmann::json::array();
  for (uint64_t w : rng_.s) j["rng"].push_back(Hex64(w));
  j["levels"] = nlohmann::json::array();
  for (const auto& l : levels_) {
    nlohmann::json order = nlohmann::json::array();
    for (size_t t : l.order) order.push_back(tasks_[t].id);
    j["levels"].push_back(
        {{"level", l.level}, {"epoch", l.epoch}, {"position", l.position}, {"order", order}});
  }
  nlohmann::json rates = nlohmann::json::object();
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (pass_rates_[i])
      rates[tasks_[i].id] = {{"rate", pass_rates_[i]->rate}, {"groups", pass_rates_[i]->groups}};
  }
  j["pass_rates"] = rates;
  return j.dump();
}

Status TaskSampler::RestoreState(std::string_view json_text) {
  auto bad = [](const std::string& why) {
    return Status::Corruption("task sampler state: " + why);
  };
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("version") || j["version"] != kStateVersion) return bad("unsupported version");

  // Build the new state aside; commit only when all of it checks out.
  Xoshiro256 rng;
  const auto& jr = j.value("rng", nlohmann::json());
  if (!jr.is_array() || jr.size() != 4) return bad("rng must be 4 hex words");
  bool nonzero = false;
  for (size_t i = 0; i < 4; ++i) {
    if (!jr[i].is_string()) return bad("rng must be 4 hex words");
    auto w = ParseHex64(jr[i].get<std::string>());
    if (!w) return bad("rng word '" + jr[i].get<std::string>() + "' is not 16 hex digits");
    rng.s[i] = *w;
    nonzero = nonzero || *w != 0;
  }
  if (!nonzero) return bad("rng state is all zero");

  std::vector<Level> levels = levels_;
  const auto& jl = j.value("levels", nlohmann::json());
  if (!jl.is_array() || jl.size() != levels.size())
    return bad("expected " + std::to_string(levels.size()) + " levels with positive weight");
  for (size_t k = 0; k < levels.size(); ++k) {
    Level& l = levels[k];
    const auto& e = jl[k];
    if (!e.is_object() || !e.contains("level") || !e["level"].is_number_integer() ||
        e["level"].get<int64_t>() != l.level)
      return bad("level " + std::to_string(k) + " is not level " + std::to_string(l.level));
    if (!e.contains("epoch") || !e["epoch"].is_number_unsigned() || !e.contains("position") ||
        !e["position"].is_number_unsigned() || !e.contains("order") || !e["order"].is_array())
      return bad("level " + std::to_string(l.level) + " lacks epoch, position or order");
    l.epoch = e["epoch"].get<uint64_t>();
    l.order.clear();
    std::set<size_t> seen;
    for (const auto& id : e["order"]) {
      if (!id.is_string()) return bad("order entries must be task ids");
      auto it = index_.find(id.get<std::string>());
      if (it == index_.end() || tasks_[it->second].level != l.level)
        return bad("task '" + id.get<std::string>() + "' is not in level " +
                   std::to_string(l.level) + " of this pool");
      if (!seen.insert(it->second).second)
        return bad("task '" + id.get<std::string>() + "' repeats in an epoch order");
      l.order.push_back(it->second);
    }
    if (!l.order.empty() && l.order.size() != l.members.size())
      return bad("level " + std::to_string(l.level) + " order has " +
                 std::to_string(l.order.size()) + " tasks, the pool has " +
                 std::to_string(l.members.size()));
    l.position = e["position"].get<size_t>();
    if (l.position > l.order.size()) return bad("position past the end of the epoch");
  }

  std::vector<std::optional<TaskPassRate>> rates(tasks_.size());
  const auto& jp = j.value("pass_rates", nlohmann::json());
  if (!jp.is_object()) return bad("pass_rates must be an object");
  for (const auto& [id, v] : jp.items()) {
    auto it = index_.find(id);
    if (it == index_.end()) return bad("pass-rate of unknown task '" + id + "'");
    if (!v.is_object() || !v.contains("rate") || !v["rate"].is_number() || !v.contains("groups") ||
        !v["groups"].is_number_integer())
      return bad("pass-rate of '" + id + "' needs rate and groups");
    double rate = v["rate"].get<double>();
    if (!(rate >= 0 && rate <= 1)) return bad("pass-rate of '" + id + "' is outside [0, 1]");
    rates[it->second] = TaskPassRate{rate, v["groups"].get<int64_t>()};
  }

  rng_ = rng;
  levels_ = std::move(levels);
  pass_rates_ = std::move(rates);
  return Status::Ok();
}

}  // namespace tritonrl::rl
