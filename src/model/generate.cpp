#include "model/generate.h"
#include "model/policy.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>

#include "model/end_of_turn.h"
#include "model/lora.h"

#ifdef TRITONRL_MODEL_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace tritonrl::model {

namespace {

// Decode attention reads a window of the cache rounded up to this many slots:
// each distinct window is one CUDA graph; a finer quantum reads fewer unused
// slots (on average half a quantum per row and step) but captures more graphs.
constexpr int64_t kWindowQuantum = 64;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void Synchronize(const c10::Device& device) {
#ifdef TRITONRL_MODEL_CUDA
  if (device.is_cuda()) c10::cuda::device_synchronize();
#else
  (void)device;
#endif
}

// Per-row sampled tokens and log-probabilities, written on the device at
// column `step` so the host reads them only every few steps.
struct History {
  at::Tensor tokens;    // [B, max_new] int64
  at::Tensor logprobs;  // [B, max_new] float
  at::Tensor step;      // [1] int64
  // With penalties only (undefined otherwise): tokens sampled per row, [B, V] float; the prompt's
  // tokens per row, [B, V] bool (repetition penalty only); ones to count with, [B, 1] float.
  at::Tensor counts;
  at::Tensor prompt_seen;
  at::Tensor ones;
  // Once the batch has been compacted: each batch row's row of the uncompacted batch [B] int64,
  // and that batch's size. The sampler's random draws are made for every row of the
  // uncompacted batch and these rows taken, so a row draws the same numbers whatever rows
  // finished before it (compaction changes no token). Undefined before the first compaction.
  at::Tensor draw_rows;
  int64_t draw_total = 0;
};

// Samples the next token of each row from `logits` with the penalties, and counts it.
Sampled SampleCounted(const at::Tensor& logits, History& h, const SamplingOptions& o,
                      const std::optional<at::Generator>& gen) {
  if (!h.counts.defined()) return SampleTokens(logits, o, gen, h.draw_rows, h.draw_total);
  Sampled r = SampleTokens(ApplyPenalties(logits, h.counts, h.prompt_seen, o), o, gen, h.draw_rows,
                           h.draw_total);
  h.counts.scatter_add_(1, r.tokens.view({-1, 1}), h.ones);
  return r;
}

// The penalties' state for `prompts` (each repeated num_samples times, as the session's rows).
void StartPenalties(History& h, const std::vector<std::vector<int32_t>>& prompts,
                    const SamplingOptions& o, int64_t vocab, const c10::Device& dev) {
  if (!HasPenalties(o)) return;
  const int64_t B = static_cast<int64_t>(prompts.size()) * o.num_samples;
  h.counts = at::zeros({B, vocab}, at::TensorOptions().dtype(at::kFloat).device(dev));
  h.ones = at::ones({B, 1}, at::TensorOptions().dtype(at::kFloat).device(dev));
  if (o.repetition_penalty == 1.0) return;
  at::Tensor seen = at::zeros({static_cast<int64_t>(prompts.size()), vocab}, at::kBool);
  for (size_t i = 0; i < prompts.size(); ++i) {
    std::vector<int64_t> ids(prompts[i].begin(), prompts[i].end());
    seen.select(0, static_cast<int64_t>(i)).index_fill_(0, at::tensor(ids), true);
  }
  h.prompt_seen = seen.repeat_interleave(o.num_samples, 0).to(dev);
}

at::Tensor StepLogits(DecodeSession& s, int64_t window) {
  const int64_t B = s.batch;
  ForwardArgs a;
  a.ids = s.tokens.view({B, 1});
  a.positions = (s.slot - s.pad).clamp_min(0).view({B, 1});
  a.mask = LeftPaddedCausalMask(s.pad, s.slot, window);
  a.cache = &s.cache;
  a.slots = s.slot;
  a.attend_len = window;
  a.last_only = true;
  return Forward(*s.model, a);
}

// One decode step that samples the next token and records it: everything a
// CUDA graph captures (no host synchronisation inside).
void SampleStep(DecodeSession& s, History& h, int64_t window, const SamplingOptions& o,
                const std::optional<at::Generator>& gen) {
  at::Tensor logits = StepLogits(s, window);
  Sampled r = SampleCounted(logits, h, o, gen);
  s.tokens.copy_(r.tokens);
  h.tokens.index_copy_(1, h.step, r.tokens.view({s.batch, 1}));
  h.logprobs.index_copy_(1, h.step, r.logprobs.view({s.batch, 1}));
  s.slot.add_(1);
  h.step.add_(1);
}

#ifdef TRITONRL_MODEL_CUDA
// Decode-step graphs, one per attention window, sharing one memory pool. Every
// graph writes its results into the session's static tensors, so the pool
// holds only temporaries and sharing it is safe (graphs never overlap).
struct StepGraphs {
  std::map<int64_t, std::unique_ptr<at::cuda::CUDAGraph>> graphs;
  at::cuda::MempoolId_t pool{0, 0};
  bool have_pool = false;
  double capture_seconds = 0;

