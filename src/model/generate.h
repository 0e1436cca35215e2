// Batched sampling with a KV cache. Prompts of different lengths are
// left-padded into one batch; every row writes the same cache slot each step
// (so the decode step has static shapes and is captured as a CUDA graph on
// GPU), and each row's rotary positions and mask skip its padding. Finished
// rows are dropped from the batch and the cache at host checks, and the cache
// grows with the rows (docs/model.md, "KV cache memory"); neither changes a token.
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/qwen3.h"
#include "model/sampling.h"
#include "model/tokenizer.h"

namespace tritonrl::model {

// Completions ordered by prompt, then sample. `tokenizer` may be null when no
// stop strings are given (text is then empty).
Result<std::vector<Completion>> Generate(const Qwen3Model& model, const Tokenizer* tokenizer,
                                         const std::vector<std::vector<int32_t>>& prompts,
                                         const SamplingOptions& options,
                                         GenerationStats* stats = nullptr,
                                         const ProgressFn& progress = {});

// ---- Pieces, exposed for tests and benchmarks ----

// logits with everything outside the top k (k > 0) and outside the smallest
// set of highest-probability tokens whose mass reaches top_p (< 1) set to -inf.
at::Tensor MaskTopKTopP(const at::Tensor& logits, int64_t top_k, double top_p);

// vLLM's penalties, before temperature. counts [B, V] float: how often each row sampled each
// token so far; prompt_seen [B, V] bool (or undefined): tokens of the row's prompt.
//   presence:   logit -= presence_penalty   if count > 0
//   frequency:  logit -= frequency_penalty * count
//   repetition: if the token is in the prompt or sampled, logit / r when positive, logit * r
//               otherwise (CTRL's penalty, as vLLM and transformers apply it).
bool HasPenalties(const SamplingOptions& options);
at::Tensor ApplyPenalties(const at::Tensor& logits, const at::Tensor& counts,
                          const at::Tensor& prompt_seen, const SamplingOptions& options);

struct Sampled {
  at::Tensor tokens;    // [B] int64
  at::Tensor logprobs;  // [B] float
};
// logits [B, V] float. `generator` null: the device's default generator. draw_rows defined
// ([B] int64): the random numbers are drawn for draw_total rows and these rows taken, so a
// compacted batch samples each row as the full batch would.
Sampled SampleTokens(const at::Tensor& logits, const SamplingOptions& options,
                     const std::optional<at::Generator>& generator,
                     const at::Tensor& draw_rows = at::Tensor(), int64_t draw_total = 0);

// A prefilled batch that is then fed one token per row per step.
struct DecodeSession {
  const Qwen3Model* model = nullptr;
  KvCache cache;
  int64_t batch = 0;
  int64_t prompt_slots = 0;  // padded prompt length
  int64_t next_slot = 0;     // host mirror of `slot`
  int64_t max_capacity = 0;  // the cache's room for the prompt and every new token
  at::Tensor pad;            // [B] int64: leading padding per row
  at::Tensor slot;           // [1] int64: cache slot the next token is written to
  at::Tensor tokens;         // [B] int64: the next input token per row
  at::Tensor logits;         // [B, V] float: the latest next-token logits
};

// Prefills `prompts` (each repeated `num_samples` times, adjacent) into a cache
// with room for `max_new_tokens` more tokens (reserve_new_tokens > 0: room for
// that many, for a caller that grows it with ReshapeSession); session.logits
// holds the next-token logits after each prompt.
Result<DecodeSession> Prefill(const Qwen3Model& model,
                              const std::vector<std::vector<int32_t>>& prompts, int64_t num_samples,
                              int64_t max_new_tokens, int64_t reserve_new_tokens = 0);

// Rebuilds the session's cache with only the batch rows `keep` (ascending indices; undefined:
// all) and `capacity` slots (>= next_slot): the written slots copied, the others zeroed. A
// layer at a time, so at most one layer's old and new tensors coexist. Also compacts the
// session's per-row tensors (pad, tokens). The decode step's tensors change: CUDA graphs
// captured before must not run again.
void ReshapeSession(DecodeSession& session, const at::Tensor& keep, int64_t capacity);

// Feeds session.tokens (one per row) and updates session.logits (eager).
void DecodeStep(DecodeSession& session);

// The attention window used for the step that writes slot `slot`: a multiple
// of 128 (at least slot + 1), capped at the cache capacity, so only a few
// distinct shapes (graphs) exist.
int64_t AttendWindow(int64_t slot, int64_t capacity);

}  // namespace tritonrl::model
