// Per-token advantages as spans, and the mapping from the verifier's character
// spans to token spans through a tokenizer's offsets.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "rl/advantages.h"

namespace tritonrl::rl {

// Half-open range [begin, end) of token (or character) indices.
struct IndexRange {
  int64_t begin = 0;
  int64_t end = 0;
  bool empty() const { return begin == end; }
  bool operator==(const IndexRange&) const = default;
};

// Where the plan (<think> ... </think>) and the code sit in one completion, in
// token indices. Absent or empty plan: the completion has no plan and every
// token is a code token. The code range is checked, not used for assignment:
// HRD gives every token outside the plan the code advantage.
struct CompletionSpans {
  std::optional<IndexRange> plan;
  std::optional<IndexRange> code;
};

// begin <= end, begin >= 0, plan and code disjoint, both inside [0, num_tokens)
// when num_tokens is given.
Status ValidateCompletionSpans(const CompletionSpans& spans, std::optional<int64_t> num_tokens);

// A run of tokens [begin, end) that all receive `advantage`.
struct TokenSpan {
  int64_t begin = 0;
  int64_t end = 0;
  double advantage = 0;
  bool operator==(const TokenSpan&) const = default;
};

// The spans covering [0, num_tokens) in order, without empty spans: plan tokens
// get adv.plan, all others adv.code.
Result<std::vector<TokenSpan>> TokenAdvantageSpans(int64_t num_tokens, const CompletionSpans& spans,
                                                   const RolloutAdvantage& adv);

// Writes the spans into one row of a [batch, max_len] advantage buffer (the
// trainer's tensor storage): zeros first, then each span. Fails if a span does
// not fit in the row.
Status FillAdvantageRow(std::span<const TokenSpan> spans, std::span<float> row);

// Offsets of one token in the decoded completion text: [begin, end), in the same
// unit as the character spans (bytes or code points; the caller keeps them
// consistent). A token may be empty (begin == end).
struct TokenOffset {
  int64_t begin = 0;
  int64_t end = 0;
};

// Maps character ranges to token ranges. A token belongs to a range when its
// first character (offset begin) lies inside it, so adjacent character ranges
// map to adjacent, disjoint token ranges even when a token straddles the
// boundary. An empty character range maps to an empty token range at the first
// token starting at or after it. Offsets must have begin <= end and
// non-decreasing begins; a range must lie inside [0, end of the last token].
Result<std::vector<IndexRange>> CharSpansToTokenSpans(std::span<const TokenOffset> offsets,
                                                      std::span<const IndexRange> char_spans);

}  // namespace tritonrl::rl
