// The words a verdict is made of, in one place: the outcomes (an enum with its
// stable strings), the flag names, and the two sets of flags that policies read
// (flags that void a measured speedup in the reward, flags that fail a sample
// under the strict correctness policy). The engine writes these strings; the
// store keeps them; metrics, rl, the report, scoring and the CLI read them.
//
// Depends on nothing but the standard library, so any module may include it
// without a dependency cycle. Everything here is constant: callable from any
// thread. Nothing is persisted by this module; the strings are what the results
// store keeps, so a name here never changes (add new ones instead).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonrl::vocab {

// What happened to a sample, from the earliest stage that decided it. Declared in the
// order reports list them (the pipeline's order, correct last).
enum class Outcome {
  kInvalidSyntax,         // static: no parseable code or a required structure missing
  kInvalidFunctionality,  // static: the work is not done by the candidate's Triton kernels
  kCompileError,          // the candidate did not import or build
  kRuntimeError,          // it crashed, broke the protocol, or failed a runtime proof of work
  kTimeout,               // a stage ran past its limit
  kResourceExhausted,     // host or device memory could not hold the sample (not the whole run)
  kIncorrect,             // it ran, but its outputs or its timing evidence failed
  kCorrect,
};

inline constexpr Outcome kAllOutcomes[] = {Outcome::kInvalidSyntax, Outcome::kInvalidFunctionality,
                                           Outcome::kCompileError,  Outcome::kRuntimeError,
                                           Outcome::kTimeout,       Outcome::kResourceExhausted,
                                           Outcome::kIncorrect,     Outcome::kCorrect};

// The stored spelling: "invalid_syntax", ..., "resource_exhausted", "incorrect", "correct".
std::string_view OutcomeName(Outcome outcome);
// The inverse of OutcomeName; nullopt for any other string (callers name the source).
std::optional<Outcome> ParseOutcome(std::string_view name);

// Flag names: marks on a verdict that a reviewer, the strict policy or the reward reads.
namespace flag {
// The candidate's GPU time is mostly outside its own kernels (or a forbidden ATen op ran).
inline constexpr std::string_view kLazyOptimization = "lazy_optimization";
// The timing evidence disagrees with itself (events, device clock, parent clock).
inline constexpr std::string_view kTimingInconsistent = "timing_inconsistent";
// Faster than the roofline or the speedup cap allows.
inline constexpr std::string_view kImplausibleSpeedup = "implausible_speedup";
// The engine's own clock of each call disagrees with the reported time.
inline constexpr std::string_view kParentClockGap = "parent_clock_gap";
// Correct, but the worst element used more than 90% of its tolerance.
inline constexpr std::string_view kNearTolerance = "near_tolerance";
// Correct but slower than its timing budget: stopped, upper-bound speedup.
inline constexpr std::string_view kSlowOverBudget = "slow_over_budget";
// The sandbox ran with a feature off (recorded, not the sample's fault).
inline constexpr std::string_view kDegradedSandbox = "degraded_sandbox";
// Host or GPU contention made the timing evidence disagree (no forgery found): speedup void.
inline constexpr std::string_view kTimingContended = "timing_contended";
// A null model (zeros, mean, the input) passes this task's check on this run's seeds: the
// verdict cannot certify correctness (docs/tasks.md).
inline constexpr std::string_view kWeakTask = "weak_task";
// The task's reference could not run (raised, crashed, timed out, ran out of memory): the verdict
// says nothing about the sample. The task's failure: out of every metric and pass@k
// (metrics/metrics.h), and no reward (kRewardVoidFlags).
inline constexpr std::string_view kReferenceFailed = "reference_failed";
}  // namespace flag

// Any of these means the measured speedup cannot be trusted: the reward's speedup term is 0
// (correctness still counts). docs/rl.md.
inline constexpr std::string_view kSpeedupVoidFlags[] = {
    flag::kLazyOptimization, flag::kTimingInconsistent, flag::kImplausibleSpeedup,
    flag::kParentClockGap,   flag::kTimingContended,    flag::kWeakTask};
// The void flags that load explains (docs/eval.md, "The load rule"): the speedup is unknown, not
// low, so a group's reward may stand in the group's trusted speedups for it (rl/rewards.h,
// ImputeUnknownSpeedups). Every other void flag is evidence against the timing and keeps 0.
inline constexpr std::string_view kSpeedupLoadFlags[] = {flag::kParentClockGap,
                                                         flag::kTimingContended};
// Any of these makes a correct sample not correct under the strict policy. docs/metrics.md.
inline constexpr std::string_view kStrictFailFlags[] = {
    flag::kLazyOptimization, flag::kTimingInconsistent, flag::kImplausibleSpeedup,
    flag::kParentClockGap, flag::kWeakTask};
// Any of these means correctness is not established: the reward pays nothing. docs/rl.md.
inline constexpr std::string_view kRewardVoidFlags[] = {flag::kWeakTask, flag::kReferenceFailed};

bool VoidsSpeedup(std::string_view flag_name);
bool FailsStrict(std::string_view flag_name);
// The sets as owned strings, for configuration structs that let a caller change them.
std::vector<std::string> SpeedupVoidFlags();
std::vector<std::string> StrictFailFlags();
std::vector<std::string> SpeedupLoadFlags();
std::vector<std::string> RewardVoidFlags();

}  // namespace tritonrl::vocab
