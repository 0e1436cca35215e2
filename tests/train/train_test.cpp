// Trainer pieces on the CPU with tiny models: the training forward is the
// generation forward, sampler log-probabilities match it, activation
// checkpointing changes no gradient, AdamW/schedule/clipping by hand,
// data reading and batching, checkpoint round trip and refusal.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "base/sha256.h"
#include "model/bpe_trainer.h"
#include "model/end_of_turn.h"
#include "model/generate.h"
#include "model/lora.h"
#include "model/qwen3.h"
#include "train/sft_data.h"
#include "train/trainer.h"

namespace tritonrl::train {
namespace {

namespace fs = std::filesystem;
namespace m = tritonrl::model;

const bool kOneThread = [] {
  at::set_num_threads(1);
  return true;
}();

m::Qwen3Model Tiny(uint64_t seed = 3, c10::ScalarType dtype = at::kFloat) {
  m::Qwen3Config c = m::TinyQwen3Config();
  c.max_position_embeddings = 256;
  m::ModelOptions o;
  o.dtype = dtype;
  return m::RandomQwen3(c, seed, o);
}

// builtin:tiny's end of turn: <|im_end|> of the byte tokenizer.
m::EndOfTurn TinyEndOfTurn() {
  return *m::FindEndOfTurn("builtin:tiny", m::ByteFallbackTokenizer());
}

double MaxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_train_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream((dir_ / name).string()) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

std::vector<std::vector<int32_t>> Rows() {
  return {{5, 9, 100, 7, 33, 2, 8, 250, 17}, {40, 41, 42, 43, 44, 45}};
}

// The training path (differentiable, hidden states + head on scored rows)
// computes exactly the logits of the generation path's full forward.
TEST(TrainForward, SameNumbersAsGenerationForward) {
  for (c10::ScalarType dt : {at::kFloat, at::kBFloat16}) {
    Trainable t = MakeTrainable(Tiny(), dt);
    m::Qwen3Model view = ComputeView(t);
    ASSERT_TRUE(m::RecordsGradients(view));
    // The generation model: the same weights, loaded as the sampler gets them.
    m::Qwen3Model gen = Tiny(3, dt);
    std::vector<int64_t> from = {1, 1};
    std::vector<std::vector<int32_t>> one = {Rows()[0]};
    TokenBatch b = MakeBatch(one, {1}, at::kCPU);
    at::Tensor lp = ScoredLogProbs(view, b);
    ASSERT_TRUE(lp.requires_grad());
    at::Tensor logits;
    {
      at::NoGradGuard ng;
      logits = m::ForwardNoCache(gen, b.ids, at::zeros({1}, b.ids.options()));
    }
    at::Tensor ref = at::log_softmax(logits[0].narrow(0, 0, b.ids.size(1) - 1), -1)
                         .gather(1, b.targets.unsqueeze(1))
                         .squeeze(1);
    // Everything up to the final norm is the same computation; the head's GEMM
    // over the scored rows only may sum in another order (bf16: one rounding step).
    EXPECT_LE(MaxAbsDiff(lp.detach(), ref), dt == at::kFloat ? 1e-6 : 1.6e-2) << c10::toString(dt);
  }
}

// GRPO's importance ratio compares the sampler's log-probabilities with the
// training forward's: on the same tokens they agree (fp32: the decode step's
// fused kernels against the reference-order forward, within 1e-4).
TEST(TrainForward, SamplerLogProbsMatchTrainingForward) {
  Trainable t = MakeTrainable(Tiny(), at::kFloat);
  m::SamplingOptions so;
  so.temperature = 1.0;
  so.max_new_tokens = 24;
  so.num_samples = 3;
  so.seed = 11;
  std::vector<std::vector<int32_t>> prompts = {{10, 20, 30, 40}, {7, 8}};
  std::vector<m::Completion> done;
  {
    at::NoGradGuard ng;
    auto r = m::Generate(ComputeView(t), nullptr, prompts, so);
    ASSERT_TRUE(r.ok()) << r.status().message();
    done = std::move(r.value());
  }
  ASSERT_EQ(done.size(), 6u);
  for (const m::Completion& c : done) {
    std::vector<int32_t> row = prompts[c.prompt_index];
    const int64_t from = static_cast<int64_t>(row.size());
    row.insert(row.end(), c.tokens.begin(), c.tokens.end());
    TokenBatch b = MakeBatch({row}, {from}, at::kCPU);
    at::Tensor lp = ScoredLogProbs(ComputeView(t), b).detach();
    ASSERT_EQ(lp.size(0), static_cast<int64_t>(c.logprobs.size()));
    at::Tensor sampler = at::tensor(c.logprobs);
    EXPECT_LT(MaxAbsDiff(lp, sampler), 1e-4);
    EXPECT_GT(lp.abs().max().item<double>(), 1.0);  // not a comparison of near-zeros
  }
}

// Activation checkpointing recomputes the same layer: identical loss and gradients.
TEST(TrainForward, CheckpointedLayersGiveTheSameGradients) {
  std::vector<at::Tensor> grads[2];
  double losses[2];
  for (int ck = 0; ck < 2; ++ck) {
    Trainable t = MakeTrainable(Tiny(), at::kFloat);
    TokenBatch b = MakeBatch(Rows(), {3, 2}, at::kCPU);
    at::Tensor loss = ScoredLogProbs(ComputeView(t), b, ck == 1).sum().neg();
    loss.backward();
    losses[ck] = loss.item<double>();
    for (const Param& p : t.params) {
      ASSERT_TRUE(p.value.grad().defined()) << p.name;
      grads[ck].push_back(p.value.grad().clone());
    }
  }
  EXPECT_EQ(losses[0], losses[1]);
  for (size_t i = 0; i < grads[0].size(); ++i) {
    EXPECT_LT(MaxAbsDiff(grads[0][i], grads[1][i]), 1e-6) << i;
  }
}

// Checkpointed layers carry the LoRA adapters: the same loss and adapter gradients as the
// recorded forward, in fp32 and bf16, with the reference-order and the fused kernels, with
// LoRA dropout on (the recomputation draws the forward's masks again) and off; the default
// generator is left where the recorded forward leaves it, so later draws do not change either.
TEST(TrainForward, CheckpointedLayersCarryLoraAdapters) {
  m::LoraConfig lc;
  lc.r = 4;
  lc.alpha = 8;
  lc.targets = *m::ParseLoraTargets("all");
  for (c10::ScalarType dt : {at::kFloat, at::kBFloat16}) {
    for (double dropout : {0.0, 0.3}) {
      for (bool fused : {false, true}) {
        std::vector<at::Tensor> grads[2];
        double losses[2], next_draw[2];
        for (int ck = 0; ck < 2; ++ck) {
          m::Qwen3Model base = Tiny();
          lc.dropout = dropout;
          m::AddLoraAdapters(base, lc, 11);
          // B away from zero, so A's gradient is not zero and the adapters change the output.
          at::Generator g = at::make_generator<at::CPUGeneratorImpl>(12);
          for (m::Qwen3Layer& L : base.layers) {
            for (m::LoraPair& p : L.lora) {
              if (p.defined()) p.B = at::empty(p.B.sizes()).uniform_(-0.2, 0.2, g);
            }
          }
          Trainable t = MakeLoraTrainable(std::move(base), dt, "");
          TokenBatch b = MakeBatch(Rows(), {3, 2}, at::kCPU);
          LossKernels k;
          k.checkpoint_layers = ck == 1;
          k.fused_norm = k.fused_proj = k.rope_roll = fused;
          k.lora_dropout = dropout > 0;
          at::manual_seed(99);
          m::Qwen3Model view = ComputeView(t);
          at::Tensor loss = HeadNllSum(ScoredHidden(view, b, k), view.lm_head, b.targets, 0);
          loss.backward();
          losses[ck] = loss.item<double>();
          next_draw[ck] = at::rand({1}).item<double>();
          for (const Param& p : t.params) {
            ASSERT_TRUE(p.value.grad().defined()) << p.name;
            grads[ck].push_back(p.value.grad().clone());
          }
        }
        const std::string what = std::string(c10::toString(dt)) + " dropout " +
                                 std::to_string(dropout) + (fused ? " fused" : " reference");
        EXPECT_EQ(losses[0], losses[1]) << what;
        EXPECT_EQ(next_draw[0], next_draw[1]) << what;
        ASSERT_EQ(grads[0].size(), 2u * 2u * m::kLoraTargetCount);
        for (size_t i = 0; i < grads[0].size(); ++i) {
          EXPECT_GT(grads[0][i].abs().max().item<double>(), 0) << what << " " << i;
          EXPECT_LT(MaxAbsDiff(grads[0][i], grads[1][i]), 1e-6) << what << " " << i;
        }
      }
    }
  }
}

// Right padding needs no mask: a row's scores do not depend on its batch mates.
TEST(TrainForward, RightPaddingDoesNotChangeARowsScores) {
  Trainable t = MakeTrainable(Tiny(), at::kFloat);
  at::NoGradGuard ng;
  TokenBatch both = MakeBatch(Rows(), {3, 2}, at::kCPU);
  TokenBatch alone = MakeBatch({Rows()[1]}, {2}, at::kCPU);
  at::Tensor a = ScoredLogProbs(ComputeView(t), both);
  at::Tensor s = ScoredLogProbs(ComputeView(t), alone);
  // Row 0 scores positions 2..7 (6), row 1 positions 1..4 (4).
  ASSERT_EQ(a.size(0), 10);
  EXPECT_LT(MaxAbsDiff(a.narrow(0, 6, 4), s), 1e-6);
}

TEST(Optimizer, AdamWStepByHand) {
  Trainable t = MakeTrainable(Tiny(), at::kFloat);
  AdamWState s = InitAdamW(t);
  std::vector<at::Tensor> before, g;
  for (const Param& p : t.params) {
    before.push_back(p.value.detach().clone());
    g.push_back(at::full_like(before.back(), 0.5));
    p.value.mutable_grad() = g.back().clone();
  }
  AdamWOptions o{0.9, 0.95, 1e-8, 0.1};
  AdamWStep(t, s, 0.01, o);
  // Step 1 with a constant gradient: m_hat = g, v_hat = g^2, so the update is
  // lr * g / (|g| + eps) = lr (almost exactly), plus decay lr * wd * p on matrices.
  for (size_t i = 0; i < t.params.size(); ++i) {
    const Param& p = t.params[i];
    at::Tensor expect = before[i] * (p.decay ? 1.0 - 0.01 * 0.1 : 1.0) - 0.01 * 0.5 / (0.5 + 1e-8);
    EXPECT_LT(MaxAbsDiff(p.value.detach(), expect), 1e-6) << p.name;
    EXPECT_EQ(p.decay, p.value.dim() >= 2) << p.name;
  }
  EXPECT_EQ(s.step, 1);
}

TEST(Optimizer, CosineScheduleAndClipping) {
  EXPECT_DOUBLE_EQ(CosineLr(0, 10, 110, 1.0, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(CosineLr(9, 10, 110, 1.0, 0.1), 1.0);
  EXPECT_DOUBLE_EQ(CosineLr(10, 10, 110, 1.0, 0.1), 1.0);
  EXPECT_NEAR(CosineLr(60, 10, 110, 1.0, 0.1), 0.55, 1e-12);  // half way: (1 + 0.1) / 2
  EXPECT_NEAR(CosineLr(110, 10, 110, 1.0, 0.1), 0.1, 1e-12);
  Trainable t = MakeTrainable(Tiny(), at::kFloat);
  double sq = 0;
  for (const Param& p : t.params) {
    p.value.mutable_grad() = at::full_like(p.value.detach(), 2.0);
    sq += 4.0 * static_cast<double>(p.value.numel());
  }
  EXPECT_NEAR(ClipGradNorm(t, 1.0), std::sqrt(sq), 1e-3 * std::sqrt(sq));
  double after = 0;
  for (const Param& p : t.params) after += p.value.grad().pow(2).sum().item<double>();
  EXPECT_NEAR(std::sqrt(after), 1.0, 1e-4);
}

// Random gradients for every parameter (a fixed generator: both runs see the same).
void RandomGrads(Trainable& t, uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  for (const Param& p : t.params) {
    p.value.mutable_grad() = at::empty_like(p.value.detach()).normal_(0.0, 1.0, gen);
  }
}

// --fused-adamw: at::_fused_adamw_ (it has a CPU kernel in libtorch 2.11) and the
// multi-tensor clipping give the per-tensor loop's parameters and moments.
TEST(Optimizer, FusedAdamWAndForeachClipMatchTheLoop) {
  Trainable t[2] = {MakeTrainable(Tiny(), at::kFloat), MakeTrainable(Tiny(), at::kFloat)};
  AdamWState s[2] = {InitAdamW(t[0]), InitAdamW(t[1])};
  for (int step = 0; step < 4; ++step) {
    double norms[2];
    for (int f = 0; f < 2; ++f) {
      RandomGrads(t[f], 100 + step);
      // Step 2 clips (max 1 is far below the norm of ~N(0,1) gradients); the others do not.
      const double max_norm = step == 2 ? 1.0 : 1e9;
      norms[f] =
          f ? ClipGradNormForeach(t[f], max_norm).item<double>() : ClipGradNorm(t[f], max_norm);
      AdamWOptions o{0.9, 0.95, 1e-8, 0.1, /*fused=*/f == 1};
      AdamWStep(t[f], s[f], 0.01 * (step + 1), o);
    }
    EXPECT_NEAR(norms[0], norms[1], 1e-6 * norms[0]) << step;
  }
  EXPECT_EQ(s[0].step, s[1].step);
  for (size_t i = 0; i < t[0].params.size(); ++i) {
    const std::string& n = t[0].params[i].name;
    EXPECT_LT(MaxAbsDiff(t[0].params[i].value.detach(), t[1].params[i].value.detach()), 1e-6) << n;
    EXPECT_LT(MaxAbsDiff(s[0].exp_avg[i], s[1].exp_avg[i]), 1e-6) << n;
    EXPECT_LT(MaxAbsDiff(s[0].exp_avg_sq[i], s[1].exp_avg_sq[i]), 1e-6) << n;
  }
  // The updates were not no-ops: the weights moved by ~4 lr-sized steps.
  Trainable fresh = MakeTrainable(Tiny(), at::kFloat);
  EXPECT_GT(MaxAbsDiff(fresh.params[1].value.detach(), t[1].params[1].value.detach()), 0.01);
}

// --loss-chunk: the fused head + cross-entropy (gradients computed in the
// forward pass, over chunks) equals autograd through whole-batch logits.
TEST(TrainLoss, ChunkedHeadNllMatchesAutograd) {
  for (c10::ScalarType dt : {at::kFloat, at::kBFloat16}) {
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(5);
    at::Tensor h0 = at::empty({11, 16}).normal_(0.0, 1.0, gen);
    at::Tensor w0 = at::empty({50, 16}).normal_(0.0, 0.5, gen);
    at::Tensor tg = at::randint(50, {11}, gen, at::TensorOptions().dtype(at::kLong));
    double loss[3];
    at::Tensor gh[3], gw[3];
    for (int v = 0; v < 3; ++v) {  // autograd, chunks of 4 rows (3 chunks), one chunk
      at::Tensor h = h0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
      at::Tensor l = HeadNllSum(h.to(dt), w.to(dt), tg, v == 0 ? 0 : v == 1 ? 4 : 64) * 0.25;
      l.backward();
      loss[v] = l.item<double>();
      gh[v] = h.grad();
      gw[v] = w.grad();
    }
    const double tol = dt == at::kFloat ? 1e-5 : 2e-2;
    for (int v = 1; v < 3; ++v) {
      EXPECT_NEAR(loss[v], loss[0], 1e-6 * std::abs(loss[0])) << c10::toString(dt) << v;
      EXPECT_LT(MaxAbsDiff(gh[v], gh[0]), tol * gh[0].abs().max().item<double>()) << v;
      EXPECT_LT(MaxAbsDiff(gw[v], gw[0]), tol * gw[0].abs().max().item<double>()) << v;
    }
    at::NoGradGuard ng;  // without grad mode: the same loss, no graph
    at::Tensor l = HeadNllSum(h0.to(dt), w0.to(dt), tg, 4) * 0.25;
    EXPECT_FALSE(l.requires_grad());
    EXPECT_NEAR(l.item<double>(), loss[0], 1e-6 * std::abs(loss[0]));
  }
}

// --fused-norm / --fused-proj (with and without checkpointed layers): the same
// loss and gradients as the reference-order forward, to fp32 rounding.
TEST(TrainForward, FusedKernelsGiveTheSameGradients) {
  std::vector<at::Tensor> grads[4];
  double losses[4];
  for (int v = 0; v < 4; ++v) {
    Trainable t = MakeTrainable(Tiny(), at::kFloat);
    TokenBatch b = MakeBatch(Rows(), {3, 2}, at::kCPU);
    LossKernels k;
    k.fused_norm = v >= 1;
    k.fused_proj = v >= 2;
    k.checkpoint_layers = v == 3;
    k.loss_chunk = v >= 2 ? 4 : 0;
    m::Qwen3Model view = ComputeView(t);
    at::Tensor loss = HeadNllSum(ScoredHidden(view, b, k), view.lm_head, b.targets, k.loss_chunk);
    loss.backward();
    losses[v] = loss.item<double>();
    for (const Param& p : t.params) {
      ASSERT_TRUE(p.value.grad().defined()) << p.name;
      grads[v].push_back(p.value.grad().clone());
    }
  }
  for (int v = 1; v < 4; ++v) {
    EXPECT_NEAR(losses[v], losses[0], 1e-5 * std::abs(losses[0])) << v;
    for (size_t i = 0; i < grads[0].size(); ++i) {
      const double scale = std::max(grads[0][i].abs().max().item<double>(), 1e-3);
      EXPECT_LT(MaxAbsDiff(grads[v][i], grads[0][i]), 1e-4 * scale) << v << " " << i;
    }
  }
}

// --rope-roll: the same rounded operands summed, so the same loss bit for bit
// (fp32 and bf16 compute); the gradients to rounding (the q/k norm weights'
// reductions see the gradient in another memory order).
TEST(TrainForward, RopeRollIsBitIdentical) {
  for (c10::ScalarType dt : {at::kFloat, at::kBFloat16}) {
    std::vector<at::Tensor> grads[2];
    at::Tensor losses[2];
    for (int v = 0; v < 2; ++v) {
      Trainable t = MakeTrainable(Tiny(), dt);
      TokenBatch b = MakeBatch(Rows(), {3, 2}, at::kCPU);
      LossKernels k;
      k.rope_roll = v == 1;
      m::Qwen3Model view = ComputeView(t);
      at::Tensor loss = HeadNllSum(ScoredHidden(view, b, k), view.lm_head, b.targets, 0);
      loss.backward();
      losses[v] = loss.detach();
      for (const Param& p : t.params) grads[v].push_back(p.value.grad().clone());
    }
    EXPECT_TRUE(at::equal(losses[0], losses[1])) << c10::toString(dt);
    for (size_t i = 0; i < grads[0].size(); ++i) {
      const double scale = grads[0][i].abs().max().item<double>();
      EXPECT_LE(MaxAbsDiff(grads[0][i], grads[1][i]), 1e-6 * scale) << c10::toString(dt) << i;
    }
  }
}

TEST_F(TempDir, BadJsonlLinesNameFileAndLine) {
  std::string p = Write("a.jsonl",
                        "{\"prompt\": \"p\", \"completion\": \"c\"}\n\n{\"prompt\": 3, "
                        "\"completion\": \"c\"}\n");
  auto r = ReadSftJsonl(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p + ":3:"), std::string::npos) << r.status().message();
  p = Write("b.jsonl", "{\"prompt\": \"p\", \"completion\": \"c\"}\n{oops\n");
  r = ReadSftJsonl(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p + ":2:"), std::string::npos) << r.status().message();
  p = Write("c.jsonl", "{\"prompt\": \"p\"}\n");
  r = ReadSftJsonl(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("completion"), std::string::npos);
}

TEST(SftData, PromptIsMaskedAndTheTurnEnds) {
  m::Tokenizer tok = m::ByteFallbackTokenizer();
  std::vector<SftRecord> recs = {{"add two numbers", "<think>plan</think>code", 1},
                                 {std::string(300, 'x'), "y", 2}};
  TokenizeStats st;
  const m::EndOfTurn eot = TinyEndOfTurn();
  EXPECT_EQ(eot.token, "<|im_end|>");
  auto ex = TokenizeSft(tok, m::ChatTemplate(), eot.id, recs, 120, &st);
  ASSERT_TRUE(ex.ok());
  ASSERT_EQ(ex->size(), 1u);
  EXPECT_EQ(st.dropped, 1);
  const SftExample& e = (*ex)[0];
  const std::string prompt = "<|im_start|>user\nadd two numbers<|im_end|>\n<|im_start|>assistant\n";
  EXPECT_EQ(m::DecodeBytes(tok, std::span(e.ids).subspan(0, e.prompt_tokens)), prompt);
  std::vector<int32_t> completion(e.ids.begin() + e.prompt_tokens, e.ids.end());
  // <think> and </think> are single tokens; the turn ends with <|im_end|>.
  EXPECT_EQ(completion.size(), 2u + 4u + 4u + 1u);
  EXPECT_EQ(completion.front(), m::TokenId(tok, "<think>"));
  EXPECT_EQ(completion.back(), m::TokenId(tok, "<|im_end|>"));
}

TEST(SftData, PlanCoversEveryExampleOnceWithinTheTokenBudget) {
  std::vector<int64_t> lens;
  for (int i = 0; i < 300; ++i) lens.push_back(10 + (i * 37) % 90);
  auto plan = PlanEpoch(lens, 5, 0, 400, true, 64);
  std::vector<int> seen(lens.size(), 0);
  for (const auto& b : plan) {
    int64_t longest = 0;
    for (int32_t i : b) longest = std::max(longest, lens[i]), ++seen[i];
    EXPECT_TRUE(b.size() == 1 || longest * static_cast<int64_t>(b.size()) <= 400);
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(plan, PlanEpoch(lens, 5, 0, 400, true, 64));  // deterministic
  EXPECT_NE(plan, PlanEpoch(lens, 5, 1, 400, true, 64));  // a new order per epoch
}

TEST(Bpe, LearnsFrequentPairsAndRoundTripsThroughTokenizerJson) {
  std::vector<std::string> texts;
  for (int i = 0; i < 50; ++i) texts.push_back("def kernel(x_ptr, y_ptr):\n    tl.load(x_ptr)\n");
  m::BpeTrainOptions o;
  o.vocab_size = 300;
  auto tok = m::TrainByteLevelBpe(texts, o);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_LE(tok->vocab_size(), 300);
  EXPECT_GT(tok->merges.size(), 10u);
  auto e = m::Encode(*tok, texts[0]);
  ASSERT_TRUE(e.ok());
  EXPECT_LT(e->ids.size(), texts[0].size() / 2);  // merged: far fewer tokens than bytes
  EXPECT_EQ(m::DecodeBytes(*tok, e->ids), texts[0]);
  auto back = m::ParseTokenizerJson(m::TokenizerToJson(*tok));
  ASSERT_TRUE(back.ok()) << back.status().message();
  const std::string other = "<|im_start|>user\nx_ptr + unseen words ∑<|im_end|>";
  EXPECT_EQ(m::Encode(*back, other)->ids, m::Encode(*tok, other)->ids);
  EXPECT_EQ(m::TokenId(*back, "<|im_end|>"), m::TokenId(*tok, "<|im_end|>"));
}

TEST_F(TempDir, CheckpointRoundTripAndRefusals) {
  Trainable t = MakeTrainable(Tiny(), at::kFloat);
  AdamWState s = InitAdamW(t);
  TokenBatch b = MakeBatch(Rows(), {3, 2}, at::kCPU);
  ScoredLogProbs(ComputeView(t), b).sum().neg().backward();
  AdamWStep(t, s, 1e-3, {});
  const std::string dir = (dir_ / "ck").string();
  // The input model's files: carried unchanged, and its tokenizer_config.json wins.
  const m::ModelFiles carried = {{"README.md", "# mine\n"},
                                 {"tokenizer_config.json", "{\"eos_token\": \"<|im_end|>\"}"}};
  ASSERT_TRUE(SaveTrainCheckpoint(dir, t, s, m::ByteFallbackTokenizer(), TinyEndOfTurn(),
                                  "{\"step\": 1}", carried)
                  .ok());
  EXPECT_EQ(*ReadFile(dir + "/README.md"), "# mine\n");
  EXPECT_EQ(*ReadFile(dir + "/tokenizer_config.json"), carried.at("tokenizer_config.json"));
  auto gen = nlohmann::json::parse(*ReadFile(dir + "/generation_config.json"));
  EXPECT_EQ(gen["eos_token_id"], nlohmann::json::array({258, 256}));
  // The model's own tokenizer config defines its special tokens: no generated map beside it.
  EXPECT_FALSE(fs::exists(dir + "/special_tokens_map.json"));
  auto back = LoadTrainCheckpoint(dir, at::kCPU, at::kFloat);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->adam.step, 1);
  // What the next save of a resumed run carries: every file but the weights and the state.
  std::vector<std::string> names;
  for (const auto& [name, text] : back->carried_files) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"README.md", "generation_config.json",
                                             "tokenizer.json", "tokenizer_config.json"}));
  // A side file edited by hand does not block a resume (only the files that shape the
  // trajectory are hashed).
  std::ofstream(dir + "/generation_config.json") << "{}";
  ASSERT_TRUE(LoadTrainCheckpoint(dir, at::kCPU, at::kFloat).ok());
  ASSERT_EQ(back->trainable.params.size(), t.params.size());
  for (size_t i = 0; i < t.params.size(); ++i) {
    EXPECT_TRUE(at::equal(back->trainable.params[i].value.detach(), t.params[i].value.detach()));
    EXPECT_TRUE(at::equal(back->adam.exp_avg_sq[i], s.exp_avg_sq[i]));
  }
  // One flipped byte in the weights: refused, naming the file.
  const std::string w = dir + "/model.safetensors";
  std::string bytes = *ReadFile(w);
  bytes[bytes.size() - 3] ^= 0x40;
  std::ofstream(w, std::ios::binary) << bytes;
  auto bad = LoadTrainCheckpoint(dir, at::kCPU, at::kFloat);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("model.safetensors: corrupt"), std::string::npos)
      << bad.status().message();
  // A directory that is not a training checkpoint.
  auto none = LoadTrainCheckpoint((dir_ / "nothing").string(), at::kCPU, at::kFloat);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("not a training checkpoint"), std::string::npos);
}

