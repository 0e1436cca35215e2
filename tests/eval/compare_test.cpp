#include "eval/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace tritonrl::eval {
namespace {

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

struct Pair {
  std::string out, ref;
};

CompareResult CompareF32(const std::vector<float>& out, const std::vector<float>& ref, double atol,
                         double rtol) {
  static thread_local Pair p;
  p.out = Bytes(out);
  p.ref = Bytes(ref);
  const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(ref.size())};
  return CompareTensor({DType::kFloat32, {static_cast<std::int64_t>(out.size())}, p.out},
                       {DType::kFloat32, shape, p.ref}, {atol, rtol});
}

TEST(CompareTest, IdenticalFloatsPass) {
  const auto r = CompareF32({1.0f, -2.0f, 3.5f}, {1.0f, -2.0f, 3.5f}, 1e-4, 1e-4);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.max_abs_err, 0.0);
  EXPECT_EQ(r.rel_l2, 0.0);
}

TEST(CompareTest, WithinToleranceByHand) {
  // |1.00005 - 1| = 5e-5 <= 1e-4 + 1e-4 * 1; rel L2 = 5e-5 / sqrt(1 + 4) = 2.236e-5 <= 1e-4.
  const auto r = CompareF32({1.00005f, 2.0f}, {1.0f, 2.0f}, 1e-4, 1e-4);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_NEAR(r.max_abs_err, 5e-5, 1e-7);
  EXPECT_NEAR(r.rel_l2, 5e-5 / std::sqrt(5.0), 1e-7);
  // The margin is the worst element's share of its allowance: 5e-5 / (1e-4 + 1e-4 * 1) = 0.25.
  EXPECT_NEAR(r.tolerance_margin, 0.25, 1e-3);
}

TEST(CompareTest, MarginIsTheWorstElementsShareOfItsAllowance) {
  // Element 0: 0.5 / (0.1 + 0.1 * 10) = 0.4545; element 1: 0.15 / (0.1 + 0.1 * 1) = 0.75.
  const auto pass = CompareF32({10.5f, 1.15f, -3.0f}, {10.0f, 1.0f, -3.0f}, 0.1, 0.1);
  EXPECT_TRUE(pass.ok) << pass.message;
  EXPECT_NEAR(pass.tolerance_margin, 0.75, 1e-5);
  // A failing element has a margin above 1: 0.5 / (0.1 + 0.1 * 1) = 2.5.
  const auto fail = CompareF32({10.5f, 1.5f}, {10.0f, 1.0f}, 0.1, 0.1);
  EXPECT_FALSE(fail.ok);
  EXPECT_NEAR(fail.tolerance_margin, 2.5, 1e-5);
  EXPECT_EQ(CompareF32({1.0f}, {1.0f}, 0.0, 0.0).tolerance_margin, 0.0);
}

TEST(CompareTest, OutsideAllcloseFails) {
  // |1.001 - 1| = 1e-3 > 1e-4 + 1e-4.
  const auto r = CompareF32({1.001f, 2.0f}, {1.0f, 2.0f}, 1e-4, 1e-4);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "not_allclose");
  EXPECT_EQ(r.bad_elements, 1);
  EXPECT_NEAR(r.max_abs_err, 1e-3, 1e-6);
}

TEST(CompareTest, AllcloseUsesReferenceMagnitude) {
  // torch.allclose(out, ref): the rtol term scales with |ref| = 100, not |out|.
  EXPECT_TRUE(CompareF32({100.009f}, {100.0f}, 0.0, 1e-4).ok);  // 0.009 <= 0.01
  EXPECT_FALSE(CompareF32({100.02f}, {100.0f}, 0.0, 1e-4).ok);  // 0.02 > 0.01
}

TEST(CompareTest, ZerosUnderLooseAtolFailOnRelativeL2) {
  // Every |0 - 1e-6| is within atol = 1e-2, so allclose alone would pass (the
  // Sakana/KernelBench #165 hole); the relative L2 error is 1.
  const auto r = CompareF32({0, 0, 0, 0}, {1e-6f, -1e-6f, 1e-6f, 2e-6f}, 1e-2, 1e-2);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "rel_l2_exceeded");
  EXPECT_NEAR(r.rel_l2, 1.0, 1e-12);
}

TEST(CompareTest, RelativeL2FloorAppliesBelowRtol) {
  // rtol 1e-6 < floor 1e-5: a uniform relative error of 5e-6 passes L2 but the
  // elementwise term decides: |d| = 5e-6 * 1 <= atol 1e-5.
  const auto r = CompareF32({1.000005f, 1.000005f}, {1.0f, 1.0f}, 1e-5, 1e-6);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_LE(r.rel_l2, kRelL2Floor);
}

