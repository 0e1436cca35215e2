// GRPO's update checked by hand: a group of four rollouts with known verdicts,
// behaviour and current log-probs; the advantages (HRD: plan tokens alpha *
// A(speedup), code tokens A(correct)), the ratios, the asymmetric clip and the
// token-level average computed here with plain arithmetic, and compared with
// the trainer's loss and its gradient. Also: truncated responses excluded from
// the group statistics, the k3 KL gradient, the plan span through a tokenizer,
// the Figure 5 outcome classes, and DAPO dynamic sampling's rounds.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "model/tokenizer.h"
#include "rl/rollout_group.h"
#include "train/grpo.h"
#include "train/grpo_loss.h"
#include "train/plan_tokens.h"

namespace tritonrl::train {
namespace {

using rl::ComputeGroupTokenAdvantages;
using rl::GroupRollout;
using rl::TruncatedPolicy;

rl::RolloutVerdict Verdict(bool valid, bool correct, double speedup) {
  rl::RolloutVerdict v;
  v.syntax_ok = valid;
  v.functionality_ok = valid;
  v.correct = correct;
  v.speedup = speedup;
  return v;
}

// Hand: group-normalised values with the sample standard deviation.
std::vector<double> HandNormalize(const std::vector<double>& r) {
  double mean = 0;
  for (double x : r) mean += x;
  mean /= static_cast<double>(r.size());
  double var = 0;
  for (double x : r) var += (x - mean) * (x - mean);
  const double sd = std::sqrt(var / static_cast<double>(r.size() - 1));
  std::vector<double> out;
  for (double x : r) out.push_back((x - mean) / (sd + 1e-6));
  return out;
}

TEST(GrpoUpdate, SurrogateLossAndGradientMatchAHandComputation) {
  const double nan = std::nan("");
  // Four rollouts: correct and 1.5x faster; correct, not timed; valid but wrong; invalid.
  std::vector<GroupRollout> group(4);
  group[0].verdict = Verdict(true, true, 1.5);
  group[1].verdict = Verdict(true, true, nan);
  group[2].verdict = Verdict(true, false, nan);
  group[3].verdict = Verdict(false, false, nan);
  const int64_t lengths[4] = {5, 3, 4, 2};
  for (int i = 0; i < 4; ++i) group[i].num_tokens = lengths[i];
  group[0].plan_tokens = rl::IndexRange{1, 3};  // tokens 1 and 2 are the plan
  rl::AdvantageConfig config;                   // hrd, alpha 0.1, std-normalised, filtering on
  auto got =
      ComputeGroupTokenAdvantages(group, rl::RewardConfig{}, config, TruncatedPolicy::kPenalize);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_FALSE(got->constant);

  // By hand: R_correct = [1, 1, 0, 0], R_speedup = [1.5, 1.5, 0, 0] (min(1.5, clip 2); the
  // correct rollout that was not timed gets the group's trusted mean, 1.5: docs/rl.md).
  const std::vector<double> a_correct = HandNormalize({1, 1, 0, 0});
  const std::vector<double> a_speed = HandNormalize({1.5, 1.5, 0, 0});
  EXPECT_NEAR(a_correct[0], 0.5 / std::sqrt(1.0 / 3.0), 1e-5);
  EXPECT_NEAR(a_speed[0], 0.75 / std::sqrt(0.75), 1e-5);  // deviations 0.75, sd sqrt(0.75)
  std::vector<double> adv;             // all tokens of the step, rollout by rollout
  for (int i = 0; i < 4; ++i) {
    for (int64_t k = 0; k < lengths[i]; ++k) {
      const bool plan = i == 0 && k >= 1 && k < 3;
      adv.push_back(plan ? 0.1 * a_speed[i] : a_correct[i]);
    }
  }
  std::vector<float> ours;
  for (const auto& r : got->rollouts)
    ours.insert(ours.end(), r.per_token.begin(), r.per_token.end());
  ASSERT_EQ(ours.size(), adv.size());
  for (size_t t = 0; t < adv.size(); ++t) EXPECT_NEAR(ours[t], adv[t], 1e-6) << "token " << t;

  // Behaviour and current log-probs chosen so that some ratios leave the clip
  // range on the side where the clip bites, some on the side where it does not.
  const std::vector<double> old_lp = {-1.0, -2.0, -0.5, -1.5, -3.0, -0.7, -1.1,
                                      -2.2, -0.4, -1.0, -0.9, -2.5, -1.3, -0.8};
  const std::vector<double> shift = {0.5,  0.1,  -0.6, 0.0,  0.3,   -0.05, 0.26,
                                     -0.4, -0.3, 0.2,  0.05, -0.25, 0.6,   -0.1};
  ASSERT_EQ(old_lp.size(), adv.size());
  const double lo = 1 - 0.2, hi = 1 + 0.28;
  const double n = static_cast<double>(adv.size());
  double hand_loss = 0;
  std::vector<double> hand_grad;
  int hand_clipped = 0;
  for (size_t t = 0; t < adv.size(); ++t) {
    const double rho = std::exp(shift[t]);
    const double a = adv[t];
    const double clipped_rho = std::min(std::max(rho, lo), hi);
    const double u = rho * a, c = clipped_rho * a;
    hand_loss -= std::min(u, c) / n;
    // d(-min)/d(new logp): the unclipped branch's -rho * A, zero where the clipped branch is
    // smaller.
    const bool cut = c < u;
    hand_clipped += cut;
    hand_grad.push_back(cut ? 0.0 : -rho * a / n);
  }
  ASSERT_GT(hand_clipped, 0);

  auto f = at::TensorOptions().dtype(at::kDouble);
  at::Tensor old_t = at::tensor(old_lp, f).to(at::kFloat);
  std::vector<double> new_lp;
  for (size_t t = 0; t < adv.size(); ++t) new_lp.push_back(old_lp[t] + shift[t]);
  at::Tensor new_t = at::tensor(new_lp, f).to(at::kFloat).requires_grad_(true);
  at::Tensor adv_t = at::tensor(std::vector<double>(ours.begin(), ours.end()), f).to(at::kFloat);
  SurrogateResult r = ClippedSurrogate(new_t, old_t, adv_t, at::ones_like(adv_t), at::Tensor(),
                                       SurrogateOptions{0.2, 0.28, 0}, n);
  r.loss.backward();
  EXPECT_NEAR(r.loss.item<double>(), hand_loss, 1e-5);
  EXPECT_EQ(r.clipped, hand_clipped);
  at::Tensor g = new_t.grad().to(at::kDouble);
  for (size_t t = 0; t < adv.size(); ++t) {
    EXPECT_NEAR(g[static_cast<int64_t>(t)].item<double>(), hand_grad[t], 1e-6) << "token " << t;
  }
}

TEST(GrpoUpdate, KlTermAddsTheK3Gradient) {
  // One token, advantage 0: only the KL term acts. k3 = e^(r-n) - (r-n) - 1; d/dn = 1 - e^(r-n).
  const double r = -1.2, nv = -0.7, coef = 0.5;
  auto f = at::TensorOptions().dtype(at::kFloat);
  at::Tensor new_t = at::full({1}, nv, f).requires_grad_(true);
  SurrogateResult s =
      ClippedSurrogate(new_t, at::full({1}, nv, f), at::zeros({1}, f), at::ones({1}, f),
                       at::full({1}, r, f), SurrogateOptions{0.2, 0.28, coef}, 1.0);
  s.loss.backward();
  const double k3 = std::exp(r - nv) - (r - nv) - 1;
  EXPECT_NEAR(s.loss.item<double>(), coef * k3, 1e-6);
  EXPECT_NEAR(s.kl_sum, k3, 1e-6);
  EXPECT_NEAR(new_t.grad().item<double>(), coef * (1 - std::exp(r - nv)), 1e-6);
}

TEST(GrpoUpdate, PlanSpanIsTheThinkTextInTokens) {
  const model::Tokenizer tok = model::ByteFallbackTokenizer();
  auto open = model::Encode(tok, "<think>");
  ASSERT_TRUE(open.ok());
  const std::string text = "<think>plan!</think>\n```python\nx = 1\n```\n";
  auto enc = model::Encode(tok, text);
  ASSERT_TRUE(enc.ok());
  std::vector<int32_t> ids = enc->ids;
  ids.push_back(model::TokenId(tok, "<|im_end|>"));  // the stop token is not text
  auto plan = PlanTokenRange(tok, ids);
  ASSERT_TRUE(plan.has_value());
  const int64_t begin = static_cast<int64_t>(open->ids.size());
  EXPECT_EQ(plan->begin, begin);
  EXPECT_EQ(plan->end, begin + 5);  // "plan!" is five byte tokens
  auto none = model::Encode(tok, "```python\nx = 1\n```\n");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(PlanTokenRange(tok, none->ids).has_value());
}

TEST(GrpoUpdate, LevelsText) {
  auto levels = ParseLevels("1:1,2:0.5");
  ASSERT_TRUE(levels.ok());
  EXPECT_EQ(levels->at(1), 1.0);
  EXPECT_EQ(levels->at(2), 0.5);
  for (const char* bad : {"", "1", "1:", "x:1", "1:-1", "1:1,1:2", "0:1", "1:1;2:0"}) {
    auto r = ParseLevels(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("--levels"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace tritonrl::train