  // After the session's tensors were reallocated (compaction, a grown cache): the graphs point
  // at the old ones. A fresh pool too: a pool whose graphs are all gone cannot be captured into.
  void Reset() {
    graphs.clear();
    have_pool = false;
    pool = at::cuda::MempoolId_t{0, 0};
  }

  void Run(DecodeSession& s, History& h, int64_t window, const SamplingOptions& o) {
    auto it = graphs.find(window);
    if (it == graphs.end()) it = graphs.emplace(window, Capture(s, h, window, o)).first;
    it->second->replay();
  }

  std::unique_ptr<at::cuda::CUDAGraph> Capture(DecodeSession& s, History& h, int64_t window,
                                               const SamplingOptions& o) {
    auto t0 = std::chrono::steady_clock::now();
    c10::cuda::device_synchronize();
    // Warm up on the capture stream (library handles, workspaces, kernel
    // choices), then undo the warm-up's state changes; the cache slot it wrote
    // is rewritten by the real step.
    at::Tensor tokens = s.tokens.clone(), slot = s.slot.clone(), step = h.step.clone();
    at::Tensor counts = h.counts.defined() ? h.counts.clone() : at::Tensor();
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool(false, s.model->device.index());
    // The warm-up draws from the default generator too: without its state put back, every
    // capture (the first, and each after a compaction or a cache regrowth) would move the
    // sampling on by one step's draws, and a compacted run's tokens would differ from an
    // uncompacted one's (seen on an H100, 2026-12-06: a row one draw ahead after compacting).
    at::Generator rng = at::cuda::detail::getDefaultCUDAGenerator(s.model->device.index());
    at::Tensor rng_state;
    {
      std::lock_guard<std::mutex> lock(rng.mutex());
      rng_state = rng.get_state();
    }
    {
      c10::cuda::CUDAStreamGuard guard(stream);
      SampleStep(s, h, window, o, std::nullopt);
      s.tokens.copy_(tokens);
      s.slot.copy_(slot);
      h.step.copy_(step);
      if (counts.defined()) h.counts.copy_(counts);
      stream.synchronize();
      {
        std::lock_guard<std::mutex> lock(rng.mutex());
        rng.set_state(rng_state);
      }
      graph->capture_begin(have_pool ? pool : at::cuda::MempoolId_t{0, 0});
      SampleStep(s, h, window, o, std::nullopt);
      graph->capture_end();
    }
    if (!have_pool) {
      pool = graph->pool();
      have_pool = true;
    }
    c10::cuda::device_synchronize();
    capture_seconds += Seconds(t0);
    return graph;
  }
};
#endif

}  // namespace

int64_t AttendWindow(int64_t slot, int64_t capacity) {
  int64_t w = (slot + 1 + kWindowQuantum - 1) / kWindowQuantum * kWindowQuantum;
  return std::min(w, capacity);
}

