// Sampling options and results of generation. No libtorch types, so callers
// (CLI, server, trainer) can use them without libtorch headers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tritonrl::model {

struct SamplingOptions {
  double temperature = 1.0;  // 0: greedy (argmax)
  double top_p = 1.0;        // 1: off
  int64_t top_k = 0;         // 0: off
  int64_t max_new_tokens = 256;
  // vLLM's penalties, on the logits before temperature (generate.h, ApplyPenalties); 0, 0 and 1
  // are off and cost nothing.
  double presence_penalty = 0;
  double frequency_penalty = 0;
  double repetition_penalty = 1;
  int64_t num_samples = 1;  // G completions per prompt, sharing the prompt's prefill
  std::vector<int32_t> stop_token_ids;
  std::vector<std::string> stop_strings;  // needs a tokenizer
  // Special tokens (<|im_start|>, ...) left out of `text` and of stop-string matching, as vLLM's
  // skip_special_tokens; they stay in `tokens`.
  bool skip_special_tokens = false;
  uint64_t seed = 0;
  bool use_cuda_graphs = true;  // decode step as CUDA graphs (GPU only)
  int64_t sync_interval = 0;    // decode steps between host checks; 0: 1 on CPU, 16 on GPU
  // Finished rows stop costing (docs/model.md, "KV cache memory"): a host check drops them from
  // the batch and the KV cache once at least 1/8 of the batch has finished; the tokens are the
  // same either way (the random draws are made per row of the whole batch).
  bool compact_finished = true;
  // The KV cache starts with room for this many new tokens and grows by as many slots when
  // full, up to max_new_tokens, so a row costs memory for the tokens it has; 0: room for
  // max_new_tokens allocated up front (the static cache).
  int64_t kv_reserve_tokens = 1024;
};

struct Completion {
  int64_t prompt_index = 0;
  int64_t sample_index = 0;
  // Sampled tokens, including the stop token or the token completing a stop string.
  std::vector<int32_t> tokens;
  // log p(token) under softmax(logits / temperature) before top-k/top-p
  // truncation (for temperature 0: under softmax(logits)).
  std::vector<float> logprobs;
  std::string text;           // decoded tokens, without the stop token or stop string
  std::string finish_reason;  // "stop" or "length"
};

// A caller's view of generation while it runs (streaming). Called on the generating thread each
// time the host has read new tokens (every decode step on CPU, every sync_interval steps on GPU).
// rows[r].tokens/logprobs are row r's so far, text[r] its output bytes so far (stop token and
// stop string cut off, possibly ending inside a UTF-8 character), done[r] whether it has stopped
// (finish_reason "stop"); a row still running when generation returns ended by length. Setting
// abandon[r] gives the row up (its client left): it counts as finished (finish_reason "abandoned"),
// so generation ends once every row has finished or been abandoned.
using ProgressFn =
    std::function<void(const std::vector<Completion>& rows, const std::vector<std::string>& text,
                       const std::vector<bool>& done, std::vector<bool>& abandon)>;

struct GenerationStats {
  int64_t prefill_tokens = 0;  // real prompt tokens (padding excluded)
  double prefill_seconds = 0;
  int64_t decode_steps = 0;  // forward passes after prefill
  int64_t new_tokens = 0;    // tokens sampled, all rows in the batch (a row stopped but not yet
                             // compacted away included)
  double decode_seconds = 0;
  bool cuda_graphs = false;
};

}  // namespace tritonrl::model
