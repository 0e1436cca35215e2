// A loaded policy (model + tokenizer + end-of-turn token) behind a libtorch-free interface: what
// the CLI, the server and the trainer's rollout side need, without including
// ATen (libtorch's headers bundle their own fmt, which must not shadow ours).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/sampling.h"
#include "model/tokenizer.h"

namespace tritonrl::model {

struct PolicyOptions {
  std::string model = "builtin:tiny";  // a Hugging Face directory, or builtin:tiny
  std::string device;                  // "cpu", "cuda", "cuda:N"; empty: cuda if available
  std::string dtype;                   // "fp32", "bf16", "fp16"; empty: bf16 on GPU, fp32 on CPU
  uint64_t builtin_seed = 0;           // weights of builtin:tiny
};

struct Policy;  // Qwen3Model + Tokenizer + EndOfTurn (generate.cpp)

bool CudaAvailable();
// Fails also when the model has no end-of-turn token (FindEndOfTurn), naming it.
Result<std::shared_ptr<Policy>> LoadPolicy(const PolicyOptions& options);
const Tokenizer& PolicyTokenizer(const Policy& policy);
// The model's end of turn (model/end_of_turn.h, found when the policy loads), then
// <|endoftext|> and the config's eos: StopTokenIds.
std::vector<int32_t> DefaultStopTokens(const Policy& policy);
std::string PolicyDescription(
    const Policy& policy);  // "qwen3 28 layers, hidden 1024, bf16 on cuda:0"

// Tokenizes each prompt (special tokens parsed) and generates; `progress` (optional) sees the
// rows while they grow (sampling.h).
Result<std::vector<Completion>> GenerateText(const Policy& policy,
                                             const std::vector<std::string>& prompts,
                                             const SamplingOptions& options,
                                             GenerationStats* stats = nullptr,
                                             const ProgressFn& progress = {});

}  // namespace tritonrl::model
