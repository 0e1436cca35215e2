#include "task/literal.h"

#include <gtest/gtest.h>

#include "pyast/parse.h"

namespace tritonrl::task {
namespace {

// Evaluates the right-hand side of `x = <expr>` with the given names bound.
std::optional<Json> Eval(const std::string& expr, const Json& names = Json::object(),
                         std::string* why = nullptr) {
  std::string src = "x = " + expr + "\n";
  auto parsed = pyast::ParseModule(src, "t.py");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  const auto* assign = pyast::As<pyast::Assign>(parsed->module->body[0]);
  std::string local_why;
  auto v = EvalLiteral(assign->value, names, why ? why : &local_why);
  return v;
}

TEST(Literal, NumbersFollowPythonArithmetic) {
  EXPECT_EQ(*Eval("2048 * 2"), Json(4096));
  EXPECT_EQ(*Eval("-7 // 2"), Json(-4));
  EXPECT_EQ(*Eval("-7 % 3"), Json(2));
  EXPECT_EQ(*Eval("7 / 2"), Json(3.5));
  EXPECT_EQ(*Eval("2 ** 10"), Json(1024));
  EXPECT_EQ(*Eval("1 << 20"), Json(1 << 20));
  EXPECT_DOUBLE_EQ(Eval("1e-4")->get<double>(), 1e-4);
  EXPECT_DOUBLE_EQ(Eval("2 ** -1")->get<double>(), 0.5);
  EXPECT_TRUE(Eval("-0.5")->is_number_float());
  EXPECT_EQ(*Eval("True + 1"), Json(2));
}

TEST(Literal, NamesBoundEarlierAndContainers) {
  Json names = {{"batch_size", 16}, {"dim", 1024}};
  EXPECT_EQ(*Eval("batch_size * dim", names), Json(16384));
  Json v = *Eval(R"({"small": {"dim": 8}, "large": {"dim": dim * 4}})", names);
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.begin().key(), "small");  // file order kept
  EXPECT_EQ(v["large"]["dim"], Json(4096));
  EXPECT_EQ(*Eval("(1, [2, 3], None, 'a' + 'b')"), Json::parse(R"([1, [2, 3], null, "ab"])"));
}

TEST(Literal, NonLiteralsAreRejectedWithAReason) {
  std::string why;
  EXPECT_FALSE(Eval("torch.float32", Json::object(), &why).has_value());
  EXPECT_NE(why.find("Attribute"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(Eval("undefined_name + 1", Json::object(), &why).has_value());
  EXPECT_NE(why.find("undefined_name"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(Eval("1 / 0", Json::object(), &why).has_value());
  EXPECT_EQ(why, "division by zero");
  EXPECT_FALSE(Eval("9223372036854775807 + 1").has_value());
  EXPECT_FALSE(Eval("123456789012345678901234567890").has_value());
  EXPECT_FALSE(Eval("{1: 2}").has_value());
  EXPECT_FALSE(Eval("f(3)").has_value());
}

}  // namespace
}  // namespace tritonrl::task
