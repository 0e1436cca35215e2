// Trusted comparison of a candidate's output bytes with the reference's, done
// in the engine (never in the candidate's process).
//
// A float output passes when, element by element, non-finite reference values
// are matched exactly (NaN with NaN, +inf with +inf), no finite reference value
// meets a non-finite output, |out - ref| <= atol + rtol * |ref| (torch.allclose),
// AND the relative L2 error over finite reference positions,
//   ||out - ref||_2 / ||ref||_2  (in double precision),
// is at most max(rtol, kRelL2Floor); a reference of norm 0 then requires
// out == ref. This is the same rule as taskmod.compare (docs/tasks.md).
// Integer and bool outputs must be equal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonrl::eval {

enum class DType {
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kBool
};

// torch dtype names without the "torch." prefix ("float32", "bfloat16", ...).
std::optional<DType> ParseDType(std::string_view name);
std::string_view DTypeName(DType dtype);
std::size_t DTypeSize(DType dtype);
bool IsFloating(DType dtype);

inline constexpr double kRelL2Floor = 1e-5;

struct TensorBytes {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::string_view data;  // contiguous, little-endian, row-major
};

struct Tolerance {
  double atol = 1e-4;
  double rtol = 1e-4;
  bool rel_l2 = true;  // false: allclose alone (KernelBench's rule, --tolerance kernelbench)
};

struct CompareResult {
  bool ok = true;
  std::string code;     // "" when ok; else shape_mismatch, dtype_mismatch, ...
  std::string message;  // human-readable detail
  double max_abs_err = 0.0;
  double rel_l2 = 0.0;
  // max |out - ref| / (atol + rtol * |ref|) over finite pairs: above 1 fails allclose. Shows how
  // close a passing output came to the edge (a verdict near 1 can flip with the next seed).
  double tolerance_margin = 0.0;
  std::int64_t bad_elements = 0;  // elements failing allclose or non-finite parity
};

// Number of elements of a shape; nullopt on negative dims or overflow.
std::optional<std::int64_t> NumElements(const std::vector<std::int64_t>& shape);

// Decode element i of a float tensor to double (fp16/bf16 widened exactly).
double LoadAsDouble(DType dtype, const char* data, std::int64_t i);

// The comparison above over an output that arrives in slices (the engine never holds a whole
// output): Feed takes equal-length, element-aligned slices of the candidate's and the reference's
// bytes in order; Finish gives the same result, code and message as one CompareTensor over the
// whole tensors (the sums and the worst element are accumulated across slices). One thread.
class OutputComparison {
 public:
  OutputComparison(DType out_dtype, const std::vector<std::int64_t>& out_shape, DType ref_dtype,
                   const std::vector<std::int64_t>& ref_shape, Tolerance tol);
  // True once the result is known to be a failure (dtype, shape or size): later slices are ignored.
  bool failed() const { return !r_.ok; }
  void Feed(std::string_view out, std::string_view ref);
  CompareResult Finish();

 private:
  template <typename LoadFn>
  void FeedFloating(const char* out, const char* ref, std::int64_t n, LoadFn load);
  DType dtype_;
  Tolerance tol_;
  std::vector<std::int64_t> shape_;
  std::int64_t total_ = 0, seen_ = 0, nonfinite_ = 0, first_bad_ = -1;
  double num_ = 0.0, den_ = 0.0;
  bool finished_ = false;
  CompareResult r_;
};

CompareResult CompareTensor(const TensorBytes& out, const TensorBytes& ref, Tolerance tol);

}  // namespace tritonrl::eval
