#include "rl/token_spans.h"

#include <gtest/gtest.h>

#include <vector>

namespace tritonrl::rl {
namespace {

const RolloutAdvantage kAdv{0.25, -1.5};  // plan, code

TEST(TokenAdvantageSpans, PlanInTheMiddle) {
  CompletionSpans s{IndexRange{2, 5}, IndexRange{6, 8}};
  auto spans = TokenAdvantageSpans(8, s, kAdv);
  ASSERT_TRUE(spans.ok()) << spans.status().ToString();
  EXPECT_EQ(*spans, (std::vector<TokenSpan>{{0, 2, -1.5}, {2, 5, 0.25}, {5, 8, -1.5}}));
}

TEST(TokenAdvantageSpans, PlanAtStart) {
  auto spans = TokenAdvantageSpans(8, {IndexRange{0, 3}, IndexRange{3, 8}}, kAdv);
  ASSERT_TRUE(spans.ok());
  EXPECT_EQ(*spans, (std::vector<TokenSpan>{{0, 3, 0.25}, {3, 8, -1.5}}));
}

TEST(TokenAdvantageSpans, NoPlanMeansAllCode) {
  // No <think> block: absent or empty plan span.
  for (std::optional<IndexRange> plan :
       {std::optional<IndexRange>(), std::optional(IndexRange{3, 3})}) {
    auto spans = TokenAdvantageSpans(8, {plan, IndexRange{0, 8}}, kAdv);
    ASSERT_TRUE(spans.ok());
    EXPECT_EQ(*spans, (std::vector<TokenSpan>{{0, 8, -1.5}}));
  }
  auto none = TokenAdvantageSpans(0, {}, kAdv);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(TokenAdvantageSpans, RejectsBadSpans) {
  // Overlap.
  auto r = TokenAdvantageSpans(10, {IndexRange{0, 5}, IndexRange{4, 9}}, kAdv);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("overlaps"), std::string::npos);
  // Past the end.
  r = TokenAdvantageSpans(10, {IndexRange{0, 11}, std::nullopt}, kAdv);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("10 tokens"), std::string::npos);
  EXPECT_FALSE(TokenAdvantageSpans(10, {std::nullopt, IndexRange{3, 12}}, kAdv).ok());
  // Reversed and negative.
  EXPECT_FALSE(TokenAdvantageSpans(10, {IndexRange{5, 2}, std::nullopt}, kAdv).ok());
  EXPECT_FALSE(TokenAdvantageSpans(10, {IndexRange{-1, 2}, std::nullopt}, kAdv).ok());
  // Touching is not overlapping; an empty plan inside the code is no plan.
  EXPECT_TRUE(TokenAdvantageSpans(10, {IndexRange{0, 5}, IndexRange{5, 9}}, kAdv).ok());
  EXPECT_TRUE(TokenAdvantageSpans(10, {IndexRange{6, 6}, IndexRange{5, 9}}, kAdv).ok());
}

TEST(FillAdvantageRow, WritesSpansAndZeroPadding) {
  std::vector<float> row(12, 7.0f);  // stale values must not survive
  std::vector<TokenSpan> spans = {{0, 2, -1.5}, {2, 5, 0.25}, {5, 8, -1.5}};
  ASSERT_TRUE(FillAdvantageRow(spans, row).ok());
  EXPECT_EQ(row, (std::vector<float>{-1.5f, -1.5f, 0.25f, 0.25f, 0.25f, -1.5f, -1.5f, -1.5f, 0, 0,
                                     0, 0}));
  std::vector<float> small(6, 1.0f);
  EXPECT_FALSE(FillAdvantageRow(spans, small).ok());
  EXPECT_EQ(small, std::vector<float>(6, 1.0f));  // untouched on error
}

// Made-up offsets for "<think>plan</think>\n```python\ncode\n```":
//   0 "<think>" [0,7)   1 "plan" [7,11)   2 "</think>" [11,19)   3 "\n" [19,20)
//   4 "```python" [20,29)   5 "\n" [29,30)   6 "code" [30,34)   7 "\n" [34,35)
//   8 "```" [35,38)
const std::vector<TokenOffset> kOffsets = {{0, 7},   {7, 11},  {11, 19}, {19, 20}, {20, 29},
                                           {29, 30}, {30, 34}, {34, 35}, {35, 38}};

TEST(CharSpansToTokenSpans, AlignedSpans) {
  std::vector<IndexRange> chars = {{0, 19}, {30, 34}, {19, 38}};
  auto t = CharSpansToTokenSpans(kOffsets, chars);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)[0], (IndexRange{0, 3}));  // plan: <think> plan </think>
  EXPECT_EQ((*t)[1], (IndexRange{6, 7}));  // code body
  EXPECT_EQ((*t)[2], (IndexRange{3, 9}));  // everything after the plan
}

