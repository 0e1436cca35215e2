// Whether a generated solution (or a distilled model output) is verified: our evaluator's
// judgement through the scoring library, in-process. The one home of that decision for
// `data synth`, `data distill` and the demo: a sample stands if its verdict is `correct` and no
// null model matches its task's reference (the scorer's `weak_task` flag: such a task earns
// nothing). Rejections read "<outcome>[:<stage>.<code>]" (the verdict's first reason), with the
// outcome `weak_task` for a weak task. Callable from any thread a Scorer allows.
//
//   auto scorer = scoring::Scorer::Open(config);        // the suite the tasks were written to
//   auto rejected = RejectedSolutions(**scorer, tasks);  // task id -> why; absent: verified
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "data/synth.h"
#include "scoring/score_batch.h"

namespace tritonrl::data {

// Why `s` does not stand as a verified sample; empty if it does.
std::string RejectionOf(const scoring::ScoredSample& s);

// Scores `batch` (one call: resumed from the scorer's store if this batch was scored before)
// and returns sample id -> RejectionOf for each sample (ids must be unique across tasks).
// The callbacks' on_note also receives one line on the resumed and cached verdicts.
Result<std::map<std::string, std::string>> Judge(scoring::Scorer& scorer,
                                                 const std::vector<scoring::Sample>& batch,
                                                 const scoring::Callbacks& callbacks = {});

// Each task's solution, as bare code, under the sample id of the task's own id.
std::vector<scoring::Sample> SolutionSamples(const std::vector<SynthTask>& tasks);

// Task id -> why the task's solution is rejected, for the tasks whose solution is not
// verified (the scorer's suite must hold the tasks).
Result<std::map<std::string, std::string>> RejectedSolutions(
    scoring::Scorer& scorer, const std::vector<SynthTask>& tasks,
    const scoring::Callbacks& callbacks = {});

}  // namespace tritonrl::data
