// The output comparison is implemented twice on purpose (docs/architecture.md, "One decision made
// twice"): in C++ (src/eval/compare.cpp, the evaluator's verdict) and in Python
// (python/tritonrl_runner/taskmod.py, the task audit). This test runs both on the same bytes:
// compare_agreement_cases.py builds the cases with torch, judges them with taskmod and writes the
// bytes and its verdicts; here the C++ comparison judges the same bytes, whole and in slices of
// a few elements, and must agree on pass or fail, the reason, and (for floats) the worst absolute
// error, the relative L2 error and the tolerance margin. The cases the docs name as deliberate
// differences must still differ.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file.h"
#include "eval/compare.h"

namespace tritonrl::eval {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// "inf", "-inf" and "nan" come as strings (JSON has no such numbers).
double Number(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    return s == "inf" ? HUGE_VAL : -HUGE_VAL;
  }
  return v.get<double>();
}

// Equal as both sides compute them: exactly for the worst element (one subtraction and one
// division in double on each side), closely for relative L2 (sums of squares in another order).
bool SameFigure(double cpp, double py, double rel) {
  if (std::isinf(cpp) || std::isinf(py)) return cpp == py;
  return std::fabs(cpp - py) <= rel * std::max(std::fabs(cpp), std::fabs(py));
}

class CompareAgreementTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string tmpl = (fs::temp_directory_path() / "compare_agreement_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    const std::string cmd = std::string("'") + TRITONRL_VENV_PYTHON + "' '" + TRITONRL_SOURCE_DIR +
                            "/tests/task/compare_agreement_cases.py' '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto text = ReadFile(dir_ + "/cases.json");
    ASSERT_TRUE(text.ok()) << text.status().message();
    cases_ = json::parse(*text);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  struct Judged {
    CompareResult whole, sliced;
  };

  // The C++ verdict on a case's bytes, whole (CompareTensor) and fed three elements at a time.
  static Judged Judge(const json& c, std::string& out, std::string& ref) {
    const DType out_dtype = *ParseDType(c["out_dtype"].get<std::string>());
    const DType ref_dtype = *ParseDType(c["ref_dtype"].get<std::string>());
    const auto out_shape = c["out_shape"].get<std::vector<std::int64_t>>();
    const auto ref_shape = c["ref_shape"].get<std::vector<std::int64_t>>();
    const std::string name = c["name"].get<std::string>();
    out = *ReadFile(dir_ + "/" + name + ".out");
    ref = *ReadFile(dir_ + "/" + name + ".ref");
    const Tolerance tol{c["atol"].get<double>(), c["rtol"].get<double>(),
                        c["rule"].get<std::string>() == "ours"};
    Judged j;
    j.whole = CompareTensor({out_dtype, out_shape, out}, {ref_dtype, ref_shape, ref}, tol);
    OutputComparison sliced(out_dtype, out_shape, ref_dtype, ref_shape, tol);
    const std::size_t step = 3 * DTypeSize(ref_dtype);
    for (std::size_t at = 0; at < ref.size() && !sliced.failed(); at += step) {
      const std::size_t n = std::min(step, ref.size() - at);
      sliced.Feed(std::string_view(out).substr(at, n), std::string_view(ref).substr(at, n));
    }
    j.sliced = sliced.Finish();
    return j;
  }

  static std::string dir_;
  static json cases_;
};

std::string CompareAgreementTest::dir_;
json CompareAgreementTest::cases_;

TEST_F(CompareAgreementTest, BothImplementationsGiveTheSameVerdictOnTheSameBytes) {
  ASSERT_GE(cases_.size(), 100u);
  int agreed = 0, divergent = 0;
  for (const auto& c : cases_) {
    const std::string name = c["name"].get<std::string>();
    SCOPED_TRACE(name);
    std::string out, ref;
    const Judged j = Judge(c, out, ref);
    const json& py = c["python"];
    const bool py_ok = py["ok"].get<bool>();
    EXPECT_EQ(j.whole.ok, j.sliced.ok);
    EXPECT_EQ(j.whole.code, j.sliced.code);
    if (c.contains("divergence")) {
      // Named in the docs as a deliberate difference: if the two now agree, the docs are stale.
      EXPECT_NE(j.whole.ok, py_ok)
          << "documented divergence no longer holds: " << c["divergence"].get<std::string>();
      ++divergent;
      continue;
    }
    ASSERT_EQ(j.whole.ok, py_ok) << "C++: " << j.whole.code << " " << j.whole.message;
    ++agreed;
    if (!py.contains("code")) continue;  // KernelBench's rule: Python gives pass or fail only
    const bool floating = IsFloating(*ParseDType(c["ref_dtype"].get<std::string>()));
    const std::string py_code = py["code"].get<std::string>();
    // Python names a failed integer comparison as its float rule does.
    const std::string expected_code =
        py_code == "ok" ? "" : (!floating && py_code == "not_allclose" ? "not_equal" : py_code);
    EXPECT_EQ(j.whole.code, expected_code) << py["reason"].get<std::string>();
    if (!floating || (j.whole.code != "" && j.whole.code != "not_allclose" &&
                      j.whole.code != "rel_l2_exceeded")) {
      continue;  // no figures on the integer path; Python reports inf on an early failure
    }
    for (const CompareResult* r : {&j.whole, &j.sliced}) {
      EXPECT_TRUE(SameFigure(r->max_abs_err, Number(py["max_abs_err"]), 0.0))
          << r->max_abs_err << " vs " << Number(py["max_abs_err"]);
      EXPECT_TRUE(SameFigure(r->tolerance_margin, Number(py["margin"]), 0.0))
          << r->tolerance_margin << " vs " << Number(py["margin"]);
      EXPECT_TRUE(SameFigure(r->rel_l2, Number(py["rel_l2"]), 1e-12))
          << r->rel_l2 << " vs " << Number(py["rel_l2"]);
    }
  }
  EXPECT_GE(agreed, 100);
  EXPECT_GE(divergent, 4);
}

// The cases are not all alike: both verdicts and every failure reason occur, so agreement above
// is not agreement on one answer.
TEST_F(CompareAgreementTest, TheCasesCoverEveryVerdict) {
  std::vector<std::string> codes;
  for (const auto& c : cases_) {
    std::string out, ref;
    codes.push_back(Judge(c, out, ref).whole.code);
  }
  for (const char* code : {"", "nonfinite", "not_allclose", "rel_l2_exceeded", "shape_mismatch",
                           "dtype_mismatch", "not_equal"}) {
    EXPECT_NE(std::find(codes.begin(), codes.end(), code), codes.end()) << "no case gives " << code;
  }
}

}  // namespace
}  // namespace tritonrl::eval