TEST(CharSpansToTokenSpans, StraddlingTokenGoesWhereItStarts) {
  // Token 1 covers chars [5, 12) and straddles the boundary at 10.
  std::vector<TokenOffset> offsets = {{0, 5}, {5, 12}, {12, 15}, {15, 20}};
  std::vector<IndexRange> chars = {{0, 10}, {10, 20}};
  auto t = CharSpansToTokenSpans(offsets, chars);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0], (IndexRange{0, 2}));
  EXPECT_EQ((*t)[1], (IndexRange{2, 4}));  // disjoint from the first
  // A span strictly inside one token holds no token start: empty.
  t = CharSpansToTokenSpans(offsets, std::vector<IndexRange>{{6, 11}});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)[0].empty());
}

TEST(CharSpansToTokenSpans, EmptyTokensAndEmptySpans) {
  // Token 1 is empty at offset 3 (e.g. a zero-width special token).
  std::vector<TokenOffset> offsets = {{0, 3}, {3, 3}, {3, 6}};
  auto t = CharSpansToTokenSpans(offsets, std::vector<IndexRange>{{3, 6}, {3, 3}, {6, 6}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0], (IndexRange{1, 3}));
  EXPECT_EQ((*t)[1], (IndexRange{1, 1}));
  EXPECT_EQ((*t)[2], (IndexRange{3, 3}));
  t = CharSpansToTokenSpans(std::vector<TokenOffset>{}, std::vector<IndexRange>{{0, 0}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0], (IndexRange{0, 0}));
}

TEST(CharSpansToTokenSpans, RejectsBadOffsetsAndSpans) {
  auto bad_order = CharSpansToTokenSpans(std::vector<TokenOffset>{{0, 4}, {4, 8}, {2, 9}},
                                         std::vector<IndexRange>{{0, 1}});
  ASSERT_FALSE(bad_order.ok());
  EXPECT_NE(bad_order.status().message().find("token 2"), std::string::npos);
  EXPECT_FALSE(
      CharSpansToTokenSpans(std::vector<TokenOffset>{{4, 2}}, std::vector<IndexRange>{{0, 1}})
          .ok());
  auto past_end = CharSpansToTokenSpans(kOffsets, std::vector<IndexRange>{{30, 39}});
  ASSERT_FALSE(past_end.ok());
  EXPECT_NE(past_end.status().message().find("38"), std::string::npos);
  EXPECT_FALSE(CharSpansToTokenSpans(kOffsets, std::vector<IndexRange>{{5, 4}}).ok());
  EXPECT_FALSE(CharSpansToTokenSpans(kOffsets, std::vector<IndexRange>{{-1, 4}}).ok());
}

TEST(CharSpansToTokenSpans, FeedsTokenAdvantageSpans) {
  // The verifier's character spans -> token spans -> per-token advantages.
  auto t = CharSpansToTokenSpans(kOffsets, std::vector<IndexRange>{{0, 19}, {30, 34}});
  ASSERT_TRUE(t.ok());
  auto spans = TokenAdvantageSpans(static_cast<int64_t>(kOffsets.size()), {(*t)[0], (*t)[1]}, kAdv);
  ASSERT_TRUE(spans.ok());
  EXPECT_EQ(*spans, (std::vector<TokenSpan>{{0, 3, 0.25}, {3, 9, -1.5}}));
}

}  // namespace
}  // namespace tritonrl::rl