// Optimizer state of another model (here: a different width) is refused even
// when every file is intact.
TEST_F(TempDir, MismatchedOptimizerStateIsRefused) {
  Trainable t = MakeTrainable(Tiny(), at::kFloat);
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  ASSERT_TRUE(
      SaveTrainCheckpoint(a, t, InitAdamW(t), m::ByteFallbackTokenizer(), TinyEndOfTurn(), "{}")
          .ok());
  m::Qwen3Config c = m::TinyQwen3Config();
  c.intermediate_size = 96;
  Trainable other = MakeTrainable(m::RandomQwen3(c, 1, {}), at::kFloat);
  ASSERT_TRUE(SaveTrainCheckpoint(b, other, InitAdamW(other), m::ByteFallbackTokenizer(),
                                  TinyEndOfTurn(), "{}")
                  .ok());
  // a's model with b's optimizer file, with hashes recomputed (an honest-looking mix-up).
  fs::copy_file(b + "/optimizer.safetensors", a + "/optimizer.safetensors",
                fs::copy_options::overwrite_existing);
  auto state = nlohmann::json::parse(*ReadFile(a + "/trainer_state.json"));
  std::string opt = *ReadFile(a + "/optimizer.safetensors");
  state["file_sha256"]["optimizer.safetensors"] = Sha256Hex(opt);
  std::ofstream(a + "/trainer_state.json") << state.dump();
  auto r = LoadTrainCheckpoint(a, at::kCPU, at::kFloat);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("optimizer state does not match the model"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("gate_up_proj"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace tritonrl::train
