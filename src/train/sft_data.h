// SFT data for the trainer: {"prompt", "completion"} JSONL records, their
// tokenization through the model's chat template (loss on completion tokens
// only), and the deterministic order of micro-batches (length buckets).
// No libtorch. Pure functions of their inputs; callable from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/chat_template.h"
#include "model/tokenizer.h"

namespace tritonrl::train {

struct SftRecord {
  std::string prompt;
  std::string completion;
  int64_t line = 0;  // 1-based line in its file
};

// One record per non-blank line. A line that is not a JSON object with string
// fields "prompt" and "completion" fails with "FILE:LINE: why".
Result<std::vector<SftRecord>> ReadSftJsonl(const std::string& path);

// Token ids of one training sequence: ids[0, prompt_tokens) are the prompt
// (chat template, user turn, open assistant turn), the rest the completion
// followed by the model's end of turn (model::FindEndOfTurn: <|im_end|> for Qwen and the
// built-in models, <|eot_id|> for Llama 3, ...); only the completion tokens carry loss.
struct SftExample {
  std::vector<int32_t> ids;
  int64_t prompt_tokens = 0;
  int64_t line = 0;
  int64_t loss_tokens() const { return static_cast<int64_t>(ids.size()) - prompt_tokens; }
};

struct TokenizeStats {
  int64_t truncated = 0;  // completions cut at max_tokens
  int64_t dropped = 0;    // prompts of max_tokens or more (no completion token left)
};

// The prompt as the policy sees it at generation time: `prompt` as the one user turn in the
// model's chat template (model::LoadChatTemplate: its own, else the built-in Qwen3 format), the
// assistant turn opened. Fails only when the model's template refuses (names its file).
Result<std::string> SftPromptText(const model::ChatTemplate& chat, const std::string& prompt);

// The instruction of a task for the policy (data::PromptFor of its reference source), before the
// chat template, and the prompt it makes (SftPromptText). GRPO and the policy evaluation both
// ask here.
std::string TaskInstruction(std::string_view reference);
Result<std::string> PolicyPrompt(const model::ChatTemplate& chat, std::string_view reference);

// Sequences longer than max_tokens are cut (the completion loses its end);
// records whose prompt alone fills max_tokens are dropped and counted. `end_of_turn_id`
// (FindEndOfTurn's id) closes each completion, so the policy learns to end its turn.
Result<std::vector<SftExample>> TokenizeSft(const model::Tokenizer& tokenizer,
                                            const model::ChatTemplate& chat, int32_t end_of_turn_id,
                                            const std::vector<SftRecord>& records,
                                            int64_t max_tokens, TokenizeStats* stats);

// Micro-batches of example indices for one pass over the data. Shuffled with a
// generator seeded by (seed, epoch) (the same plan on every machine), then,
// within windows of `window` examples, sorted by length and cut into batches
// whose padded size (rows x longest) stays within `batch_tokens` (at least one
// row), and the batches shuffled again. shuffle=false (evaluation): input
// order, no shuffling.
std::vector<std::vector<int32_t>> PlanEpoch(const std::vector<int64_t>& lengths, uint64_t seed,
                                            int64_t epoch, int64_t batch_tokens,
                                            bool shuffle = true, int64_t window = 256);

}  // namespace tritonrl::train
