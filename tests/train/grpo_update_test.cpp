// GRPO's memory-lean update (issue 38): the head and log-softmax over chunks
// of scored tokens (train/chunked_head.h) against autograd through the
// whole-batch logits written out in this test; the clipped surrogate's
// gradients on builtin:tiny with and without chunks and checkpointed layers;
// and micro-batches of one step's rollouts adding up to the whole batch's
// gradient (the token-level denominator is the step's). fp32 on the CPU;
// bf16 to its rounding.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "model/qwen3.h"
#include "train/chunked_head.h"
#include "train/grpo_loss.h"
#include "train/trainer.h"

namespace tritonrl::train {
namespace {

namespace m = tritonrl::model;

const bool kOneThread = [] {
  at::set_num_threads(1);
  return true;
}();

double MaxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

double MaxAbs(const at::Tensor& a) {
  return a.to(at::kDouble).abs().max().item<double>();
}

// A loss that is not linear in the log-probs and weighs every row differently, so a chunked
// backward that got a row's incoming gradient wrong could not pass.
at::Tensor NonlinearLoss(const at::Tensor& lp, const at::Tensor& w, const at::Tensor& c) {
  return (w * lp.exp()).sum() + (c * lp).sum() + (lp * lp).sum() * 0.1;
}

TEST(GrpoLeanUpdate, ChunkedLogProbsMatchAutogradThroughWholeLogits) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(7);
  const int64_t N = 13, H = 16, V = 50;
  at::Tensor h0 = at::empty({N, H}).normal_(0.0, 1.0, gen);
  at::Tensor w0 = at::empty({V, H}).normal_(0.0, 0.5, gen);
  at::Tensor tg = at::randint(V, {N}, gen, at::TensorOptions().dtype(at::kLong));
  at::Tensor rw = at::empty({N}).normal_(0.0, 1.0, gen), rc = at::empty({N}).normal_(0.0, 1.0, gen);
  for (c10::ScalarType dt : {at::kFloat, at::kBFloat16}) {
    for (double temperature : {1.0, 0.7}) {
      // The reference, written out: bf16 GEMM, fp32 softmax, autograd's backward.
      at::Tensor h = h0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
      at::Tensor logits = at::linear(h.to(dt), w.to(dt)).to(at::kFloat);
      if (temperature != 1.0) logits = logits / temperature;
      at::Tensor logp = at::log_softmax(logits, -1);
      at::Tensor ref = logp.gather(1, tg.unsqueeze(1)).squeeze(1);
      at::Tensor ref_entropy = -(at::softmax(logits, -1) * logp).sum(-1).detach();
      NonlinearLoss(ref, rw, rc).backward();
      for (int64_t chunk : {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{64}}) {
        SCOPED_TRACE(std::string(c10::toString(dt)) + " T=" + std::to_string(temperature) +
                     " chunk " + std::to_string(chunk));
        at::Tensor hc = h0.clone().requires_grad_(true), wc = w0.clone().requires_grad_(true);
        at::Tensor entropy;
        at::Tensor lp = HeadLogProbs(hc.to(dt), wc.to(dt), tg, temperature, chunk, &entropy);
        ASSERT_EQ(lp.scalar_type(), at::kFloat);
        ASSERT_EQ(lp.size(0), N);
        EXPECT_FALSE(entropy.requires_grad());
        NonlinearLoss(lp, rw, rc).backward();
        const double tol = dt == at::kFloat ? 1e-5 : 2e-2;
        // Relative to the largest log-prob: a one-row chunk's GEMM is another kernel.
        EXPECT_LT(MaxAbsDiff(lp.detach(), ref.detach()), 1e-6 * MaxAbs(ref.detach()));
        EXPECT_LT(MaxAbsDiff(entropy, ref_entropy), 1e-5);
        EXPECT_LT(MaxAbsDiff(hc.grad(), h.grad()), tol * MaxAbs(h.grad()));
        EXPECT_LT(MaxAbsDiff(wc.grad(), w.grad()), tol * MaxAbs(w.grad()));
        at::NoGradGuard ng;  // without grad mode (the reference policy): the same values
        at::Tensor plain = HeadLogProbs(h0.to(dt), w0.to(dt), tg, temperature, chunk);
        EXPECT_FALSE(plain.requires_grad());
        EXPECT_TRUE(at::equal(plain, lp.detach()));
      }
    }
  }
}

m::Qwen3Model Tiny(c10::ScalarType dtype = at::kFloat) {
  m::Qwen3Config c = m::TinyQwen3Config();
  c.max_position_embeddings = 256;
  m::ModelOptions o;
  o.dtype = dtype;
  return m::RandomQwen3(c, 3, o);
}

// Four rollouts of a step: prompt + response rows of different lengths, so micro-batches pad
// differently from the whole batch.
struct Step {
  std::vector<std::vector<int32_t>> rows;
  std::vector<int64_t> from;                 // first response position of each row
  std::vector<std::vector<float>> adv, old;  // per response token
  int64_t tokens = 0;
};

Step MakeStep(Trainable& t) {
  Step s;
  s.rows = {{5, 9, 100, 7, 33, 2, 8, 250, 17, 3, 4},
            {40, 41, 42, 43, 44, 45},
            {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20},
            {200, 201, 202, 203, 204}};
  s.from = {4, 2, 6, 3};
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(11);
  at::NoGradGuard ng;
  for (size_t r = 0; r < s.rows.size(); ++r) {
    TokenBatch b = MakeBatch({s.rows[r]}, {s.from[r]}, at::kCPU);
    at::Tensor cur = ScoredLogProbs(ComputeView(t), b, false, 0.8);
    const int64_t n = cur.size(0);
    // Behaviour log-probs off the current policy by up to ±0.4, so ratios fall on both sides
    // of the clip range; advantages of both signs.
    at::Tensor old = cur + at::empty({n}).uniform_(-0.4, 0.4, gen);
    at::Tensor adv = at::empty({n}).normal_(0.0, 1.0, gen);
    s.old.emplace_back(old.data_ptr<float>(), old.data_ptr<float>() + n);
    s.adv.emplace_back(adv.data_ptr<float>(), adv.data_ptr<float>() + n);
    s.tokens += n;
  }
  return s;
}

struct Grads {
  std::vector<at::Tensor> g;
  double loss = 0;
  double clipped = 0;
};

// The update's arithmetic as train grpo runs it (UpdateMicroBatch): each micro-batch's
// surrogate divided by the step's token count, backpropagated, gradients accumulated.
Grads StepGradients(const std::vector<std::vector<size_t>>& micro, int64_t chunk,
                    bool checkpoint_layers, c10::ScalarType compute = at::kFloat) {
  Trainable t = MakeTrainable(Tiny(), compute);
  Step s = MakeStep(t);
  Grads out;
  for (const std::vector<size_t>& rows : micro) {
    std::vector<std::vector<int32_t>> ids;
    std::vector<int64_t> from;
    std::vector<float> adv, old;
    for (size_t r : rows) {
      ids.push_back(s.rows[r]);
      from.push_back(s.from[r]);
      adv.insert(adv.end(), s.adv[r].begin(), s.adv[r].end());
      old.insert(old.end(), s.old[r].begin(), s.old[r].end());
    }
    TokenBatch b = MakeBatch(ids, from, at::kCPU);
    at::Tensor lp = ScoredLogProbs(ComputeView(t), b, checkpoint_layers, 0.8, nullptr, chunk);
    at::Tensor a = at::tensor(adv), o = at::tensor(old);
    SurrogateResult sr = ClippedSurrogate(lp, o, a, at::ones_like(a), at::Tensor(),
                                          SurrogateOptions{}, static_cast<double>(s.tokens));
    sr.loss.backward();
    out.loss += sr.loss.item<double>();
    out.clipped += sr.clipped;
  }
  for (const Param& p : t.params) {
    EXPECT_TRUE(p.value.grad().defined()) << p.name;
    out.g.push_back(p.value.grad().clone());
  }
  return out;
}

void ExpectSameGradients(const Grads& a, const Grads& ref, double rel) {
  EXPECT_NEAR(a.loss, ref.loss, 1e-6 * std::max(1.0, std::abs(ref.loss)));
  EXPECT_EQ(a.clipped, ref.clipped);
  ASSERT_EQ(a.g.size(), ref.g.size());
  for (size_t i = 0; i < ref.g.size(); ++i) {
    EXPECT_LT(MaxAbsDiff(a.g[i], ref.g[i]), rel * std::max(MaxAbs(ref.g[i]), 1e-6)) << i;
  }
}

const std::vector<std::vector<size_t>> kWhole = {{0, 1, 2, 3}};

TEST(GrpoLeanUpdate, ChunkedHeadGivesTheWholeBatchGradients) {
  const Grads ref = StepGradients(kWhole, 0, false);
  ASSERT_GT(ref.clipped, 0);  // the clip removed some tokens' gradients
  ASSERT_GT(MaxAbs(ref.g[0]), 0);
  for (int64_t chunk : {int64_t{1}, int64_t{5}, int64_t{4096}}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    ExpectSameGradients(StepGradients(kWhole, chunk, false), ref, 1e-5);
  }
  SCOPED_TRACE("chunk 5 and checkpointed layers");
  ExpectSameGradients(StepGradients(kWhole, 5, true), ref, 1e-5);
}

TEST(GrpoLeanUpdate, ChunkedHeadInBf16TracksTheWholeBatch) {
  const Grads ref = StepGradients(kWhole, 0, false, at::kBFloat16);
  const Grads chunked = StepGradients(kWhole, 5, false, at::kBFloat16);
  EXPECT_NEAR(chunked.loss, ref.loss, 1e-3 * std::max(1.0, std::abs(ref.loss)));
  for (size_t i = 0; i < ref.g.size(); ++i) {
    // bf16 gradients: the head's gradient is summed over chunks in fp32 instead of by one GEMM.
    EXPECT_LT(MaxAbsDiff(chunked.g[i], ref.g[i]), 3e-2 * std::max(MaxAbs(ref.g[i]), 1e-6)) << i;
  }
}

TEST(GrpoLeanUpdate, MicroBatchesAddUpToTheStepsGradient) {
  const Grads ref = StepGradients(kWhole, 0, false);
  for (const auto& micro : std::vector<std::vector<std::vector<size_t>>>{
           {{0}, {1}, {2}, {3}}, {{2, 0}, {3, 1}}, {{1, 2, 3}, {0}}}) {
    SCOPED_TRACE(std::to_string(micro.size()) + " micro-batches");
    ExpectSameGradients(StepGradients(micro, 0, false), ref, 1e-5);
    ExpectSameGradients(StepGradients(micro, 3, false), ref, 1e-5);
  }
}

}  // namespace
}  // namespace tritonrl::train
