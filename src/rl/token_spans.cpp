#include "rl/token_spans.h"

#include <algorithm>
#include <string>

namespace tritonrl::rl {
namespace {

std::string Show(const IndexRange& r) {
  return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

Status CheckRange(const char* what, const IndexRange& r, std::optional<int64_t> limit) {
  if (r.begin < 0 || r.end < r.begin)
    return Status::InvalidArgument(std::string(what) + " span " + Show(r) +
                                   " is not a range (need 0 <= start <= end)");
  if (limit && r.end > *limit)
    return Status::InvalidArgument(std::string(what) + " span " + Show(r) +
                                   " runs past the completion's " + std::to_string(*limit) +
                                   " tokens");
  return Status::Ok();
}

}  // namespace

Status ValidateCompletionSpans(const CompletionSpans& spans, std::optional<int64_t> num_tokens) {
  if (num_tokens && *num_tokens < 0)
    return Status::InvalidArgument("num_tokens is negative: " + std::to_string(*num_tokens));
  if (spans.plan) TRITONRL_RETURN_IF_ERROR(CheckRange("plan", *spans.plan, num_tokens));
  if (spans.code) TRITONRL_RETURN_IF_ERROR(CheckRange("code", *spans.code, num_tokens));
  if (spans.plan && spans.code && !spans.plan->empty() && !spans.code->empty()) {
    const auto& p = *spans.plan;
    const auto& c = *spans.code;
    if (p.begin < c.end && c.begin < p.end)
      return Status::InvalidArgument("plan span " + Show(p) + " overlaps code span " + Show(c));
  }
  return Status::Ok();
}

Result<std::vector<TokenSpan>> TokenAdvantageSpans(int64_t num_tokens, const CompletionSpans& spans,
                                                   const RolloutAdvantage& adv) {
  TRITONRL_RETURN_IF_ERROR(ValidateCompletionSpans(spans, num_tokens));
  std::vector<TokenSpan> out;
  auto add = [&](int64_t b, int64_t e, double a) {
    if (b < e) out.push_back({b, e, a});
  };
  if (spans.plan && !spans.plan->empty()) {
    add(0, spans.plan->begin, adv.code);
    add(spans.plan->begin, spans.plan->end, adv.plan);
    add(spans.plan->end, num_tokens, adv.code);
  } else {
    add(0, num_tokens, adv.code);
  }
  return out;
}

Status FillAdvantageRow(std::span<const TokenSpan> spans, std::span<float> row) {
  const auto len = static_cast<int64_t>(row.size());
  for (const auto& s : spans) {
    if (s.begin < 0 || s.end < s.begin || s.end > len)
      return Status::InvalidArgument("token span [" + std::to_string(s.begin) + ", " +
                                     std::to_string(s.end) + ") does not fit a row of " +
                                     std::to_string(len) + " tokens");
  }
  std::fill(row.begin(), row.end(), 0.0f);
  for (const auto& s : spans)
    std::fill(row.begin() + s.begin, row.begin() + s.end, static_cast<float>(s.advantage));
  return Status::Ok();
}

Result<std::vector<IndexRange>> CharSpansToTokenSpans(std::span<const TokenOffset> offsets,
                                                      std::span<const IndexRange> char_spans) {
  int64_t text_end = 0;
  for (size_t i = 0; i < offsets.size(); ++i) {
    const auto& o = offsets[i];
    if (o.begin < 0 || o.end < o.begin)
      return Status::InvalidArgument("token " + std::to_string(i) + " has offsets [" +
                                     std::to_string(o.begin) + ", " + std::to_string(o.end) +
                                     ") (need 0 <= begin <= end)");
    if (i > 0 && o.begin < offsets[i - 1].begin)
      return Status::InvalidArgument("token offsets go backwards at token " + std::to_string(i) +
                                     " (begin " + std::to_string(o.begin) + " < " +
                                     std::to_string(offsets[i - 1].begin) + ")");
    text_end = std::max(text_end, o.end);
  }
  auto first_at_or_after = [&](int64_t c) {
    auto it = std::lower_bound(offsets.begin(), offsets.end(), c,
                               [](const TokenOffset& o, int64_t v) { return o.begin < v; });
    return static_cast<int64_t>(it - offsets.begin());
  };
  std::vector<IndexRange> out;
  out.reserve(char_spans.size());
  for (const auto& cs : char_spans) {
    if (cs.begin < 0 || cs.end < cs.begin)
      return Status::InvalidArgument("character span " + Show(cs) +
                                     " is not a range (need 0 <= start <= end)");
    if (cs.end > text_end)
      return Status::InvalidArgument("character span " + Show(cs) +
                                     " runs past the end of the tokenized text (" +
                                     std::to_string(text_end) + ")");
    out.push_back({first_at_or_after(cs.begin), first_at_or_after(cs.end)});
  }
  return out;
}

}  // namespace tritonrl::rl
