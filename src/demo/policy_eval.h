// Policy evaluation for the demo and the trainers' before/after checks: k
// samples per task from a policy (the SFT prompt and chat template), scored
// through the scoring library, summarised as pass@1, pass@k, valid / compiled /
// correct rates, fast1 (when timed) and TritonRL's Figure 5 outcome shares.
// libtorch-free interface. EvaluatePolicy loads the policy itself and uses the
// caller's Scorer (shared: see scoring/score_batch.h); call it from one thread
// at a time per policy. What survives a crash: the verdicts in the Scorer's
// store (a rerun of the same batch resumes them); nothing else is written here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "metrics/metrics.h"
#include "scoring/score_batch.h"

namespace tritonrl::demo {

// A task to evaluate: its id in the Scorer's suite and its instruction, the user turn the
// policy's own chat template wraps when the policy is loaded (train::SftPromptText), so each
// evaluated checkpoint sees its own format.
struct EvalTask {
  std::string id;
  std::string instruction;  // train::TaskInstruction
};

// The tasks `ids` of the suite folder `suite` (file SUITE/ID.py), with their instructions.
Result<std::vector<EvalTask>> LoadEvalTasks(const std::string& suite,
                                            const std::vector<std::string>& ids);

struct PolicyEvalOptions {
  std::string model = "builtin:tiny";  // a Hugging Face directory (a checkpoint) or builtin:tiny
  uint64_t builtin_seed = 0;           // weights of builtin:tiny
  std::string device;                  // empty: cuda if available, else cpu
  std::string dtype;                   // empty: bf16 on GPU, fp32 on CPU
  int k = 4;                           // samples per task
  int64_t max_new_tokens = 256;
  double temperature = 1.0;
  double top_p = 1.0;
  uint64_t seed = 0;
  int64_t prompts_per_batch = 16;  // prompts generated together (k rows each)
};

// The numbers of one evaluation (all tasks together).
struct EvalSummary {
  int64_t tasks = 0, samples = 0;
  int k = 0;  // pass@k's k (the samples per task)
  double pass_at_1 = 0, pass_at_k = 0;
  double valid_rate = 0, compiled_rate = 0, correct_rate = 0;
  std::optional<double> fast1_rate;  // correct and speedup > 1; only when some sample was timed
  metrics::OutcomeShares shares;     // invalid syntax, invalid functionality, correct, other
  int64_t truncated = 0;             // responses cut at max_new_tokens (0 when not known)
};

// Summary of verdicts with k samples per task (metrics::ComputeMetrics; pass@k unbiased, averaged
// over tasks). InvalidArgument if a task has fewer than k samples or k < 1.
Result<EvalSummary> Summarize(const std::vector<scoring::ScoredSample>& verdicts, int k);

nlohmann::json SummaryJson(const EvalSummary& s);

// SummaryJson's inverse (a resumed demo reads back an evaluation it finished); the outcome
// counts are the shares times the samples. ParseError on a missing or mistyped field.
Result<EvalSummary> SummaryFromJson(const nlohmann::json& j);

struct GeneratedSample {
  std::string task, id, text, finish_reason;
  int index = 0;  // sample number within the task, 0..k-1
  int64_t tokens = 0;
};

// Generates k samples per task. The tasks are cut, in order, into batches of
// `prompts_per_batch` (k rows each) and each batch is seeded by (seed, its first task's position),
// so a batch's samples depend only on the options and its tasks, never on which other batches
// run: a run that generates only some batches (a resume) gets the samples a full run would.
// `wanted(first, last)` (optional) says whether the batch of tasks [first, last) is generated;
// `on_batch` gets each generated batch (task order, then sample order) when it is done, and an
// error from it stops the generation. The policy is loaded only if some batch is wanted.
// Returns the policy's description (PolicyDescription; empty when nothing was generated).
struct GenerateCallbacks {
  std::function<bool(size_t first, size_t last)> wanted;
  std::function<Status(std::vector<GeneratedSample> batch)> on_batch;
};
Result<std::string> GenerateSamples(const PolicyEvalOptions& options,
                                    const std::vector<EvalTask>& tasks,
                                    const GenerateCallbacks& callbacks);

struct PolicyEvalResult {
  EvalSummary summary;
  std::vector<GeneratedSample> generated;       // task order, then sample order
  std::vector<scoring::ScoredSample> verdicts;  // the same order
  std::string run_id;                           // the scoring run
  std::string policy;                           // PolicyDescription
  double generate_seconds = 0, score_seconds = 0;
};

// Generates k samples per task and scores them (run id derived from the batch, so the same
// outputs scored again resume). Errors name the step (load, generate, score).
Result<PolicyEvalResult> EvaluatePolicy(const PolicyEvalOptions& options,
                                        const std::vector<EvalTask>& tasks,
                                        scoring::Scorer& scorer);

}  // namespace tritonrl::demo