at::Tensor MaskTopKTopP(const at::Tensor& logits, int64_t top_k, double top_p) {
  const double ninf = -std::numeric_limits<double>::infinity();
  at::Tensor out = logits;
  const int64_t V = logits.size(-1);
  if (top_k > 0 && top_k < V) {
    at::Tensor kth = std::get<0>(at::topk(out, top_k, -1)).narrow(-1, top_k - 1, 1);
    out = out.masked_fill(out < kth, ninf);
  }
  if (top_p < 1.0) {
    auto [sorted, order] = at::sort(out, -1, /*descending=*/true);
    at::Tensor probs = at::softmax(sorted, -1);
    // Drop a token once the mass of the tokens ranked above it reaches top_p;
    // the most likely token always stays.
    at::Tensor before = probs.cumsum(-1) - probs;
    at::Tensor drop = before >= top_p;
    drop.narrow(-1, 0, 1).fill_(false);
    out = at::empty_like(out).scatter_(-1, order, sorted.masked_fill(drop, ninf));
  }
  return out;
}

bool HasPenalties(const SamplingOptions& o) {
  return o.presence_penalty != 0 || o.frequency_penalty != 0 || o.repetition_penalty != 1;
}

at::Tensor ApplyPenalties(const at::Tensor& logits, const at::Tensor& counts,
                          const at::Tensor& prompt_seen, const SamplingOptions& o) {
  at::Tensor out = logits;
  if (o.repetition_penalty != 1.0) {
    at::Tensor seen = counts > 0;
    if (prompt_seen.defined()) seen = seen.logical_or(prompt_seen);
    at::Tensor scaled = at::where(out > 0, out / o.repetition_penalty, out * o.repetition_penalty);
    out = at::where(seen, scaled, out);
  }
  if (o.frequency_penalty != 0) out = out - counts * o.frequency_penalty;
  if (o.presence_penalty != 0) out = out - (counts > 0).to(out.scalar_type()) * o.presence_penalty;
  return out;
}

Sampled SampleTokens(const at::Tensor& logits, const SamplingOptions& o,
                     const std::optional<at::Generator>& generator, const at::Tensor& draw_rows,
                     int64_t draw_total) {
  Sampled r;
  if (o.temperature <= 0) {
    r.tokens = logits.argmax(-1);
    r.logprobs = at::log_softmax(logits, -1).gather(1, r.tokens.unsqueeze(1)).squeeze(1);
    return r;
  }
  at::Tensor scaled = o.temperature == 1.0 ? logits : logits / o.temperature;
  at::Tensor probs = at::softmax(MaskTopKTopP(scaled, o.top_k, o.top_p), -1);
  // Exponential race (Gumbel-max): argmax p_i / E_i with E_i ~ Exp(1) draws
  // i with probability p_i, without a host round trip or a cumulative sum.
  at::Tensor race = draw_rows.defined() ? at::empty({draw_total, probs.size(1)}, probs.options())
                                              .exponential_(1.0, generator)
                                              .index_select(0, draw_rows)
                                        : at::empty_like(probs).exponential_(1.0, generator);
  r.tokens = (probs / race).argmax(-1);
  r.logprobs = at::log_softmax(scaled, -1).gather(1, r.tokens.unsqueeze(1)).squeeze(1);
  return r;
}

