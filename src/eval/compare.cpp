#include "eval/compare.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace tritonrl::eval {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
};

constexpr std::array<DTypeInfo, 10> kDTypes = {{
    {DType::kFloat32, "float32", 4},
    {DType::kFloat64, "float64", 8},
    {DType::kFloat16, "float16", 2},
    {DType::kBFloat16, "bfloat16", 2},
    {DType::kInt8, "int8", 1},
    {DType::kInt16, "int16", 2},
    {DType::kInt32, "int32", 4},
    {DType::kInt64, "int64", 8},
    {DType::kUInt8, "uint8", 1},
    {DType::kBool, "bool", 1},
}};

template <typename T>
T Load(const char* data, std::int64_t i) {
  T v;
  std::memcpy(&v, data + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}

double HalfToDouble(std::uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);  // subnormal
  } else if (exp == 31) {
    v = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else {
    v = std::ldexp(static_cast<double>(mant | 0x400), exp - 25);
  }
  return sign ? -v : v;
}

// Every fp16 bit pattern widened, built once (HalfToDouble per element costs two ldexp calls).
const std::array<double, 65536>& HalfTable() {
  static const std::array<double, 65536> table = [] {
    std::array<double, 65536> t{};
    for (std::uint32_t h = 0; h < t.size(); ++h) t[h] = HalfToDouble(static_cast<std::uint16_t>(h));
    return t;
  }();
  return table;
}

double BFloat16ToDouble(std::uint16_t b) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16));
}

std::string ShapeString(const std::vector<std::int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

CompareResult Fail(std::string code, std::string message) {
  CompareResult r;
  r.ok = false;
  r.code = std::move(code);
  r.message = std::move(message);
  return r;
}

}  // namespace

std::optional<DType> ParseDType(std::string_view name) {
  for (const auto& d : kDTypes) {
    if (d.name == name) return d.dtype;
  }
  return std::nullopt;
}

std::string_view DTypeName(DType dtype) {
  for (const auto& d : kDTypes) {
    if (d.dtype == dtype) return d.name;
  }
  return "?";
}

std::size_t DTypeSize(DType dtype) {
  for (const auto& d : kDTypes) {
    if (d.dtype == dtype) return d.size;
  }
  return 0;
}

bool IsFloating(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

std::optional<std::int64_t> NumElements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

double LoadAsDouble(DType dtype, const char* data, std::int64_t i) {
  switch (dtype) {
    case DType::kFloat32:
      return static_cast<double>(Load<float>(data, i));
    case DType::kFloat64:
      return Load<double>(data, i);
    case DType::kFloat16:
      return HalfToDouble(Load<std::uint16_t>(data, i));
    case DType::kBFloat16:
      return BFloat16ToDouble(Load<std::uint16_t>(data, i));
    case DType::kInt8:
      return Load<std::int8_t>(data, i);
    case DType::kInt16:
      return Load<std::int16_t>(data, i);
    case DType::kInt32:
      return Load<std::int32_t>(data, i);
    case DType::kInt64:
      return static_cast<double>(Load<std::int64_t>(data, i));
    case DType::kUInt8:
    case DType::kBool:
      return Load<std::uint8_t>(data, i);
  }
  return 0.0;
}

OutputComparison::OutputComparison(DType out_dtype, const std::vector<std::int64_t>& out_shape,
                                   DType ref_dtype, const std::vector<std::int64_t>& ref_shape,
                                   Tolerance tol)
    : dtype_(ref_dtype), tol_(tol), shape_(ref_shape) {
  if (out_dtype != ref_dtype) {
    r_ = Fail("dtype_mismatch",
              fmt::format("dtype {}, expected {}", DTypeName(out_dtype), DTypeName(ref_dtype)));
  } else if (out_shape != ref_shape) {
    r_ = Fail("shape_mismatch",
              fmt::format("shape {}, expected {}", ShapeString(out_shape), ShapeString(ref_shape)));
  } else if (const auto n = NumElements(ref_shape)) {
    total_ = *n;
  } else {
    r_ =
        Fail("size_mismatch", fmt::format("no element count for shape {}", ShapeString(ref_shape)));
  }
}

template <typename LoadFn>
void OutputComparison::FeedFloating(const char* o, const char* f, std::int64_t n, LoadFn load) {
  // Locals, so the compiler keeps them in registers across the loop.
  double max_abs = r_.max_abs_err, margin = r_.tolerance_margin, num = num_, den = den_;
  std::int64_t bad = 0, nonfinite = 0, first_bad = first_bad_;
  const double atol = tol_.atol, rtol = tol_.rtol;
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = load(o, i);
    const double b = load(f, i);
    if (!std::isfinite(b)) {
      const bool same = std::isnan(b) ? std::isnan(a) : a == b;
      if (!same) {
        ++bad;
        if (first_bad < 0) first_bad = seen_ + i;
      }
      continue;
    }
    if (!std::isfinite(a)) {
      ++nonfinite;
      ++bad;
      if (first_bad < 0) first_bad = seen_ + i;
      continue;
    }
    const double d = std::fabs(a - b);
    max_abs = std::max(max_abs, d);
    num += d * d;
    den += b * b;
    const double allowed = atol + rtol * std::fabs(b);
    // d / allowed > margin without a division per element (d = 0 never raises it; an infinite
    // margin stays: inf * 0 is NaN and the test is false).
    if (d > margin * allowed) margin = allowed > 0.0 ? std::max(margin, d / allowed) : HUGE_VAL;
    if (!(d <= allowed)) {
      ++bad;
      if (first_bad < 0) first_bad = seen_ + i;
    }
  }
  r_.max_abs_err = max_abs;
  r_.tolerance_margin = margin;
  r_.bad_elements += bad;
  num_ = num;
  den_ = den;
  nonfinite_ += nonfinite;
  first_bad_ = first_bad;
}

