// The plan span of a sampled response in token indices, for HRD: the tokens
// inside the first <think>...</think>, found by the verifier's own splitter
// (verify::SplitModelOutput) on the tokens' raw bytes, so the trainer and the
// scorer agree on what is plan. Pure; callable from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "model/tokenizer.h"
#include "rl/token_spans.h"

namespace tritonrl::train {

// The stop token, if last and special, is not part of the text. None when the response has no
// plan.
std::optional<rl::IndexRange> PlanTokenRange(const model::Tokenizer& tokenizer,
                                             std::span<const int32_t> tokens);

}  // namespace tritonrl::train
