#include "train/plan_tokens.h"

#include <string>
#include <vector>

#include "verify/output.h"

namespace tritonrl::train {

std::optional<rl::IndexRange> PlanTokenRange(const model::Tokenizer& tok,
                                             std::span<const int32_t> tokens) {
  std::string text;
  std::vector<rl::TokenOffset> offsets;
  for (int32_t id : tokens) {
    const int64_t begin = static_cast<int64_t>(text.size());
    const bool special = id >= 0 && static_cast<size_t>(id) < tok.is_special.size() &&
                         tok.is_special[static_cast<size_t>(id)];
    // Special tokens (the stop token) are not text the verifier sees.
    if (!special && id >= 0 && static_cast<size_t>(id) < tok.token_bytes.size()) {
      text += tok.token_bytes[static_cast<size_t>(id)];
    }
    offsets.push_back({begin, static_cast<int64_t>(text.size())});
  }
  const verify::ModelOutput split = verify::SplitModelOutput(text);
  if (!split.plan || split.plan->begin == split.plan->end) return std::nullopt;
  const rl::IndexRange chars{static_cast<int64_t>(split.plan->begin),
                             static_cast<int64_t>(split.plan->end)};
  auto ranges = rl::CharSpansToTokenSpans(offsets, std::span(&chars, 1));
  if (!ranges.ok() || ranges->empty() || ranges->front().empty()) return std::nullopt;
  return ranges->front();
}

}  // namespace tritonrl::train
