// Internal to scoring: conversions between the engine's verdict, the store's record and the
// public ScoredSample. Pure functions; any thread.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "eval/types.h"
#include "scoring/score_batch.h"
#include "store/store.h"
#include "verify/verify.h"

namespace tritonrl::scoring {

// The verdict of a sample the static verifier rejected (sv.valid is false).
eval::Verdict StaticVerdict(const verify::Verdict& sv);

// The verdict is the engine's for a task whose reference could not run (ToRecord then adds the
// flag vocab::flag::kReferenceFailed).
bool IsReferenceFailure(const eval::Verdict& v);

// The store's record of an engine verdict. Verdicts that depend on the harness or the host
// (infra failures, resource_exhausted) are stored but never served from the cache.
store::VerdictRecord ToRecord(const eval::Verdict& v, const store::SampleKey& key,
                              const std::string& cache_key, const std::string& device_model);

// The verdict JSON of a stored record (the full verdict is kept in evidence_json).
nlohmann::json RecordJson(const store::VerdictRecord& r);

// A cached record as an engine verdict of this run (from_cache set); Corruption naming the
// record if its outcome is not one of vocab's.
Result<eval::Verdict> CachedVerdict(const store::VerdictRecord& r, const std::string& device);

// The public form of a stored record; Corruption if its outcome is not one of vocab's.
Result<ScoredSample> FromRecord(const store::VerdictRecord& r);

// The public form of engine verdict `v` as ToRecord stored it in `r`: FromRecord(r) without
// printing the verdict into the record's text and parsing it back (Score's path for every
// verdict; the record is the store's alone).
Result<ScoredSample> Scored(const eval::Verdict& v, const store::VerdictRecord& r);

}  // namespace tritonrl::scoring
