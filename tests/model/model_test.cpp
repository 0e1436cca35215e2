// Qwen3 decoder, checkpoint loading and generation on the CPU with tiny models.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/file.h"
#include "model/generate.h"
#include "model/lora.h"
#include "model/qwen3.h"
#include "model/safetensors.h"

namespace tritonrl::model {
namespace {

namespace fs = std::filesystem;

// Tiny tensors: one thread avoids OpenMP overheads on a shared 2-core machine.
const bool kOneThread = [] {
  at::set_num_threads(1);
  return true;
}();

Qwen3Config SmallConfig() {
  Qwen3Config c = TinyQwen3Config();
  c.max_position_embeddings = 512;
  return c;
}

Qwen3Model Small(uint64_t seed = 7, c10::ScalarType dtype = at::kFloat,
                 c10::Device device = c10::Device(c10::kCPU)) {
  ModelOptions o;
  o.dtype = dtype;
  o.device = device;
  return RandomQwen3(SmallConfig(), seed, o);
}

// The device of the tests that also prove the CUDA path (graphs captured again after a
// compaction or a cache regrowth): TRITONRL_TEST_DEVICE, default cpu. CI runs them on the CPU;
// the GPU machine runs the same binary with TRITONRL_TEST_DEVICE=cuda (bench/gpu/OWED.md).
c10::Device TestDevice() {
  const char* name = std::getenv("TRITONRL_TEST_DEVICE");
  if (name == nullptr || *name == '\0') return c10::Device(c10::kCPU);
  auto device = ParseDevice(name);
  if (!device.ok()) {
    ADD_FAILURE() << "TRITONRL_TEST_DEVICE: " << device.status().ToString();
    return c10::Device(c10::kCPU);
  }
  return *device;
}

double MaxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tritonrl_model_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

at::Tensor Ids(std::vector<int64_t> v) {
  return at::tensor(v, at::TensorOptions().dtype(at::kLong)).unsqueeze(0);
}
at::Tensor NoPad(int64_t b = 1) {
  return at::zeros({b}, at::TensorOptions().dtype(at::kLong));
}

TEST_F(TempDir, SaveLoadRoundTripGivesIdenticalLogits) {
  Qwen3Model m = Small();
  ASSERT_TRUE(SaveQwen3(m, dir_.string()).ok());
  auto loaded = LoadQwen3(dir_.string(), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  at::Tensor ids = Ids({1, 5, 9, 200, 3});
  EXPECT_EQ(MaxAbsDiff(ForwardNoCache(m, ids, NoPad()), ForwardNoCache(*loaded, ids, NoPad())),
            0.0);
  // The file uses Hugging Face's separate projection names.
  auto f = OpenSafetensors((dir_ / "model.safetensors").string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->tensors.count("model.layers.1.self_attn.k_proj.weight"));
  EXPECT_TRUE(f->tensors.count("model.layers.0.mlp.up_proj.weight"));
  EXPECT_FALSE(f->tensors.count("lm_head.weight"));  // tied
  EXPECT_EQ(f->tensors.at("model.layers.0.self_attn.q_proj.weight").shape,
            (std::vector<int64_t>{64, 64}));
}

TEST_F(TempDir, LoadsBf16CheckpointsAndShardsAndUntiedHeads) {
  Qwen3Config c = SmallConfig();
  c.tie_word_embeddings = false;
  ModelOptions bf;
  bf.dtype = at::kBFloat16;
  Qwen3Model m = RandomQwen3(c, 3, bf);
  ASSERT_TRUE(SaveQwen3(m, dir_.string()).ok());
  // Re-shard the single file into two plus an index.
  auto one = OpenSafetensors((dir_ / "model.safetensors").string());
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  std::vector<TensorToWrite> s1, s2;
  nlohmann::json map;
  for (const auto& [name, info] : one->tensors) {
    bool first = name.find("layers.1.") == std::string::npos;
    (first ? s1 : s2).push_back({name, info.dtype, info.shape, one->TensorData(info)});
    map[name] = first ? "a.safetensors" : "b.safetensors";
  }
  ASSERT_TRUE(WriteSafetensors((dir_ / "a.safetensors").string(), s1).ok());
  ASSERT_TRUE(WriteSafetensors((dir_ / "b.safetensors").string(), s2).ok());
  ASSERT_TRUE(WriteFileAtomic((dir_ / "model.safetensors.index.json").string(),
                              nlohmann::json{{"weight_map", map}}.dump())
                  .ok());
  one = OpenSafetensors((dir_ / "a.safetensors").string());  // drop the mapping of the old file
  fs::remove(dir_ / "model.safetensors");
  ModelOptions f32;
  auto loaded = LoadQwen3(dir_.string(), f32);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  at::Tensor ids = Ids({4, 8, 15, 16, 23, 42});
  // bf16 -> fp32 is exact, so the fp32 model equals the bf16 weights upcast.
  EXPECT_EQ(MaxAbsDiff(loaded->lm_head, m.lm_head.to(at::kFloat)), 0.0);
  EXPECT_LT(MaxAbsDiff(ForwardNoCache(m, ids, NoPad()), ForwardNoCache(*loaded, ids, NoPad())),
            5e-2);
}

TEST_F(TempDir, ReportsMissingExtraAndMisshapedTensors) {
  Qwen3Model m = Small();
  ASSERT_TRUE(SaveQwen3(m, dir_.string()).ok());
  std::string path = (dir_ / "model.safetensors").string();
  std::vector<TensorToWrite> kept;
  std::vector<float> extra(3, 1.0f), wrong(7, 0.0f);
  {
    auto f = OpenSafetensors(path);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    for (const auto& [name, info] : f->tensors) {
      if (name == "model.norm.weight") continue;  // missing
      if (name == "model.layers.0.self_attn.q_norm.weight") {
        kept.push_back({name, DType::kF32, {7}, wrong.data()});  // mis-shaped
        continue;
      }
      kept.push_back({name, info.dtype, info.shape, f->TensorData(info)});
    }
    kept.push_back({"model.layers.0.self_attn.rotary.weight", DType::kF32, {3}, extra.data()});
    std::string tmp = (dir_ / "new.safetensors").string();
    ASSERT_TRUE(WriteSafetensors(tmp, kept).ok());
    fs::rename(tmp, path);
  }
  auto loaded = LoadQwen3(dir_.string(), {});
  ASSERT_FALSE(loaded.ok());
  const std::string& msg = loaded.status().message();
  EXPECT_NE(msg.find("missing (1): model.norm.weight"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unexpected (1): model.layers.0.self_attn.rotary.weight"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("model.layers.0.self_attn.q_norm.weight is [7], expected [16]"),
            std::string::npos)
      << msg;
}

TEST(Qwen3, CausalAndLeftPaddingInvariant) {
  Qwen3Model m = Small();
  at::Tensor ids = Ids({10, 20, 30, 40, 50, 60});
  at::Tensor full = ForwardNoCache(m, ids, NoPad());  // [1, 6, V]
  // A prefix gives the same logits as the first positions of the whole (causality).
  at::Tensor prefix = ForwardNoCache(m, ids.narrow(1, 0, 3), NoPad());
  EXPECT_LT(MaxAbsDiff(prefix, full.narrow(1, 0, 3)), 1e-5);
  // Left padding with garbage tokens changes nothing for the real positions.
  at::Tensor padded = at::cat({Ids({7, 7, 7}), ids}, 1);
  at::Tensor pad = at::full({1}, 3, at::TensorOptions().dtype(at::kLong));
  at::Tensor out = ForwardNoCache(m, padded, pad);
  EXPECT_LT(MaxAbsDiff(out.narrow(1, 3, 6), full), 1e-5);
  EXPECT_FALSE(at::isnan(out).any().item<bool>());
}

TEST(Qwen3, Bf16TracksFp32) {
  Qwen3Model f = Small(11, at::kFloat), b = Small(11, at::kBFloat16);
  at::Tensor ids = Ids({1, 2, 3, 4, 5, 6, 7, 8});
  at::Tensor lf = ForwardNoCache(f, ids, NoPad()), lb = ForwardNoCache(b, ids, NoPad());
  EXPECT_EQ(lb.scalar_type(), at::kFloat);
  EXPECT_LT(MaxAbsDiff(lf, lb), 5e-2);
  EXPECT_GT(lf.abs().max().item<double>(), 0.05);  // not trivially zero
}

// Greedy decoding through the KV cache gives, at every step, the logits a
// full forward over prompt + generated tokens gives (fp32, tight tolerance).
TEST(Generation, KvCacheMatchesFullRecomputation) {
  Qwen3Model m = Small();
  std::vector<std::vector<int32_t>> prompts = {{5, 6, 7}, {100, 101, 102, 103, 104, 105, 106}};
  auto session = Prefill(m, prompts, 1, 12);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<std::vector<int64_t>> seqs(2);
  for (int r = 0; r < 2; ++r) seqs[r].assign(prompts[r].begin(), prompts[r].end());
  for (int step = 0; step < 12; ++step) {
    for (int r = 0; r < 2; ++r) {
      at::Tensor ref = ForwardNoCache(m, Ids(seqs[r]), NoPad()).select(0, 0).select(0, -1);
      ASSERT_LT(MaxAbsDiff(session->logits.select(0, r), ref), 2e-5) << "step " << step;
    }
    at::Tensor next = session->logits.argmax(-1);
    session->tokens.copy_(next);
    for (int r = 0; r < 2; ++r) seqs[r].push_back(next[r].item<int64_t>());
    DecodeStep(*session);
  }
}

// The decode step's fused kernels (see docs/model.md, "Numerics") stay within
// bf16 rounding noise of the full forward's reference rounding order.
TEST(Generation, Bf16DecodeStepTracksFullForward) {
  Qwen3Model m = Small(5, at::kBFloat16);
  std::vector<int32_t> prompt = {11, 12, 13, 14, 15};
  auto session = Prefill(m, {prompt}, 1, 6);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<int64_t> seq(prompt.begin(), prompt.end());
  for (int step = 0; step < 6; ++step) {
    at::Tensor ref = ForwardNoCache(m, Ids(seq), NoPad()).select(0, 0).select(0, -1);
    ASSERT_GT(ref.abs().max().item<double>(), 0.05);
    const double diff = MaxAbsDiff(session->logits.select(0, 0), ref);
    RecordProperty("max_abs_diff_step_" + std::to_string(step), std::to_string(diff));
    ASSERT_LT(diff, 3e-2) << "step " << step;
    int64_t next = session->logits.select(0, 0).argmax().item<int64_t>();
    session->tokens.fill_(next);
    seq.push_back(next);
    DecodeStep(*session);
  }
}

TEST(Generation, BatchedEqualsOneAtATime) {
  Qwen3Model m = Small();
  std::vector<std::vector<int32_t>> prompts = {{1, 2, 3}, {9, 8, 7, 6, 5, 4, 3, 2, 1}, {42}};
  SamplingOptions o;
  o.temperature = 0;
  o.max_new_tokens = 10;
  auto batched = Generate(m, nullptr, prompts, o);
  ASSERT_TRUE(batched.ok()) << batched.status().ToString();
  ASSERT_EQ(batched->size(), 3u);
  for (size_t i = 0; i < prompts.size(); ++i) {
    auto alone = Generate(m, nullptr, {prompts[i]}, o);
    ASSERT_TRUE(alone.ok()) << alone.status().ToString();
    EXPECT_EQ((*batched)[i].tokens, (*alone)[0].tokens) << "prompt " << i;
    ASSERT_EQ((*batched)[i].logprobs.size(), 10u);
    for (size_t t = 0; t < 10; ++t) {
      EXPECT_NEAR((*batched)[i].logprobs[t], (*alone)[0].logprobs[t], 1e-4);
    }
    EXPECT_EQ((*batched)[i].prompt_index, static_cast<int64_t>(i));
    EXPECT_EQ((*batched)[i].finish_reason, "length");
  }
}

// Finished rows dropped from the batch and the KV cache (compaction), and a cache that grows
// as rows get longer, change no token: greedy and seeded sampling (with penalties, whose
// per-row counts are compacted too), rows stopping at different steps, host checks every step
// and every third step. Log-probabilities to fp32 rounding (a smaller batch may sum its GEMMs
// in another order).
TEST(Generation, CompactionAndGrowingCacheChangeNoToken) {
  Qwen3Model m = Small(7, at::kFloat, TestDevice());
  RecordProperty("device", m.embed.device().str());
  const std::vector<std::vector<int32_t>> prompts = {
      {1, 2, 3}, {9, 8, 7, 6, 5, 4, 3, 2, 1}, {42}, {100, 7, 7}};
  struct Case {
    const char* name;
    double temperature, presence, repetition;
    int64_t num_samples;
    size_t min_lengths;  // distinct response lengths the case must have
  };
  // A random model's greedy rows repeat one token each; the presence penalty varies them.
  for (const Case& c :
       {Case{"greedy", 0, 0, 1, 1, 2}, Case{"greedy with a penalty", 0, 1.0, 1, 1, 3},
        Case{"sampled", 1, 0, 1, 3, 3}, Case{"sampled with penalties", 0.8, 0.5, 1.3, 3, 3}}) {
    SCOPED_TRACE(c.name);
    SamplingOptions o;
    o.temperature = c.temperature;
    o.presence_penalty = c.presence;
    o.repetition_penalty = c.repetition;
    o.num_samples = c.num_samples;
    o.max_new_tokens = 40;
    o.seed = 77;
    o.compact_finished = false;
    o.kv_reserve_tokens = 0;  // the static cache: every row to the end, all slots up front
    // Stop tokens taken from a run without them: row r's token at step 2 + 4r, so rows stop at
    // different steps (stops are checked on the host: the tokens before them do not change).
    auto free = Generate(m, nullptr, prompts, o);
    ASSERT_TRUE(free.ok()) << free.status().ToString();
    for (size_t r = 0; r < free->size() && 2 + 4 * r < 30; r += 2) {
      o.stop_token_ids.push_back((*free)[r].tokens[2 + 4 * r]);
    }
    GenerationStats ref_stats;
    auto ref = Generate(m, nullptr, prompts, o, &ref_stats);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    std::set<size_t> lengths;
    for (const Completion& r : *ref) lengths.insert(r.tokens.size());
    ASSERT_GE(lengths.size(), c.min_lengths) << "rows should stop at different steps";
    ASSERT_LT(*lengths.begin(), 20u);
    ASSERT_EQ(*lengths.rbegin(), 40u);  // and at least one runs to the end
    for (int v = 0; v < 3; ++v) {
      SCOPED_TRACE(v);
      o.compact_finished = v != 2;
      o.kv_reserve_tokens = v == 0 ? 0 : 3;  // grow by the 64-slot quantum from prompt + 3
      o.sync_interval = v == 1 ? 3 : 0;
      GenerationStats st;
      auto got = Generate(m, nullptr, prompts, o, &st);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ(got->size(), ref->size());
      for (size_t i = 0; i < ref->size(); ++i) {
        EXPECT_EQ((*got)[i].tokens, (*ref)[i].tokens) << "row " << i;
        EXPECT_EQ((*got)[i].finish_reason, (*ref)[i].finish_reason) << "row " << i;
        ASSERT_EQ((*got)[i].logprobs.size(), (*ref)[i].logprobs.size());
        for (size_t t = 0; t < (*ref)[i].logprobs.size(); ++t) {
          EXPECT_NEAR((*got)[i].logprobs[t], (*ref)[i].logprobs[t], 1e-5) << i << " " << t;
        }
      }
      EXPECT_EQ(st.decode_steps, ref_stats.decode_steps);
      // Compaction: the finished rows stopped being decoded.
      if (o.compact_finished) {
        EXPECT_LT(st.new_tokens, ref_stats.new_tokens);
      } else {
        EXPECT_EQ(st.new_tokens, ref_stats.new_tokens);
      }
    }
  }
}

TEST(Generation, SamplingIsReproducibleAndSamplesShareThePrefill) {
  Qwen3Model m = Small();
  SamplingOptions o;
  o.temperature = 1.0;
  o.max_new_tokens = 16;
  o.num_samples = 4;
  o.seed = 123;
  auto a = Generate(m, nullptr, {{1, 2, 3}, {4, 5}}, o);
  auto b = Generate(m, nullptr, {{1, 2, 3}, {4, 5}}, o);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*a)[i].tokens, (*b)[i].tokens);
  EXPECT_EQ((*a)[5].prompt_index, 1);
  EXPECT_EQ((*a)[5].sample_index, 1);
  // Samples of one prompt differ (random model: near-uniform distribution).
  EXPECT_NE((*a)[0].tokens, (*a)[1].tokens);
  o.seed = 124;
  auto c = Generate(m, nullptr, {{1, 2, 3}, {4, 5}}, o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NE((*a)[0].tokens, (*c)[0].tokens);
  // The reported log-probabilities are those of the sampled tokens under the
  // model: recompute the first one from a plain forward.
  at::Tensor logits = ForwardNoCache(m, Ids({1, 2, 3}), NoPad()).select(0, 0).select(0, -1);
  for (int s = 0; s < 4; ++s) {
    double want = at::log_softmax(logits, -1)[(*a)[s].tokens[0]].item<double>();
    EXPECT_NEAR((*a)[s].logprobs[0], want, 1e-5);
  }
}

TEST(Generation, GreedySamplesOfOnePromptAreIdentical) {
  Qwen3Model m = Small();
  SamplingOptions o;
  o.temperature = 0;
  o.max_new_tokens = 6;
  o.num_samples = 3;
  auto r = Generate(m, nullptr, {{3, 1, 4, 1, 5}}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto one = Generate(m, nullptr, {{3, 1, 4, 1, 5}}, {.temperature = 0, .max_new_tokens = 6});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  for (int s = 0; s < 3; ++s) EXPECT_EQ((*r)[s].tokens, (*one)[0].tokens);
}

at::Tensor HandLogits() {
  // probabilities 0.5, 0.3, 0.15, 0.05 in two rows (second row reversed)
  std::vector<float> p = {0.5f, 0.3f, 0.15f, 0.05f, 0.05f, 0.15f, 0.3f, 0.5f};
  return at::tensor(p).view({2, 4}).log();
}

std::vector<bool> Kept(const at::Tensor& masked, int row) {
  std::vector<bool> k;
  for (int i = 0; i < 4; ++i) k.push_back(std::isfinite(masked[row][i].item<float>()));
  return k;
}

TEST(Sampling, TopKAndTopPKeepTheRightTokens) {
  at::Tensor l = HandLogits();
  using B = std::vector<bool>;
  EXPECT_EQ(Kept(MaskTopKTopP(l, 2, 1.0), 0), (B{true, true, false, false}));
  EXPECT_EQ(Kept(MaskTopKTopP(l, 2, 1.0), 1), (B{false, false, true, true}));
  EXPECT_EQ(Kept(MaskTopKTopP(l, 0, 0.7), 0), (B{true, true, false, false}));
  EXPECT_EQ(Kept(MaskTopKTopP(l, 0, 0.9), 0), (B{true, true, true, false}));
  EXPECT_EQ(Kept(MaskTopKTopP(l, 0, 0.9), 1), (B{false, true, true, true}));
  EXPECT_EQ(Kept(MaskTopKTopP(l, 0, 0.01), 0), (B{true, false, false, false}));
  EXPECT_EQ(Kept(MaskTopKTopP(l, 3, 0.6), 0), (B{true, true, false, false}));
}

TEST(Sampling, PenaltiesByHand) {
  // One row, 4 tokens: token 0 sampled twice, token 1 once; token 2 only in the prompt.
  at::Tensor logits = at::tensor(std::vector<float>{2.0f, -1.0f, 3.0f, 0.5f}).view({1, 4});
  at::Tensor counts = at::tensor(std::vector<float>{2, 1, 0, 0}).view({1, 4});
  at::Tensor prompt = at::tensor(std::vector<uint8_t>{0, 0, 1, 0}).to(at::kBool).view({1, 4});
  auto values = [](const at::Tensor& t) {
    std::vector<float> v;
    for (int i = 0; i < 4; ++i) v.push_back(t[0][i].item<float>());
    return v;
  };
  SamplingOptions o;
  EXPECT_FALSE(HasPenalties(o));
  o.presence_penalty = 0.5;
  EXPECT_TRUE(HasPenalties(o));
  EXPECT_EQ(values(ApplyPenalties(logits, counts, prompt, o)),
            (std::vector<float>{1.5f, -1.5f, 3.0f, 0.5f}));
  o.presence_penalty = 0;
  o.frequency_penalty = 0.25;
  EXPECT_EQ(values(ApplyPenalties(logits, counts, prompt, o)),
            (std::vector<float>{1.5f, -1.25f, 3.0f, 0.5f}));
  o.frequency_penalty = 0;
  o.repetition_penalty = 2;
  // Divided when positive, multiplied when negative; the prompt's tokens count as seen.
  EXPECT_EQ(values(ApplyPenalties(logits, counts, prompt, o)),
            (std::vector<float>{1.0f, -2.0f, 1.5f, 0.5f}));
  EXPECT_EQ(values(ApplyPenalties(logits, counts, at::Tensor(), o)),
            (std::vector<float>{1.0f, -2.0f, 3.0f, 0.5f}));
}

TEST(Generation, APresencePenaltyStopsGreedyRepeats) {
  Qwen3Model m = Small(21);
  SamplingOptions o;
  o.temperature = 0;
  o.max_new_tokens = 40;
  auto plain = Generate(m, nullptr, {{3, 1, 4}}, o);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  auto distinct = [](std::vector<int32_t> t) {
    std::sort(t.begin(), t.end());
    return static_cast<size_t>(std::unique(t.begin(), t.end()) - t.begin());
  };
  // Greedy decoding of a random model loops over a few tokens...
  ASSERT_LT(distinct((*plain)[0].tokens), 40u);
  // ... and a penalty larger than any logit gap never picks a token twice.
  o.presence_penalty = 1000;
  auto penalised = Generate(m, nullptr, {{3, 1, 4}, {2, 7}}, o);
  ASSERT_TRUE(penalised.ok()) << penalised.status().ToString();
  for (const auto& c : *penalised) EXPECT_EQ(distinct(c.tokens), c.tokens.size());
}

TEST(Sampling, FrequenciesFollowTheDistribution) {
  at::Tensor l = HandLogits().select(0, 0).unsqueeze(0).expand({4000, 4}).contiguous();
  SamplingOptions o;
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(5);
  Sampled s = SampleTokens(l, o, g);
  at::Tensor counts = at::bincount(s.tokens, {}, 4).to(at::kDouble) / 4000.0;
  const double want[] = {0.5, 0.3, 0.15, 0.05};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(counts[i].item<double>(), want[i], 0.03) << i;
  EXPECT_NEAR(s.logprobs[0].item<double>(), std::log(want[s.tokens[0].item<int64_t>()]), 1e-5);
  // top-k 2 never draws the tail; temperature 0 is argmax.
  o.top_k = 2;
  Sampled k2 = SampleTokens(l, o, g);
  EXPECT_EQ(at::bincount(k2.tokens, {}, 4)[2].item<int64_t>(), 0);
  EXPECT_EQ(at::bincount(k2.tokens, {}, 4)[3].item<int64_t>(), 0);
  o.temperature = 0;
  EXPECT_TRUE((SampleTokens(l, o, g).tokens == 0).all().item<bool>());
}

TEST(Generation, StopTokensAndStopStrings) {
  Qwen3Model m = Small(21);
  Tokenizer tok = ByteFallbackTokenizer();
  SamplingOptions o;
  o.temperature = 0.7;
  o.seed = 9;
  o.max_new_tokens = 40;
  std::vector<std::vector<int32_t>> prompts = {{'d', 'e', 'f'}};
  auto free_run = Generate(m, &tok, prompts, o);
  ASSERT_TRUE(free_run.ok()) << free_run.status().ToString();
  const auto& toks = (*free_run)[0].tokens;
  ASSERT_EQ(toks.size(), 40u);
  // Stop token: the run ends at its first occurrence, which is kept in tokens
  // (its log-probability matters for training) but not in the text.
  int32_t stop = toks[10];
  size_t first = std::find(toks.begin(), toks.end(), stop) - toks.begin();
  SamplingOptions os = o;
  os.stop_token_ids = {stop};
  auto r = Generate(m, &tok, prompts, os);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].finish_reason, "stop");
  EXPECT_EQ((*r)[0].tokens, std::vector<int32_t>(toks.begin(), toks.begin() + first + 1));
  EXPECT_EQ((*r)[0].logprobs.size(), first + 1);
  EXPECT_EQ((*r)[0].text, Decode(tok, std::vector<int32_t>(toks.begin(), toks.begin() + first)));
  // Stop string: two bytes from the middle of the free run's output.
  std::string raw = DecodeBytes(tok, toks);
  std::string needle = raw.substr(20, 2);
  size_t at = raw.find(needle);
  SamplingOptions ss = o;
  ss.stop_strings = {needle};
  auto s = Generate(m, &tok, prompts, ss);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)[0].finish_reason, "stop");
  EXPECT_EQ((*s)[0].text, ToValidUtf8(raw.substr(0, at)));
  // Tokens run up to the first one whose bytes complete the needle.
  size_t want = 0;
  while (DecodeBytes(tok, std::span<const int32_t>(toks.data(), want)).find(needle) ==
         std::string::npos) {
    ++want;
  }
  EXPECT_EQ((*s)[0].tokens, std::vector<int32_t>(toks.begin(), toks.begin() + want));
  // Stop strings without a tokenizer are a usage error.
  EXPECT_FALSE(Generate(m, nullptr, prompts, ss).ok());
}

TEST(Generation, RejectsBadPrompts) {
  Qwen3Model m = Small();
  EXPECT_FALSE(Generate(m, nullptr, {{}}, {}).ok());
  EXPECT_FALSE(Generate(m, nullptr, {{1, 100000}}, {}).ok());
  SamplingOptions o;
  o.max_new_tokens = 600;  // past the 512 rotary positions
  EXPECT_FALSE(Generate(m, nullptr, {{1}}, o).ok());
}

TEST(Generation, AttendWindowIsQuantised) {
  EXPECT_EQ(AttendWindow(0, 1000), 64);
  EXPECT_EQ(AttendWindow(63, 1000), 64);
  EXPECT_EQ(AttendWindow(64, 1000), 128);
  EXPECT_EQ(AttendWindow(990, 1000), 1000);
}

}  // namespace
}  // namespace tritonrl::model
