// Runs many samples over a pool of worker threads; each thread drives one
// sandboxed worker process at a time. The reference of a task is computed once
// (in its own process) and dropped when the task's last sample is done (its
// spilled outputs with it). A free thread takes a sample whose reference is
// ready, else starts the reference of the next task that has none (at most one
// live reference per thread), and waits only when every remaining sample waits
// on a reference in flight. With EngineConfig::reuse_reference, a reference kept
// from an earlier run serves its task at once (and keep_reference is offered
// every reference this run computes). Each worker is admitted against the run's memory
// budgets first (src/eval/admission.h): a sample waits for memory, or gets
// resource_exhausted when it can never fit.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "eval/types.h"

namespace tritonrl::eval {

struct SampleJob {
  std::string sample_id;
  std::string task_id;
  std::string task_path;
  std::string code;                    // bare Python code to run
  std::optional<Verdict> pre_verdict;  // decided before running (static rejection, cache hit)
  // Only the task's reference (kept through EngineConfig::keep_reference): no candidate runs, and
  // the verdict says whether the reference ran (ReferenceOnlyVerdict).
  bool reference_only = false;
};

// The verdict of a reference_only job: outcome correct with the reason ("reference", "ok") when
// the reference ran; else runtime_error, infra_failure, and the reference's error as reason.
Verdict ReferenceOnlyVerdict(const ReferenceResult& ref);

// How a caller shares the pool's work with others. All optional.
struct PoolControl {
  // Polled before each sample starts: true stops taking samples (those in flight finish; the
  // rest get no on_done call).
  std::function<bool()> cancelled;
  // Around each sample's run (its reference included): a slot of a budget of worker processes
  // shared with other pools, so concurrent callers interleave sample by sample.
  std::function<void()> acquire_slot, release_slot;
};

// Calls on_done(index, verdict) once per job, from the pool's threads, one call
// at a time; decided jobs (pre_verdict) first. A sample whose thread waited for
// references in flight has that wait in timings_ms["reference_wait"]; every run
// sample has evidence["pool"] (PoolEvidence, src/eval/evidence.h: thread, start_ms
// and end_ms since the pool began, ran_reference).
void RunPool(const EngineConfig& config, const std::vector<SampleJob>& jobs, int threads,
             const std::function<void(std::size_t, Verdict)>& on_done,
             const PoolControl& control = {});

}  // namespace tritonrl::eval
