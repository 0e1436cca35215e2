// The correctness trials' schedule: which seeds and modes a run's trials use (one of them the
// run's secret), which of them a variant runs, and the configuration a candidate inherits from
// its task's reference so both run the same secrets. Pure functions of EngineConfig and
// ReferenceResult (eval/types.h), below the engine and the worker driver that follow them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/types.h"

namespace tritonrl::eval {

// Public seeds (derived from 42, as KernelBench) for all trials but one, which
// gets `secret_seed` at a position the secret also picks; modes cycle through
// (train, grad), (eval, no grad), (train, no grad), (eval, grad).
std::vector<TrialSpec> MakeSchedule(int trials, std::uint64_t secret_seed);
// A seed from the kernel's CSPRNG (getrandom), below 2^62.
std::uint64_t DrawSecretSeed();

// The schedule indices a variant runs, in order: all of them, or for the "large" variant with
// large_variant_trials set, the secret trial and the first public ones.
std::vector<int> TrialIndicesFor(const EngineConfig& config, const std::string& variant);

// The configuration a candidate of `ref`'s task runs with: `config` with the reference's seeds.
EngineConfig CandidateConfig(const EngineConfig& config, const ReferenceResult& ref);
// The schedule indices the reference ran on a variant, in order: TrialIndicesFor's, or the large
// variant's list where its outputs reached EngineConfig::large_output_bytes.
std::vector<int> RecordedTrials(const ReferenceResult& ref, const std::string& variant);

}  // namespace tritonrl::eval