Result<DecodeSession> Prefill(const Qwen3Model& model,
                              const std::vector<std::vector<int32_t>>& prompts, int64_t num_samples,
                              int64_t max_new_tokens, int64_t reserve_new_tokens) {
  if (prompts.empty()) return Status::InvalidArgument("no prompts");
  if (num_samples < 1) return Status::InvalidArgument("num_samples must be at least 1");
  if (max_new_tokens < 1) return Status::InvalidArgument("max_new_tokens must be at least 1");
  const int64_t N = static_cast<int64_t>(prompts.size());
  int64_t P = 0;
  for (size_t i = 0; i < prompts.size(); ++i) {
    if (prompts[i].empty())
      return Status::InvalidArgument("prompt " + std::to_string(i) + " is empty");
    for (int32_t id : prompts[i]) {
      if (id < 0 || id >= model.config.vocab_size) {
        return Status::InvalidArgument("prompt " + std::to_string(i) + " has token id " +
                                       std::to_string(id) + " outside the vocabulary (" +
                                       std::to_string(model.config.vocab_size) + ")");
      }
    }
    P = std::max<int64_t>(P, static_cast<int64_t>(prompts[i].size()));
  }
  if (P + max_new_tokens > model.max_positions()) {
    return Status::InvalidArgument("prompt length " + std::to_string(P) + " + max_new_tokens " +
                                   std::to_string(max_new_tokens) +
                                   " exceeds the model's positions (" +
                                   std::to_string(model.max_positions()) + ")");
  }
  auto cpu_long = at::TensorOptions().dtype(at::kLong);
  at::Tensor ids = at::zeros({N, P}, cpu_long);
  at::Tensor pad = at::empty({N}, cpu_long);
  auto ids_a = ids.accessor<int64_t, 2>();
  auto pad_a = pad.accessor<int64_t, 1>();
  for (int64_t i = 0; i < N; ++i) {
    const auto& p = prompts[i];
    const int64_t len = static_cast<int64_t>(p.size());
    pad_a[i] = P - len;
    for (int64_t t = 0; t < len; ++t) ids_a[i][P - len + t] = p[t];
  }
  const c10::Device dev = model.device;
  ids = ids.to(dev);
  const bool unpadded = pad.max().item<int64_t>() == 0;
  pad = pad.to(dev);
  const int64_t B = N * num_samples;
  const int64_t max_capacity = (P + max_new_tokens + 7) / 8 * 8;
  const int64_t reserve = reserve_new_tokens > 0 ? reserve_new_tokens : max_new_tokens;
  const int64_t capacity = std::min(max_capacity, (P + reserve + 7) / 8 * 8);
  // Prefill writes slots [0, P); the decode slots start zeroed.
  KvCache cache = AllocateKvCache(model, B, capacity, P);
  // With one sample per prompt the prefill writes the decode cache directly;
  // otherwise into a prompt-sized cache whose rows are then copied to each
  // prompt's samples.
  const bool direct = num_samples == 1;
  KvCache prompt_cache;
  if (!direct) prompt_cache = AllocateKvCache(model, N, P, P);
  at::Tensor slots = at::arange(P, cpu_long.device(dev));
  ForwardArgs a;
  a.ids = ids;
  a.positions = (slots.unsqueeze(0) - pad.unsqueeze(1)).clamp_min(0);
  // Equal lengths (no padding): causal attention without a mask, as the
  // reference runs it; left-padded rows need the mask.
  a.causal = unpadded;
  if (!unpadded) a.mask = LeftPaddedCausalMask(pad, slots, P);
  a.cache = direct ? &cache : &prompt_cache;
  a.slots = slots;
  a.attend_len = P;
  a.last_only = true;
  at::Tensor logits = Forward(model, a);

  DecodeSession s;
  s.model = &model;
  s.batch = B;
  s.prompt_slots = P;
  s.next_slot = P;
  s.max_capacity = max_capacity;
  s.cache = std::move(cache);
  if (direct) {
    s.pad = pad;
    s.logits = logits;
  } else {
    // Rows of one prompt's samples are adjacent and share its prefill.
    at::Tensor rows = at::arange(N, cpu_long.device(dev)).repeat_interleave(num_samples);
    for (size_t l = 0; l < s.cache.k.size(); ++l) {
      s.cache.k[l].narrow(2, 0, P).copy_(prompt_cache.k[l].index_select(0, rows));
      s.cache.v[l].narrow(2, 0, P).copy_(prompt_cache.v[l].index_select(0, rows));
    }
    s.pad = pad.index_select(0, rows);
    s.logits = logits.index_select(0, rows);
  }
  s.slot = at::full({1}, P, cpu_long.device(dev));
  s.tokens = at::zeros({s.batch}, cpu_long.device(dev));
  return s;
}

