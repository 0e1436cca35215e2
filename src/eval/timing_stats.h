// Order statistics of timed samples (docs/measurement.md): what every timing check and the
// speedup are computed over. The rule: non-finite values are dropped; quantiles interpolate
// linearly between order statistics. Pure functions; any thread.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace tritonrl::eval {

struct Stats {
  int n = 0;
  double median = 0, p25 = 0, p75 = 0, iqr = 0, mean = 0, stddev = 0, cv = 0, min = 0, max = 0;
};
Stats Summarize(std::vector<double> values);
// Its JSON: the field names as keys, n an integer. from_json is lenient (verdicts read back from
// the store): a key that is missing or not a number leaves its field 0.
void to_json(nlohmann::json& j, const Stats& s);
void from_json(const nlohmann::json& j, Stats& s);

// The q-quantile of the finite values (0 when there are none).
double QuantileOf(std::vector<double> values, double q);
double Median(std::vector<double> values);

// Standard error of the q-quantile of `values` (non-finite ones dropped), read off the sample:
// half the distance between its q -/+ sqrt(q (1 - q) / n) quantiles (one binomial standard
// deviation of the share below the quantile). Distribution-free: a bimodal sample (a host stalled
// on some cycles) whose quantile sits inside one dense mode gets that mode's spread, not the gap
// between the modes, as IQR / sqrt(n) would. 0 for fewer than two values.
double QuantileStandardError(std::vector<double> values, double q);

}  // namespace tritonrl::eval
