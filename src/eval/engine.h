// The evaluation engine: for one sample, a reference worker and a candidate
// worker (separate sandboxed processes, src/eval/process.h) run the same trial
// schedule on inputs generated from the same seeds; the engine checks that both
// saw identical inputs (hashes), validates every frame the candidate sent,
// compares its output bytes with the reference's, checks the runtime proof of
// work (launches of the candidate's own kernels, ATen audit, hook integrity,
// input mutation, aliasing, exact tensor type), and writes a Verdict.
// Pipeline, checks and what each defeats: docs/eval.md. The types it speaks: eval/types.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/process.h"
#include "eval/types.h"

namespace tritonrl::eval {

// Device bytes a worker needed when CUDA's allocator failed: the memory its process had in use
// plus the allocation that failed, read from torch.OutOfMemoryError's message ("Tried to allocate
// 6.00 GiB ... this process has 12.63 GiB memory in use"); 0 when either is missing.
std::uint64_t DeviceBytesAtOom(std::string_view message);

// `on_device_peak`: see ReferenceRecorder (the pool grows the reference's admission with it).
ReferenceResult RunReference(const EngineConfig& config, const std::string& task_path,
                             const std::function<void(std::int64_t)>& on_device_peak = {});

// Runs the candidate (bare Python code) against a reference result.
Verdict RunCandidate(const EngineConfig& config, const std::string& task_path,
                     const std::string& code, const ReferenceResult& reference);

// A correct sample whose worst element used more than this share of its tolerance
// (CompareResult::tolerance_margin) gets the flag near_tolerance: its verdict may flip with the
// next seeds, and an approximation tuned to the tolerance looks exactly like this. Honest
// solutions of our suite stay at or below 0.63 (bench/RESULTS.md, 2026-12-01, recorded in e515a22).
inline constexpr double kNearToleranceMargin = 0.9;

}  // namespace tritonrl::eval
