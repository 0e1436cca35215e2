// A worker's trials as they arrive: each "trial" header is followed by its
// tensor outputs' bytes as "slice" frames (python/tritonrl_runner/worker.py).
// The reference's slices are spilled to a file (src/eval/spill.h); a
// candidate's are compared, slice by slice, with the reference's bytes read
// back from that file, so the engine holds a few slices per worker whatever
// the outputs' size. The candidate's trial headers are checked here too
// (proof of work, inputs, aliasing). Everything a candidate's process sends is
// untrusted. One object per worker, used by the thread that drives it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/proof_of_work.h"

#include "base/status.h"
#include "eval/compare.h"
#include "eval/protocol.h"
#include "eval/spill.h"
#include "eval/types.h"

namespace tritonrl::eval {

// The most bytes one output may declare (1 TiB): a larger declaration is a protocol violation.
inline constexpr std::int64_t kMaxOutputBytes = std::int64_t{1} << 40;

// Where the slice frames after one trial header belong: the byte count the header declared for each
// tensor output (entries with "type_ok": true), in order, and the next expected position. Every
// slice but an output's last is a multiple of 8 bytes, so slices never split an element.
class SliceCursor {
 public:
  static Result<SliceCursor> FromTrialHeader(const nlohmann::json& header);
  bool done() const { return output_ >= nbytes_.size(); }
  struct Position {
    std::size_t output = 0;
    std::int64_t offset = 0;
  };
  // Validates the next slice frame (its header and payload size) and advances past it.
  Result<Position> Next(const nlohmann::json& header, std::size_t payload_size);

 private:
  void SkipEmpty();
  std::vector<std::int64_t> nbytes_;  // per output; 0 for a non-tensor (no slices)
  std::size_t output_ = 0;
  std::int64_t offset_ = 0;
};

// What the worker driver (src/eval/worker_driver.h) hands a worker's frames to, in order. A
// non-ok Status ends the worker: Unavailable as resource_exhausted, ParseError as a protocol
// violation, anything else as an infrastructure failure.
class TrialSink {
 public:
  virtual ~TrialSink() = default;
  // Every accepted frame but slices: hello, variants, stage, trial headers, timing, profile.
  virtual Status OnFrame(const Frame& frame) = 0;
  virtual Status OnSlice(std::size_t output, std::int64_t offset, std::string_view bytes) = 0;
  // The current trial's last slice arrived (or it had none).
  virtual Status OnTrialEnd() = 0;
  // Asked when the worker is ready to be timed: true stops it there (failed trials).
  virtual bool SkipTiming() const { return false; }
  // Asked after each trial header and each trial: true stops the worker there (the verdict is
  // already settled).
  virtual bool StopAfterTrial() const { return false; }
};

// The trusted reference's trials: records, and output bytes appended to `spill`.
class ReferenceRecorder : public TrialSink {
 public:
  // `on_device_peak`, if set, hears the largest allocator peak reported so far after each trial.
  ReferenceRecorder(ReferenceResult& ref, std::shared_ptr<SpillFile> spill,
                    std::function<void(std::int64_t)> on_device_peak = {})
      : ref_(ref), spill_(std::move(spill)), on_device_peak_(std::move(on_device_peak)) {}
  Status OnFrame(const Frame& frame) override;
  Status OnSlice(std::size_t output, std::int64_t offset, std::string_view bytes) override;
  Status OnTrialEnd() override { return Status::Ok(); }

 private:
  ReferenceResult& ref_;
  std::shared_ptr<SpillFile> spill_;
  std::function<void(std::int64_t)> on_device_peak_;
};

// What a candidate's correctness trials showed.
struct TrialCheck {
  std::set<std::string> own_kernels, other_kernels, aten_ops, forbidden, modes;
  double max_abs = 0, max_rel = 0, max_margin = 0;  // max_margin: CompareResult::tolerance_margin
  int min_launches = -1, trials_checked = 0;
  bool imported = false;
  std::map<std::string, Reason> failures;  // the first failure per code
  GuardEvidence guards;                    // proof_of_work.h
  // The codes among `failures` that are our proof of work (which kernels ran, ATen ops, hooks,
  // guards, inputs mutated or aliased), not a fault of the outputs (OutputsMatched).
  std::set<std::string> proof_of_work;
};

// A candidate's frames checked against the reference's records as they arrive.
class CandidateChecker : public TrialSink {
 public:
  CandidateChecker(const EngineConfig& cfg, const ReferenceResult& ref) : cfg_(cfg), ref_(ref) {}
  Status OnFrame(const Frame& frame) override;
  Status OnSlice(std::size_t output, std::int64_t offset, std::string_view bytes) override;
  Status OnTrialEnd() override;
  bool SkipTiming() const override { return !check_.failures.empty(); }
  bool StopAfterTrial() const override { return !cfg_.all_trials && !check_.failures.empty(); }
  const TrialCheck& result() const { return check_; }

 private:
  void Fail(const std::string& code, std::string message);
  // A failure of the proof of work rather than of the outputs (TrialCheck::proof_of_work).
  void FailProofOfWork(const std::string& code, std::string message);
  void FailOutsideConstructorOps(const std::vector<std::string>& ops,
                                 const std::string& while_what);
  void OnTrialHeader(const nlohmann::json& h);
  // One output of the trial in progress; no comparison when it already failed its description.
  struct OutputInProgress {
    std::optional<OutputComparison> compare;
    std::int64_t ref_offset = 0;  // in the reference's spill file
  };
  const EngineConfig& cfg_;
  const ReferenceResult& ref_;
  TrialCheck check_;
  std::size_t ref_at_ = 0;
  std::string where_;
  std::vector<OutputInProgress> outputs_;
  std::string ref_bytes_;  // the reference's slice matching the one being compared (reused)
};

// AutoTriton's "test passed" (the `binary` ablation arm, docs/rl.md): every trial the reference ran
// was checked and none failed on its outputs (structure, count, type, device, dtype, shape,
// values) or the protocol; failures of our proof of work (TrialCheck::proof_of_work) do not
// count. Meaningful
// only when every trial ran (EngineConfig::all_trials): otherwise a proof-of-work failure stops
// the candidate before its outputs are read.
bool OutputsMatched(const TrialCheck& check, std::size_t trials_expected);

// An output description (dtype, shape, device, nbytes) from a trial header, validated: nbytes must
// be the shape's element count times the dtype's size.
Result<OutputRecord> ParseOutputDescription(const nlohmann::json& d);

}  // namespace tritonrl::eval
