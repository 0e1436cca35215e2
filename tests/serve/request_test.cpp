#include "serve/request.h"

#include <gtest/gtest.h>

#include <string>

namespace tritonrl::serve {
namespace {

using nlohmann::json;

TEST(ParseJsonObject, RefusesWhatIsNotAnObject) {
  EXPECT_EQ(ParseJsonObject("").error.code, "empty_body");
  EXPECT_EQ(ParseJsonObject("  \n").error.code, "empty_body");
  EXPECT_EQ(ParseJsonObject("[1, 2]").error.code, "wrong_type");
  EXPECT_EQ(ParseJsonObject("\"text\"").error.code, "wrong_type");
  auto bad = ParseJsonObject("{\"samples\": [1, 2,");
  EXPECT_EQ(bad.error.code, "malformed_json");
  EXPECT_EQ(bad.error.status, 400);
  EXPECT_NE(bad.error.message.find("byte"), std::string::npos);
  // Invalid UTF-8 inside a string is malformed JSON, not a crash later when echoing it.
  EXPECT_EQ(ParseJsonObject("{\"a\": \"\xff\xfe\"}").error.code, "malformed_json");
  EXPECT_TRUE(ParseJsonObject("{\"a\": 1}").ok());
}

TEST(ParseJsonObject, BoundsNestingButNotBracketsInStrings) {
  std::string deep =
      "{\"a\": " + std::string(kMaxJsonDepth + 5, '[') + std::string(kMaxJsonDepth + 5, ']') + "}";
  EXPECT_EQ(ParseJsonObject(deep).error.code, "too_deep");
  // Brackets inside strings (and an escaped quote before them) are text.
  std::string text = "{\"code\": \"\\\"" + std::string(200, '[') + "\"}";
  auto ok = ParseJsonObject(text);
  ASSERT_TRUE(ok.ok()) << ok.error.message;
  EXPECT_EQ((*ok.value)["code"].get<std::string>().size(), 201u);
}

TEST(FieldReader, UnknownFieldIsNamedWithItsPath) {
  json j = {{"samples", json::array({{{"output", "x"}, {"outptu", "y"}}})}};
  FieldReader top(j, "", {"samples"});
  ASSERT_TRUE(top.ok());
  FieldReader s(j["samples"][0], ElementPath("samples", 0), {"output", "code"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "unknown_field");
  EXPECT_EQ(s.error().field, "samples[0].outptu");
  EXPECT_EQ(s.error().status, 400);
}

TEST(FieldReader, WrongTypesAndRangesNameTheField) {
  json j = {{"n", 3.0}, {"t", "hot"}, {"k", 7}, {"b", 1}, {"s", 5}, {"list", json::array()}};
  {
    FieldReader r(j, "opts", {"n", "t", "k", "b", "s", "list"});
    EXPECT_FALSE(r.Integer("n", Need::kRequired, 0, 10).has_value());
    EXPECT_EQ(r.error().code, "wrong_type");
    EXPECT_EQ(r.error().field, "opts.n");
    // The first failure is kept.
    r.Number("t", Need::kRequired, 0, 1);
    EXPECT_EQ(r.error().field, "opts.n");
  }
  {
    FieldReader r(j, "", {"n", "t", "k", "b", "s", "list"});
    EXPECT_FALSE(r.Number("t", Need::kRequired, 0, 1).has_value());
    EXPECT_EQ(r.error().field, "t");
  }
  {
    FieldReader r(j, "", {"n", "t", "k", "b", "s", "list"});
    EXPECT_FALSE(r.Integer("k", Need::kRequired, 0, 5).has_value());
    EXPECT_EQ(r.error().code, "out_of_range");
  }
  {
    FieldReader r(j, "", {"n", "t", "k", "b", "s", "list"});
    EXPECT_FALSE(r.Bool("b", Need::kRequired).has_value());
    EXPECT_EQ(r.error().code, "wrong_type");
  }
  {
    FieldReader r(j, "", {"n", "t", "k", "b", "s", "list"});
    EXPECT_EQ(r.Array("list", Need::kRequired, 4), nullptr);
    EXPECT_EQ(r.error().code, "empty");
  }
  {
    FieldReader r(j, "", {"n", "t", "k", "b", "s", "list"});
    EXPECT_FALSE(r.String("missing", Need::kRequired, 10).has_value());
    EXPECT_EQ(r.error().code, "missing_field");
    EXPECT_EQ(r.error().field, "missing");
  }
  {
    FieldReader r(j, "", {"n", "t", "k", "b", "s", "list"});
    EXPECT_FALSE(r.String("missing", Need::kOptional, 10).has_value());
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(*r.Integer("k", Need::kOptional, 0, 10), 7);
  }
}

TEST(FieldReader, SizeLimitsAre413) {
  json j = {{"code", std::string(100, 'x')}, {"items", json::array({1, 2, 3})}};
  FieldReader r(j, "", {"code", "items"});
  EXPECT_FALSE(r.String("code", Need::kRequired, 99).has_value());
  EXPECT_EQ(r.error().status, 413);
  EXPECT_EQ(r.error().field, "code");
  FieldReader a(j, "", {"code", "items"});
  EXPECT_EQ(a.Array("items", Need::kRequired, 2), nullptr);
  EXPECT_EQ(a.error().status, 413);
}

TEST(FieldReader, IdsAndStringLists) {
  json j = {{"id", 4},
            {"name", "s1"},
            {"bad", json::array({1})},
            {"one", "a"},
            {"two", json::array({"a", "b"})},
            {"mixed", json::array({"a", 2})}};
  FieldReader r(j, "", {"id", "name", "bad", "one", "two", "mixed"});
  EXPECT_EQ(*r.Id("id", Need::kRequired), json(4));
  EXPECT_EQ(*r.Id("name", Need::kRequired), json("s1"));
  EXPECT_EQ(r.Strings("one", Need::kRequired, 4, 10)->size(), 1u);
  EXPECT_EQ(r.Strings("two", Need::kRequired, 4, 10)->size(), 2u);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.Strings("mixed", Need::kRequired, 4, 10).has_value());
  EXPECT_EQ(r.error().field, "mixed[1]");
  FieldReader b(j, "", {"id", "name", "bad", "one", "two", "mixed"});
  EXPECT_FALSE(b.Id("bad", Need::kRequired).has_value());
  EXPECT_EQ(b.error().code, "wrong_type");
}

TEST(ErrorReply, HasTheDocumentedShape) {
  Reply r = ErrorReply(BadField("samples[1].code", "wrong_type", "must be a string"));
  EXPECT_EQ(r.status, 400);
  json j = json::parse(r.body);
  EXPECT_EQ(j["error"]["code"], "wrong_type");
  EXPECT_EQ(j["error"]["field"], "samples[1].code");
  EXPECT_TRUE(ErrorReply({401, "unauthorized", "", "no"}).body.find("\"field\":null") !=
              std::string::npos);
}

}  // namespace
}  // namespace tritonrl::serve