void ReshapeSession(DecodeSession& s, const at::Tensor& keep, int64_t capacity) {
  const int64_t written = s.next_slot;
  for (std::vector<at::Tensor>* layers : {&s.cache.k, &s.cache.v}) {
    for (at::Tensor& x : *layers) {
      at::Tensor rows = keep.defined() ? x.index_select(0, keep) : x;
      if (capacity == x.size(2)) {
        x = rows;  // the slots past `written` are still the zeros they were allocated with
        continue;
      }
      at::Tensor grown = at::empty({rows.size(0), x.size(1), capacity, x.size(3)}, x.options());
      grown.narrow(2, 0, written).copy_(rows.narrow(2, 0, written));
      grown.narrow(2, written, capacity - written).zero_();
      x = grown;  // the old layer is freed here, before the next layer is allocated
    }
  }
  if (keep.defined()) {
    s.pad = s.pad.index_select(0, keep);
    s.tokens = s.tokens.index_select(0, keep);
    if (s.logits.defined()) s.logits = s.logits.index_select(0, keep);
    s.batch = keep.size(0);
  }
}

void DecodeStep(DecodeSession& s) {
  s.logits = StepLogits(s, AttendWindow(s.next_slot, s.cache.capacity()));
  s.slot.add_(1);
  ++s.next_slot;
}

namespace {

// The host side of decoding: the sampled history's columns read back in chunks, each row's
// tokens and log-probs appended until its stop token or a stop string (then the row is done).
struct HostCollector {
  HostCollector(int64_t rows, const SamplingOptions& options, const Tokenizer* tok)
      : o(options), tokenizer(tok), out(rows), bytes(rows), done(rows, false), live(rows) {
    for (int64_t r = 0; r < rows; ++r) {
      out[r].prompt_index = r / o.num_samples;
      out[r].sample_index = r % o.num_samples;
      out[r].finish_reason = "length";
      live[r] = r;
    }
  }

  // Reads history columns [consumed, upto) and appends them to the rows not done.
  void Absorb(const History& h, int64_t upto) {
    if (upto <= consumed) return;
    at::Tensor toks = h.tokens.narrow(1, consumed, upto - consumed).to(at::kCPU).contiguous();
    at::Tensor lps = h.logprobs.narrow(1, consumed, upto - consumed).to(at::kCPU).contiguous();
    auto ta = toks.accessor<int64_t, 2>();
    auto la = lps.accessor<float, 2>();
    for (int64_t i = 0; i < static_cast<int64_t>(live.size()); ++i) {
      const int64_t r = live[i];
      for (int64_t c = 0; c < upto - consumed && !done[r]; ++c) {
        AppendToken(r, static_cast<int32_t>(ta[i][c]), la[i][c]);
      }
    }
    consumed = upto;
  }

  // Batch rows (indices into `live`) whose output row has not finished.
  std::vector<int64_t> Running() const {
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < static_cast<int64_t>(live.size()); ++i) {
      if (!done[live[i]]) keep.push_back(i);
    }
    return keep;
  }

  // Shows the rows to `progress` and gives up the rows it abandons.
  void Report(const ProgressFn& progress) {
    if (!progress) return;
    std::vector<bool> abandon(out.size(), false);
    progress(out, bytes, done, abandon);
    for (size_t r = 0; r < out.size(); ++r) {
      if (abandon[r] && !done[r]) Finish(static_cast<int64_t>(r), "abandoned");
    }
  }

  const SamplingOptions& o;
  const Tokenizer* tokenizer;
  std::vector<Completion> out;
  std::vector<std::string> bytes;  // decoded output so far (stop token excluded)
  std::vector<bool> done;
  std::vector<int64_t> live;  // the output row of each batch row (compaction drops rows)
  int64_t n_done = 0;
  int64_t consumed = 0;  // history columns already read by the host

 private:
  void Finish(int64_t r, const char* reason = "stop") {
    done[r] = true;
    ++n_done;
    out[r].finish_reason = reason;
  }

