#include "rl/rollouts_jsonl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace tritonrl::rl {
namespace {

TEST(ParseRolloutLine, FullSchema) {
  auto r = ParseRolloutLine(
      R"({"group": "t1", "plan_span": [0, 4], "code_span": [5, 9], "syntax_ok": true,)"
      R"( "functionality_ok": false, "correct": true, "is_triton": true, "outputs_match": true,)"
      R"( "speedup": 1.25,)"
      R"( "flags": ["timing_inconsistent"], "num_tokens": 12, "sample": "s7"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->group, "\"t1\"");
  EXPECT_TRUE(r->verdict.syntax_ok);
  EXPECT_FALSE(r->verdict.functionality_ok);
  EXPECT_TRUE(r->verdict.correct);
  EXPECT_EQ(r->verdict.is_triton, std::optional<bool>(true));
  EXPECT_EQ(r->verdict.outputs_match, std::optional<bool>(true));
  EXPECT_EQ(r->verdict.speedup, 1.25);
  EXPECT_EQ(r->verdict.flags, std::vector<std::string>{"timing_inconsistent"});
  EXPECT_EQ(r->spans.plan, (IndexRange{0, 4}));
  EXPECT_EQ(r->spans.code, (IndexRange{5, 9}));
  EXPECT_EQ(r->num_tokens, 12);
  EXPECT_EQ(r->source["sample"], "s7");  // unknown fields are kept
}

TEST(ParseRolloutLine, MinimalSchemaAndDefaults) {
  auto r = ParseRolloutLine(R"({"group": 3, "valid": true, "correct": false})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->group, "3");
  EXPECT_TRUE(r->verdict.syntax_ok && r->verdict.functionality_ok);
  EXPECT_TRUE(std::isnan(r->verdict.speedup));
  EXPECT_FALSE(r->spans.plan.has_value());
  EXPECT_FALSE(r->verdict.is_triton.has_value());
  EXPECT_FALSE(r->verdict.outputs_match.has_value());
  r = ParseRolloutLine(R"({"group": 3, "valid": false, "correct": false, "plan_span": null,)"
                       R"( "speedup": null})");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->spans.plan.has_value());
}

TEST(ParseRolloutLine, Errors) {
  struct Case {
    const char* line;
    const char* says;
  };
  const Case cases[] = {
      {R"({"group": 1, "valid": true, "corr)", "malformed JSON"},
      {R"([1, 2])", "JSON object"},
      {R"({"valid": true, "correct": true})", "'group'"},
      {R"({"group": 1.5, "valid": true, "correct": true})", "'group'"},
      {R"({"group": 1, "correct": true})", "'valid'"},
      {R"({"group": 1, "valid": "yes", "correct": true})", "'valid'"},
      {R"({"group": 1, "valid": true})", "'correct'"},
      {R"({"group": 1, "syntax_ok": true, "correct": true})", "both"},
      {R"({"group": 1, "valid": true, "syntax_ok": true, "functionality_ok": false,)"
       R"( "correct": true})",
       "contradicts"},
      {R"({"group": 1, "valid": true, "correct": true, "speedup": "fast"})", "'speedup'"},
      {R"({"group": 1, "valid": true, "correct": true, "flags": "lazy"})", "'flags'"},
      {R"({"group": 1, "valid": true, "correct": true, "plan_span": [1]})", "'plan_span'"},
      {R"({"group": 1, "valid": true, "correct": true, "plan_span": [0, 5], "code_span": [3, 8]})",
       "overlaps"},
      {R"({"group": 1, "valid": true, "correct": true, "plan_span": [0, 5], "num_tokens": 4})",
       "4 tokens"},
      {R"({"group": 1, "valid": true, "correct": true, "code_span": [6, 2]})", "not a range"},
  };
  for (const auto& c : cases) {
    auto r = ParseRolloutLine(c.line);
    ASSERT_FALSE(r.ok()) << c.line;
    EXPECT_NE(r.status().message().find(c.says), std::string::npos)
        << c.line << " -> " << r.status().message();
  }
}

TEST(ParseRolloutsJsonl, NamesFileAndLineAndSkipsBlankLines) {
  std::string text =
      "{\"group\": 1, \"valid\": true, \"correct\": true}\n"
      "\n"
      "  \r\n"
      "{\"group\": 1, \"valid\": true, \"correct\": false}";  // no final newline
  auto ok = ParseRolloutsJsonl(text, "r.jsonl");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 2u);
  auto bad = ParseRolloutsJsonl(text + "\n{\"group\": 1, \"va", "r.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kParseError);
  EXPECT_EQ(bad.status().message().rfind("r.jsonl:5: ", 0), 0u) << bad.status().message();
}

TEST(ComputeAdvantages, GroupsNeedNotBeAdjacentAndOrderIsKept) {
  auto recs = ParseRolloutsJsonl(
      "{\"group\": \"a\", \"valid\": true, \"correct\": true, \"speedup\": 1.0}\n"
      "{\"group\": \"b\", \"valid\": true, \"correct\": true, \"speedup\": 1.0}\n"
      "{\"group\": \"a\", \"valid\": true, \"correct\": false, \"num_tokens\": 5,"
      " \"plan_span\": [0, 2]}\n"
      "{\"group\": \"b\", \"valid\": true, \"correct\": true, \"speedup\": 1.0}\n",
      "x.jsonl");
  ASSERT_TRUE(recs.ok());
  AdvantageConfig ac;
  ac.normalize_by_std = false;
  auto out = ComputeAdvantages(*recs, RewardConfig{}, ac);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->report.groups, 2u);
  EXPECT_EQ(out->report.rollouts, 4u);
  EXPECT_EQ(out->report.filtered_groups, 1u);
  const auto& l = out->lines;
  EXPECT_EQ(l[0]["group"], "a");
  EXPECT_EQ(l[0]["adv_code"], 0.5);
  EXPECT_EQ(l[0]["adv_plan"], 0.1 * 0.5);  // R_speedup {1, 0}
  EXPECT_EQ(l[2]["adv_code"], -0.5);
  EXPECT_EQ(l[1]["filtered"], true);
  EXPECT_EQ(l[1]["adv_code"], 0.0);
  EXPECT_EQ(l[0]["filtered"], false);
  // token_spans only where num_tokens was given.
  EXPECT_FALSE(l[0].contains("token_spans"));
  ASSERT_TRUE(l[2].contains("token_spans"));
  EXPECT_EQ(l[2]["token_spans"].dump(), "[[0,2,-0.05],[2,5,-0.5]]");
  // The input's fields come first, in their order.
  EXPECT_EQ(l[0].begin().key(), "group");
}

}  // namespace
}  // namespace tritonrl::rl