void OutputComparison::Feed(std::string_view out, std::string_view ref) {
  const std::size_t esize = DTypeSize(dtype_);
  if (!r_.ok || finished_) return;
  if (out.size() != ref.size() || out.size() % esize != 0 ||
      seen_ + static_cast<std::int64_t>(out.size() / esize) > total_) {
    r_ = Fail("size_mismatch", fmt::format("a slice of {} bytes past {} of {} elements of {}",
                                           out.size(), seen_, total_, DTypeName(dtype_)));
    return;
  }
  const auto n = static_cast<std::int64_t>(out.size() / esize);
  const char* o = out.data();
  const char* f = ref.data();
  if (!IsFloating(dtype_)) {
    // Exact equality, compared as bytes per element (bool: any non-zero is true).
    for (std::int64_t i = 0; i < n; ++i) {
      const double a = LoadAsDouble(dtype_, o, i);
      const double b = LoadAsDouble(dtype_, f, i);
      const bool equal = dtype_ == DType::kBool ? ((a != 0) == (b != 0))
                         : dtype_ == DType::kInt64
                             ? Load<std::int64_t>(o, i) == Load<std::int64_t>(f, i)
                             : a == b;
      if (!equal) {
        ++r_.bad_elements;
        r_.max_abs_err = std::max(r_.max_abs_err, std::fabs(a - b));
      }
    }
    seen_ += n;
    return;
  }
  // One loop per dtype, so the loads inline and the dispatch is per slice, not per element.
  switch (dtype_) {
    case DType::kFloat32:
      FeedFloating(o, f, n, [](const char* p, std::int64_t i) {
        return static_cast<double>(Load<float>(p, i));
      });
      break;
    case DType::kFloat64:
      FeedFloating(o, f, n, [](const char* p, std::int64_t i) { return Load<double>(p, i); });
      break;
    case DType::kFloat16:
      FeedFloating(o, f, n, [table = HalfTable().data()](const char* p, std::int64_t i) {
        return table[Load<std::uint16_t>(p, i)];
      });
      break;
    case DType::kBFloat16:
      FeedFloating(o, f, n, [](const char* p, std::int64_t i) {
        return BFloat16ToDouble(Load<std::uint16_t>(p, i));
      });
      break;
    default:
      break;
  }
  seen_ += n;
}

CompareResult OutputComparison::Finish() {
  if (finished_ || !r_.ok) {
    finished_ = true;
    return r_;
  }
  finished_ = true;
  if (seen_ != total_) {
    r_ = Fail("size_mismatch", fmt::format("{} of {} elements for shape {} of {}", seen_, total_,
                                           ShapeString(shape_), DTypeName(dtype_)));
    return r_;
  }
  CompareResult& r = r_;
  if (!IsFloating(dtype_)) {
    if (r.bad_elements) {
      r.ok = false;
      r.code = "not_equal";
      r.message = fmt::format("{} of {} elements differ", r.bad_elements, total_);
    }
    return r;
  }
  r.rel_l2 = den_ > 0.0 ? std::sqrt(num_) / std::sqrt(den_) : (num_ > 0.0 ? HUGE_VAL : 0.0);
  const double bound = std::max(tol_.rtol, kRelL2Floor);
  if (nonfinite_) {
    r.ok = false;
    r.code = "nonfinite";
    r.message =
        fmt::format("{} non-finite values where the reference is finite (first at flat index {})",
                    nonfinite_, first_bad_);
  } else if (r.bad_elements) {
    r.ok = false;
    r.code = "not_allclose";
    r.message = fmt::format(
        "{} of {} elements outside atol={:g} rtol={:g} (max abs err {:.3g}, first at flat index "
        "{})",
        r.bad_elements, total_, tol_.atol, tol_.rtol, r.max_abs_err, first_bad_);
  } else if (tol_.rel_l2 && !(r.rel_l2 <= bound)) {
    r.ok = false;
    r.code = "rel_l2_exceeded";
    r.message = fmt::format("relative L2 error {:.3g} > {:g}", r.rel_l2, bound);
  }
  return r;
}

CompareResult CompareTensor(const TensorBytes& out, const TensorBytes& ref, Tolerance tol) {
  OutputComparison cmp(out.dtype, out.shape, ref.dtype, ref.shape, tol);
  if (!cmp.failed()) {
    const auto n = NumElements(ref.shape);
    const std::size_t esize = DTypeSize(ref.dtype);
    if (!n || out.data.size() != static_cast<std::size_t>(*n) * esize ||
        ref.data.size() != static_cast<std::size_t>(*n) * esize) {
      return Fail("size_mismatch", fmt::format("{} bytes for shape {} of {}", out.data.size(),
                                               ShapeString(out.shape), DTypeName(out.dtype)));
    }
    cmp.Feed(out.data, ref.data);
  }
  return cmp.Finish();
}

}  // namespace tritonrl::eval