  void AppendToken(int64_t r, int32_t tok, float logprob) {
    out[r].tokens.push_back(tok);
    out[r].logprobs.push_back(logprob);
    if (std::find(o.stop_token_ids.begin(), o.stop_token_ids.end(), tok) !=
        o.stop_token_ids.end()) {
      Finish(r);
      return;
    }
    if (!tokenizer) return;
    size_t old = bytes[r].size();
    bytes[r] += DecodeBytes(*tokenizer, std::span<const int32_t>(&tok, 1), o.skip_special_tokens);
    for (const auto& ss : o.stop_strings) {
      size_t from = old >= ss.size() ? old - ss.size() + 1 : 0;
      size_t at = ss.empty() ? std::string::npos : bytes[r].find(ss, from);
      if (at != std::string::npos) {
        bytes[r].resize(at);
        Finish(r);
        return;
      }
    }
  }
};

// A host check compacts the batch once at least 1/kCompactShare of its rows have finished: each
// compaction copies the cache of the rows kept (and, on the GPU, captures the decode step's
// graphs again), so rows are dropped in groups rather than one by one.
constexpr int64_t kCompactShare = 8;

// Drops the finished rows from the session, the history and the collector; only after the host
// has read every sampled column (the dropped rows' history goes with them). Returns whether
// the batch changed.
bool CompactFinished(DecodeSession& s, History& h, HostCollector& col) {
  const std::vector<int64_t> keep = col.Running();
  const int64_t rows = static_cast<int64_t>(col.live.size());
  const int64_t finished = rows - static_cast<int64_t>(keep.size());
  if (keep.empty() || finished == 0 || finished * kCompactShare < rows) return false;
  const at::Tensor idx = at::tensor(keep, at::TensorOptions().dtype(at::kLong)).to(s.pad.device());
  ReshapeSession(s, idx, s.cache.capacity());
  for (at::Tensor* x : {&h.tokens, &h.logprobs, &h.counts, &h.prompt_seen, &h.ones}) {
    if (x->defined()) *x = x->index_select(0, idx);
  }
  // Before the first compaction batch row i is row i of the uncompacted batch.
  if (!h.draw_rows.defined()) h.draw_total = rows;
  h.draw_rows = h.draw_rows.defined() ? h.draw_rows.index_select(0, idx) : idx;
  std::vector<int64_t> live;
  for (int64_t i : keep) live.push_back(col.live[static_cast<size_t>(i)]);
  col.live = std::move(live);
  return true;
}

// The cache's next size when the next slot does not fit: kv_reserve_tokens more slots,
// rounded to the window quantum, at most the prompt plus max_new_tokens.
int64_t GrownCapacity(const DecodeSession& s, const SamplingOptions& o) {
  const int64_t want =
      (s.next_slot + std::max<int64_t>(o.kv_reserve_tokens, 1) + kWindowQuantum - 1) /
      kWindowQuantum * kWindowQuantum;
  return std::min(want, s.max_capacity);
}

Result<std::optional<at::Generator>> StartGenerator(const c10::Device& dev, uint64_t seed) {
  if (dev.is_cuda()) {
#ifdef TRITONRL_MODEL_CUDA
    // Graph replays draw from the default generator (captured graphs register it).
    at::Generator g = at::cuda::detail::getDefaultCUDAGenerator(dev.index());
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_current_seed(seed);
    return std::optional<at::Generator>();
#else
    return Status::Unavailable("this build has no CUDA support");
#endif
  }
  return std::optional<at::Generator>(at::make_generator<at::CPUGeneratorImpl>(seed));
}

// The history of B rows with the first token sampled from the prefill logits.
History StartHistory(DecodeSession& s, const std::vector<std::vector<int32_t>>& prompts,
                     const SamplingOptions& o, const std::optional<at::Generator>& gen) {
  const c10::Device dev = s.pad.device();
  const int64_t B = s.batch;
  auto long_opts = at::TensorOptions().dtype(at::kLong).device(dev);
  History h{at::zeros({B, o.max_new_tokens}, long_opts),
            at::zeros({B, o.max_new_tokens}, at::TensorOptions().dtype(at::kFloat).device(dev)),
            at::zeros({1}, long_opts)};
  StartPenalties(h, prompts, o, s.logits.size(1), dev);
  Sampled r = SampleCounted(s.logits, h, o, gen);
  s.tokens.copy_(r.tokens);
  h.tokens.select(1, 0).copy_(r.tokens);
  h.logprobs.select(1, 0).copy_(r.logprobs);
  h.step.fill_(1);
  s.logits = at::Tensor();  // [B, vocab] fp32, not needed again
  return h;
}