TEST(CompareTest, ZeroReferenceNeedsExactZeros) {
  EXPECT_TRUE(CompareF32({0.0f, 0.0f}, {0.0f, 0.0f}, 1e-4, 1e-4).ok);
  const auto r = CompareF32({1e-9f, 0.0f}, {0.0f, 0.0f}, 1e-4, 1e-4);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "rel_l2_exceeded");
}

TEST(CompareTest, NanWhereReferenceIsFiniteFails) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto r = CompareF32({1.0f, nan}, {1.0f, 2.0f}, 1e-4, 1e-4);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "nonfinite");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(CompareF32({inf}, {3.0f}, 1e-4, 1e-4).code, "nonfinite");
}

TEST(CompareTest, NonFiniteReferenceMustBeMatchedExactly) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(CompareF32({nan, inf, 1.0f}, {nan, inf, 1.0f}, 1e-4, 1e-4).ok);
  EXPECT_FALSE(CompareF32({-inf, 1.0f}, {inf, 1.0f}, 1e-4, 1e-4).ok);
  EXPECT_FALSE(CompareF32({0.0f, 1.0f}, {nan, 1.0f}, 1e-4, 1e-4).ok);
}

TEST(CompareTest, ShapeDtypeAndSizeChecks) {
  const std::string a = Bytes(std::vector<float>{1, 2, 3, 4});
  EXPECT_EQ(CompareTensor({DType::kFloat32, {2, 2}, a}, {DType::kFloat32, {4}, a}, {}).code,
            "shape_mismatch");
  EXPECT_EQ(CompareTensor({DType::kFloat64, {2}, a}, {DType::kFloat32, {2}, a}, {}).code,
            "dtype_mismatch");
  EXPECT_EQ(CompareTensor({DType::kFloat32, {3}, a}, {DType::kFloat32, {3}, a}, {}).code,
            "size_mismatch");
  EXPECT_EQ(CompareTensor({DType::kFloat32, {-1}, a}, {DType::kFloat32, {-1}, a}, {}).code,
            "size_mismatch");
}

TEST(CompareTest, HalfPrecisionDecodingByHand) {
  const std::vector<std::uint16_t> h = {0x3C00, 0x3C01, 0xC000, 0x7C00, 0x0001, 0x7E00};
  const std::string b = Bytes(h);
  EXPECT_EQ(LoadAsDouble(DType::kFloat16, b.data(), 0), 1.0);
  EXPECT_EQ(LoadAsDouble(DType::kFloat16, b.data(), 1), 1.0009765625);
  EXPECT_EQ(LoadAsDouble(DType::kFloat16, b.data(), 2), -2.0);
  EXPECT_TRUE(std::isinf(LoadAsDouble(DType::kFloat16, b.data(), 3)));
  EXPECT_EQ(LoadAsDouble(DType::kFloat16, b.data(), 4), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isnan(LoadAsDouble(DType::kFloat16, b.data(), 5)));
}

TEST(CompareTest, BFloat16DecodingByHand) {
  const std::vector<std::uint16_t> v = {0x3F80, 0x4049, 0xBF00};
  const std::string b = Bytes(v);
  EXPECT_EQ(LoadAsDouble(DType::kBFloat16, b.data(), 0), 1.0);
  EXPECT_EQ(LoadAsDouble(DType::kBFloat16, b.data(), 1), 3.140625);
  EXPECT_EQ(LoadAsDouble(DType::kBFloat16, b.data(), 2), -0.5);
}

TEST(CompareTest, Fp16ToleranceAtOnePercent) {
  // 1.0 vs 1.0087890625 (0x3C09): |d| = 0.0088 <= 0.01 + 0.01 * 1.
  const std::string out = Bytes(std::vector<std::uint16_t>{0x3C09, 0x4000});
  const std::string ref = Bytes(std::vector<std::uint16_t>{0x3C00, 0x4000});
  const auto r =
      CompareTensor({DType::kFloat16, {2}, out}, {DType::kFloat16, {2}, ref}, {1e-2, 1e-2});
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_NEAR(r.max_abs_err, 0.0087890625, 1e-12);
}

TEST(CompareTest, IntegersMustBeEqual) {
  const std::string a = Bytes(std::vector<std::int64_t>{1, 2, (1LL << 60) + 1});
  const std::string b = Bytes(std::vector<std::int64_t>{1, 2, (1LL << 60)});
  EXPECT_TRUE(CompareTensor({DType::kInt64, {3}, a}, {DType::kInt64, {3}, a}, {}).ok);
  // Differs only beyond double precision: still caught.
  const auto r = CompareTensor({DType::kInt64, {3}, a}, {DType::kInt64, {3}, b}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.code, "not_equal");
  EXPECT_EQ(r.bad_elements, 1);
}

