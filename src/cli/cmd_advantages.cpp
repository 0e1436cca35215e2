// `tritonrl advantages`: rewards and GRPO advantages for a JSONL file of
// rollouts (schema in docs/rl.md). All output is computed before any is
// written, so a bad line leaves no partial output.
#include <cstdio>
#include <memory>
#include <string>

#include "base/file.h"
#include "cli/command.h"
#include "rl/rollouts_jsonl.h"

namespace {

struct AdvantagesOptions {
  std::string in;
  std::string out;
  std::string mode = "hrd";
  double alpha = 0.1;
  double beta = 0.3;
  double clip = 2.0;
  double eps = 1e-6;
  bool no_std = false;
  bool no_filter = false;
};

int RunAdvantages(const AdvantagesOptions& o) {
  using namespace tritonrl;
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "tritonrl advantages: error: %s\n", s.message().c_str());
    return 2;
  };
  auto mode = rl::ParseAdvantageMode(o.mode);
  if (!mode.ok()) return fail(mode.status());
  rl::RewardConfig reward_config;
  reward_config.speedup_clip = o.clip;
  rl::AdvantageConfig adv_config;
  adv_config.mode = *mode;
  adv_config.alpha = o.alpha;
  adv_config.beta = o.beta;
  adv_config.eps = o.eps;
  adv_config.normalize_by_std = !o.no_std;
  adv_config.filter_constant_groups = !o.no_filter;
  if (auto s = rl::ValidateRewardConfig(reward_config); !s.ok()) return fail(s);
  if (auto s = rl::ValidateAdvantageConfig(adv_config); !s.ok()) return fail(s);

  auto text = ReadFile(o.in);
  if (!text.ok()) return fail(text.status());
  auto records = rl::ParseRolloutsJsonl(*text, o.in);
  if (!records.ok()) return fail(records.status());
  auto result = rl::ComputeAdvantages(*records, reward_config, adv_config);
  if (!result.ok()) return fail(Status::InvalidArgument(o.in + ": " + result.status().message()));

  std::string body;
  for (const auto& line : result->lines) body += line.dump() + "\n";
  if (o.out.empty()) {
    if (std::fwrite(body.data(), 1, body.size(), stdout) != body.size() || std::fflush(stdout) != 0)
      return fail(Status::IoError("stdout: write failed"));
  } else if (auto s = WriteFileAtomic(o.out, body); !s.ok()) {
    return fail(s);
  }
  const auto& r = result->report;
  std::fprintf(stderr,
               "tritonrl advantages: mode %s, %zu groups, %zu rollouts, %zu filtered groups "
               "(%zu with all rewards equal), %zu speedups voided by flags, %zu correct without "
               "a usable speedup, %zu unknown speedups given their group's trusted mean\n",
               rl::AdvantageModeName(*mode), r.groups, r.rollouts, r.filtered_groups,
               r.constant_groups, r.speedup_voided, r.speedup_missing, r.speedup_imputed);
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"advantages", "Rewards and GRPO advantages (HRD, uniform, binary) for a JSONL of rollouts",
     [](CLI::App& sub) {
       auto o = std::make_shared<AdvantagesOptions>();
       sub.add_option("--in", o->in, "rollouts JSONL (schema: docs/rl.md)")->required();
       sub.add_option("--out", o->out, "output JSONL (default: stdout); written atomically");
       sub.add_option("--mode", o->mode, "hrd | uniform | binary")
           ->check(CLI::IsMember({"hrd", "uniform", "binary"}))
           ->capture_default_str();
       sub.add_option("--alpha", o->alpha, "HRD weight of the plan advantage")
           ->capture_default_str();
       sub.add_option("--beta", o->beta, "uniform mode: weight of R_correct")
           ->capture_default_str();
       sub.add_option("--clip", o->clip, "speedup clip of R_speedup")->capture_default_str();
       sub.add_option("--eps", o->eps, "added to the group std")->capture_default_str();
       sub.add_flag("--no-std", o->no_std, "centre only, no std normalisation (Dr. GRPO)");
       sub.add_flag("--no-filter", o->no_filter,
                    "do not mark all-equal groups as filtered (they still get zero advantages)");
       return [o]() { return RunAdvantages(*o); };
     }});

}  // namespace