Result<std::vector<Completion>> GenerateImpl(const Qwen3Model& model, const Tokenizer* tokenizer,
                                             const std::vector<std::vector<int32_t>>& prompts,
                                             const SamplingOptions& o, GenerationStats* stats,
                                             const ProgressFn& progress) {
  if (!o.stop_strings.empty() && !tokenizer) {
    return Status::InvalidArgument("stop strings need a tokenizer");
  }
  if (o.top_p <= 0 || o.top_p > 1) return Status::InvalidArgument("top_p must be in (0, 1]");
  if (o.top_k < 0) return Status::InvalidArgument("top_k must be >= 0");
  if (!(o.repetition_penalty > 0))
    return Status::InvalidArgument("repetition_penalty must be positive");
  const c10::Device dev = model.device;
  const bool on_cuda = dev.is_cuda();
  auto gen = StartGenerator(dev, o.seed);
  if (!gen.ok()) return gen.status();
  GenerationStats st;
  Synchronize(dev);
  auto t0 = std::chrono::steady_clock::now();
  auto session = Prefill(model, prompts, o.num_samples, o.max_new_tokens, o.kv_reserve_tokens);
  if (!session.ok()) return session.status();
  DecodeSession& s = *session;
  Synchronize(dev);
  st.prefill_seconds = Seconds(t0);
  for (const auto& p : prompts) st.prefill_tokens += static_cast<int64_t>(p.size());

  auto t1 = std::chrono::steady_clock::now();
  const int64_t B = s.batch, max_new = o.max_new_tokens;
  History h = StartHistory(s, prompts, o, *gen);
  HostCollector col(B, o, tokenizer);
  auto absorb = [&](int64_t upto) {
    const int64_t before = col.consumed;
    col.Absorb(h, upto);
    if (col.consumed > before) col.Report(progress);
  };

  const int64_t interval = o.sync_interval > 0 ? o.sync_interval : (on_cuda ? 16 : 1);
  const bool graphs = on_cuda && o.use_cuda_graphs;
#ifdef TRITONRL_MODEL_CUDA
  StepGraphs step_graphs;
#endif
  auto reshaped = [&]() {  // the decode step's tensors were reallocated
#ifdef TRITONRL_MODEL_CUDA
    step_graphs.Reset();
#endif
  };
  int64_t steps = 0;
  int64_t sampled = 1;
  st.new_tokens = B;
  absorb(std::min<int64_t>(1, max_new));
  while (sampled < max_new && col.n_done < B) {
    if (s.next_slot >= s.cache.capacity()) {
      ReshapeSession(s, at::Tensor(), GrownCapacity(s, o));
      reshaped();
    }
    const int64_t window = AttendWindow(s.next_slot, s.cache.capacity());
    if (graphs) {
#ifdef TRITONRL_MODEL_CUDA
      step_graphs.Run(s, h, window, o);
#endif
    } else {
      SampleStep(s, h, window, o, *gen);
    }
    ++s.next_slot;
    ++steps;
    ++sampled;
    st.new_tokens += s.batch;
    if (sampled % interval == 0 || sampled == max_new) {
      absorb(sampled);
      if (o.compact_finished && CompactFinished(s, h, col)) reshaped();
    }
  }
  absorb(sampled);
  Synchronize(dev);
  st.decode_seconds = Seconds(t1);
#ifdef TRITONRL_MODEL_CUDA
  st.decode_seconds -= step_graphs.capture_seconds;
  st.cuda_graphs = graphs;
#endif
  st.decode_steps = steps;
  // The stop token and anything from a stop string on are not part of the text.
  if (tokenizer) {
    for (int64_t r = 0; r < B; ++r) col.out[r].text = ToValidUtf8(col.bytes[r]);
  }
  if (stats) *stats = st;
  return std::move(col.out);
}

}  // namespace