TEST(CompareTest, BoolsCompareByTruth) {
  const std::string a = Bytes(std::vector<std::uint8_t>{1, 0, 2});
  const std::string b = Bytes(std::vector<std::uint8_t>{1, 0, 1});
  const std::string c = Bytes(std::vector<std::uint8_t>{0, 0, 1});
  EXPECT_TRUE(CompareTensor({DType::kBool, {3}, a}, {DType::kBool, {3}, b}, {}).ok);
  EXPECT_FALSE(CompareTensor({DType::kBool, {3}, c}, {DType::kBool, {3}, b}, {}).ok);
}

// Fed in slices, the comparison gives what one pass over the whole tensors gives: the same code,
// message (counts, first bad flat index), worst error, relative L2 and margin.
TEST(CompareTest, SlicedComparisonEqualsWholeComparison) {
  std::vector<float> ref(1000), near(1000), bad(1000), nan_out(1000);
  for (int i = 0; i < 1000; ++i) {
    ref[i] = static_cast<float>(std::sin(0.37 * i) * (1 + i % 13));
    near[i] = ref[i] * (1.0f + 3e-5f * static_cast<float>(i % 3));
    bad[i] = ref[i];
    nan_out[i] = ref[i];
  }
  bad[617] += 1.0f;  // first bad element in the third slice of 256
  bad[901] -= 2.0f;
  nan_out[300] = std::numeric_limits<float>::quiet_NaN();
  const std::string r = Bytes(ref);
  for (const auto* out : {&near, &bad, &nan_out, &ref}) {
    const std::string o = Bytes(*out);
    const std::vector<std::int64_t> shape = {1000};
    const CompareResult whole =
        CompareTensor({DType::kFloat32, shape, o}, {DType::kFloat32, shape, r}, {1e-4, 1e-4});
    OutputComparison sliced(DType::kFloat32, shape, DType::kFloat32, shape, {1e-4, 1e-4});
    for (std::size_t at = 0; at < o.size(); at += 1024) {  // 256 floats per slice, last shorter
      const std::size_t n = std::min<std::size_t>(1024, o.size() - at);
      sliced.Feed(std::string_view(o).substr(at, n), std::string_view(r).substr(at, n));
    }
    const CompareResult got = sliced.Finish();
    EXPECT_EQ(got.ok, whole.ok);
    EXPECT_EQ(got.code, whole.code);
    EXPECT_EQ(got.message, whole.message);
    EXPECT_EQ(got.bad_elements, whole.bad_elements);
    EXPECT_EQ(got.max_abs_err, whole.max_abs_err);
    EXPECT_DOUBLE_EQ(got.rel_l2, whole.rel_l2);
    EXPECT_EQ(got.tolerance_margin, whole.tolerance_margin);
  }
  // By hand: the bad tensor's first failure is at flat index 617, two elements fail.
  OutputComparison cmp(DType::kFloat32, {1000}, DType::kFloat32, {1000}, {1e-4, 1e-4});
  const std::string b = Bytes(bad);
  cmp.Feed(std::string_view(b).substr(0, 2400), std::string_view(r).substr(0, 2400));
  cmp.Feed(std::string_view(b).substr(2400), std::string_view(r).substr(2400));
  const CompareResult got = cmp.Finish();
  EXPECT_EQ(got.code, "not_allclose");
  EXPECT_EQ(got.bad_elements, 2);
  EXPECT_NE(got.message.find("first at flat index 617"), std::string::npos) << got.message;
}

TEST(CompareTest, SlicedComparisonNeedsEveryElement) {
  const std::string r = Bytes(std::vector<float>{1, 2, 3, 4});
  OutputComparison short_feed(DType::kFloat32, {4}, DType::kFloat32, {4}, {1e-4, 1e-4});
  short_feed.Feed(std::string_view(r).substr(0, 8), std::string_view(r).substr(0, 8));
  EXPECT_EQ(short_feed.Finish().code, "size_mismatch");
  OutputComparison too_much(DType::kFloat32, {4}, DType::kFloat32, {4}, {1e-4, 1e-4});
  too_much.Feed(r, r);
  too_much.Feed(std::string_view(r).substr(0, 4), std::string_view(r).substr(0, 4));
  EXPECT_EQ(too_much.Finish().code, "size_mismatch");
  OutputComparison wrong_shape(DType::kFloat32, {2, 2}, DType::kFloat32, {4}, {1e-4, 1e-4});
  EXPECT_TRUE(wrong_shape.failed());
  EXPECT_EQ(wrong_shape.Finish().code, "shape_mismatch");
}

TEST(CompareTest, DTypeNamesRoundTrip) {
  for (const char* name : {"float32", "float64", "float16", "bfloat16", "int8", "int16", "int32",
                           "int64", "uint8", "bool"}) {
    const auto d = ParseDType(name);
    ASSERT_TRUE(d.has_value()) << name;
    EXPECT_EQ(DTypeName(*d), name);
  }
  EXPECT_FALSE(ParseDType("complex64").has_value());
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_FALSE(NumElements({1LL << 40, 1LL << 40}).has_value());
}

}  // namespace
}  // namespace tritonrl::eval