Result<std::vector<Completion>> Generate(const Qwen3Model& model, const Tokenizer* tokenizer,
                                         const std::vector<std::vector<int32_t>>& prompts,
                                         const SamplingOptions& options, GenerationStats* stats,
                                         const ProgressFn& progress) {
  // libtorch reports failures (out of memory, CUDA errors) by exception.
  try {
    return GenerateImpl(model, tokenizer, prompts, options, stats, progress);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("generation failed: ") + e.what_without_backtrace());
  }
}

}  // namespace tritonrl::model

// ---- Policy (policy.h) ----

namespace tritonrl::model {

struct Policy {
  Qwen3Model model;
  Tokenizer tokenizer;
  EndOfTurn end_of_turn;
};

bool CudaAvailable() {
  return at::hasCUDA();
}

namespace {

// builtin:tiny (random weights of the seed, the byte tokenizer), or a directory's weights and
// tokenizer.json.
Status LoadPolicyModel(const PolicyOptions& o, const ModelOptions& mo, Policy& p) {
  if (o.model == "builtin:tiny") {
    try {
      p.model = RandomQwen3(TinyQwen3Config(), o.builtin_seed, mo);
    } catch (const c10::Error& e) {
      return Status::Internal(std::string("builtin:tiny: ") + e.what_without_backtrace());
    }
    p.tokenizer = ByteFallbackTokenizer();
    return Status::Ok();
  }
  auto model = LoadQwen3(o.model, mo);
  if (!model.ok()) return model.status();
  p.model = std::move(model.value());
  auto tok = LoadTokenizerFile(o.model + "/tokenizer.json");
  if (!tok.ok()) return tok.status();
  p.tokenizer = std::move(tok.value());
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<Policy>> LoadPolicy(const PolicyOptions& o) {
  auto device = ParseDevice(o.device.empty() ? (at::hasCUDA() ? "cuda" : "cpu") : o.device);
  if (!device.ok()) return device.status();
  if (device->is_cuda() && !at::hasCUDA()) return Status::Unavailable("no CUDA device available");
  auto dtype = ParseModelDType(o.dtype.empty() ? (device->is_cuda() ? "bf16" : "fp32") : o.dtype);
  if (!dtype.ok()) return dtype.status();
  ModelOptions mo;
  mo.device = *device;
  mo.dtype = *dtype;
  auto p = std::make_shared<Policy>();
  TRITONRL_RETURN_IF_ERROR(LoadPolicyModel(o, mo, *p));
  auto eot = FindEndOfTurn(o.model, p->tokenizer, p->model.config.eos_token_id);
  if (!eot.ok()) return eot.status();
  p->end_of_turn = std::move(eot.value());
  return p;
}

const Tokenizer& PolicyTokenizer(const Policy& p) {
  return p.tokenizer;
}

std::vector<int32_t> DefaultStopTokens(const Policy& p) {
  return StopTokenIds(p.tokenizer, p.end_of_turn.id, p.model.config.eos_token_id);
}

std::string PolicyDescription(const Policy& p) {
  const Qwen3Config& c = p.model.config;
  return "qwen3 " + std::to_string(c.num_hidden_layers) + " layers, hidden " +
         std::to_string(c.hidden_size) + ", vocab " + std::to_string(c.vocab_size) + ", " +
         c10::toString(p.model.dtype) + " on " + p.model.device.str();
}

Result<std::vector<Completion>> GenerateText(const Policy& p,
                                             const std::vector<std::string>& prompts,
                                             const SamplingOptions& options, GenerationStats* stats,
                                             const ProgressFn& progress) {
  std::vector<std::vector<int32_t>> ids;
  for (size_t i = 0; i < prompts.size(); ++i) {
    auto e = Encode(p.tokenizer, prompts[i]);
    if (!e.ok())
      return Status::InvalidArgument("prompt " + std::to_string(i) + ": " + e.status().message());
    ids.push_back(std::move(e->ids));
  }
  return Generate(p.model, &p.tokenizer, ids, options, stats, progress);
}

}  // namespace tritonrl::model
