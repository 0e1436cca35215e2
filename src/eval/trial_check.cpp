#include "eval/trial_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "eval/json_get.h"
#include "eval/proof_of_work.h"

namespace tritonrl::eval {
using nlohmann::json;

Result<SliceCursor> SliceCursor::FromTrialHeader(const json& header) {
  SliceCursor c;
  auto outs = header.find("outputs");
  if (outs != header.end() && outs->is_array()) {
    for (const auto& d : *outs) {
      std::int64_t n = 0;
      if (d.is_object() && GetBool(d, "type_ok", false)) {
        const auto nbytes = GetInt(d, "nbytes");
        if (!nbytes || *nbytes < 0 || *nbytes > kMaxOutputBytes)
          return Status::ParseError(
              fmt::format("output {} declares no byte count in [0, 2^40]", c.nbytes_.size()));
        n = *nbytes;
      }
      c.nbytes_.push_back(n);
    }
  }
  c.SkipEmpty();
  return c;
}

void SliceCursor::SkipEmpty() {
  while (output_ < nbytes_.size() && offset_ >= nbytes_[output_]) {
    ++output_;
    offset_ = 0;
  }
}

Result<SliceCursor::Position> SliceCursor::Next(const json& header, std::size_t payload_size) {
  if (done()) return Status::ParseError("a slice after the trial's last output byte");
  const auto output = GetInt(header, "output");
  const auto offset = GetInt(header, "offset");
  if (!output || *output != static_cast<std::int64_t>(output_) || !offset || *offset != offset_)
    return Status::ParseError(
        fmt::format("slice out of order (expected output {} at byte {})", output_, offset_));
  const std::int64_t left = nbytes_[output_] - offset_;
  const auto size = static_cast<std::int64_t>(payload_size);
  if (size == 0 || size > left || (size < left && size % 8 != 0))
    return Status::ParseError(fmt::format(
        "slice of {} bytes at byte {} of output {} ({} bytes left; all but the last a multiple of "
        "8)",
        payload_size, offset_, output_, left));
  const Position at{output_, offset_};
  offset_ += size;
  SkipEmpty();
  return at;
}

Result<OutputRecord> ParseOutputDescription(const json& d) {
  OutputRecord o;
  const auto dtype = ParseDType(GetString(d, "dtype"));
  if (!dtype)
    return Status::ParseError(
        fmt::format("unsupported output dtype '{}'", Truncate(GetString(d, "dtype"), 40)));
  o.dtype = *dtype;
  auto shape_it = d.find("shape");
  if (shape_it == d.end() || !shape_it->is_array() || shape_it->size() > 16)
    return Status::ParseError("bad output shape");
  for (const auto& v : *shape_it) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      return Status::ParseError("bad output shape");
    o.shape.push_back(v.get<std::int64_t>());
  }
  o.device = GetString(d, "device");
  o.contiguous = GetBool(d, "contiguous", false);
  const auto nbytes = GetInt(d, "nbytes");
  const auto n = NumElements(o.shape);
  if (!nbytes || *nbytes < 0 || !n ||
      static_cast<std::uint64_t>(*nbytes) != static_cast<std::uint64_t>(*n) * DTypeSize(o.dtype)) {
    return Status::ParseError("output bytes do not match the declared shape and dtype");
  }
  o.nbytes = *nbytes;
  return o;
}

Status ReferenceRecorder::OnFrame(const Frame& f) {
  const std::string type = GetString(f.header, "type");
  if (type == "variants") {
    ref_.variants = GetStrings(f.header, "variants");
    ref_.tolerance.atol = GetDouble(f.header, "atol", 1e-4);
    ref_.tolerance.rtol = GetDouble(f.header, "rtol", 1e-4);
    ref_.tolerance.rel_l2 = GetBool(f.header, "rel_l2", true);
    ref_.dtype = GetString(f.header, "dtype");
    return Status::Ok();
  }
  if (type != "trial") return Status::Ok();
  TrialRecord t;
  t.variant = GetString(f.header, "variant");
  t.index = static_cast<int>(GetInt(f.header, "index").value_or(-1));
  t.seed = GetInt(f.header, "seed").value_or(0);
  t.input_sha256 = GetString(f.header, "input_sha256");
  t.input_bytes = std::max<std::int64_t>(0, GetInt(f.header, "input_bytes").value_or(0));
  // A null model counts only if it passed every trial (the secret one included).
  auto passed = GetStrings(f.header, "null_models_passed");
  std::sort(passed.begin(), passed.end());
  if (ref_.trials.empty()) {
    ref_.null_models_passed = std::move(passed);
  } else {
    std::vector<std::string> both;
    std::set_intersection(ref_.null_models_passed.begin(), ref_.null_models_passed.end(),
                          passed.begin(), passed.end(), std::back_inserter(both));
    ref_.null_models_passed = std::move(both);
  }
  auto outs = f.header.find("outputs");
  if (outs == f.header.end() || !outs->is_array() || outs->empty())
    return Status::FailedPrecondition("the reference returned no tensor output");
  // The outputs' slices follow in order, so each output's bytes start where the previous ends.
  std::int64_t at = spill_->size(), total = 0;
  for (const auto& d : *outs) {
    auto o = ParseOutputDescription(d);
    if (!GetBool(d, "type_ok", false) || !o.ok())
      return Status::FailedPrecondition("unusable reference output");
    o->spill_offset = at;
    at += o->nbytes;
    total += o->nbytes;
    t.outputs.push_back(std::move(*o));
  }
  ref_.max_input_bytes = std::max(ref_.max_input_bytes, t.input_bytes);
  ref_.peak_device_bytes = std::max<std::int64_t>(
      ref_.peak_device_bytes, GetInt(f.header, "peak_device_bytes").value_or(0));
  ref_.max_output_bytes = std::max(ref_.max_output_bytes, total);
  ref_.trials.push_back(std::move(t));
  if (on_device_peak_ && ref_.peak_device_bytes > 0) on_device_peak_(ref_.peak_device_bytes);
  return Status::Ok();
}

Status ReferenceRecorder::OnSlice(std::size_t output, std::int64_t offset, std::string_view bytes) {
  if (ref_.trials.empty() || output >= ref_.trials.back().outputs.size() ||
      ref_.trials.back().outputs[output].spill_offset + offset != spill_->size())
    return Status::Internal("reference slice out of place");
  return spill_->Append(bytes);
}

void CandidateChecker::Fail(const std::string& code, std::string msg) {
  if (!check_.failures.count(code))
    check_.failures[code] = Reason{"correctness", code, std::move(msg)};
}

void CandidateChecker::FailProofOfWork(const std::string& code, std::string msg) {
  check_.proof_of_work.insert(code);
  Fail(code, std::move(msg));
}

// The import and each constructor may allocate, initialise randomly and move data
// (hooks.CONSTRUCTOR_OPS), not compute.
void CandidateChecker::FailOutsideConstructorOps(const std::vector<std::string>& ops,
                                                 const std::string& while_what) {
  if (ops.empty()) return;
  for (const auto& op : ops) check_.forbidden.insert(Truncate(op, 80));
  FailProofOfWork("forbidden_aten_op",
                  fmt::format("ATen compute ops ran while {} (an import or a constructor may "
                              "allocate, initialise randomly and move data): {}",
                              while_what, fmt::join(ops, ", ")));
}

Status CandidateChecker::OnFrame(const Frame& f) {
  const json& h = f.header;
  const std::string type = GetString(h, "type");
  if (type == "stage" && GetString(h, "stage") == "import") {
    check_.imported = true;
    const auto inherits = GetStrings(h, "inherits_reference");
    if (!inherits.empty())
      FailProofOfWork("inherits_reference",
                      fmt::format("ModelNew derives from the task's {}", inherits[0]));
    for (auto& g : CheckStageHostSteps(h, "import")) FailProofOfWork(g.code, std::move(g.message));
    FailOutsideConstructorOps(GetStrings(h, "forbidden_ops"), "the candidate's file was imported");
  } else if (type == "stage" && GetString(h, "stage") == "build") {
    FailOutsideConstructorOps(GetStrings(h, "forbidden_ops"),
                              "ModelNew was built (variant " + GetString(h, "variant") + ")");
    // The held-tensor rule (docs/eval.md): what the import or the constructor left held beyond
    // the task Model's own tensors (one storage of another size, or more bytes in all) is a
    // table computed outside forward.
    for (auto& g : CheckStageHostSteps(h, GetString(h, "variant") + " constructor"))
      FailProofOfWork(g.code, std::move(g.message));
    const auto held = GetStrings(h, "held_tables");
    if (!held.empty()) {
      FailProofOfWork("constructor_table",
                      fmt::format("{}: the candidate's import or constructor left more held "
                                  "than the task's Model holds (a table made outside forward): {}",
                                  GetString(h, "variant"), fmt::join(held, "; ")));
    }
  } else if (type == "variants") {
    if (GetStrings(h, "variants") != ref_.variants)
      Fail("protocol_violation", "variant list differs from the request");
  } else if (type == "trial") {
    OnTrialHeader(h);
  }
  return Status::Ok();
}

// Proof of work, inputs and output descriptions of one trial; the output bytes follow as slices.
void CandidateChecker::OnTrialHeader(const json& h) {
  outputs_.clear();
  if (ref_at_ >= ref_.trials.size()) {
    Fail("protocol_violation", "more trials than requested");
    return;
  }
  auto& [own_kernels, other_kernels, aten_ops, forbidden, modes, max_abs, max_rel, max_margin,
         min_launches, trials_checked, imported, failures, guards, proof_of_work] = check_;
  const TrialRecord& rt = ref_.trials[ref_at_++];
  where_ = fmt::format("{} trial {}", rt.variant, rt.index);
  const std::string& where = where_;
  ++trials_checked;
  if (GetString(h, "variant") != rt.variant || GetInt(h, "index").value_or(-1) != rt.index ||
      GetInt(h, "seed").value_or(-1) != rt.seed) {
    Fail("protocol_violation", fmt::format("{}: trial frame out of order", where));
    return;
  }
  const TrialSpec& spec = cfg_.schedule[static_cast<std::size_t>(rt.index)];
  modes.insert(fmt::format("{}/{}", spec.train ? "train" : "eval", spec.grad ? "grad" : "no_grad"));
  if (GetString(h, "input_sha256") != rt.input_sha256) {
    Fail("inputs_differ", fmt::format("{}: the candidate's process saw different inputs than the "
                                      "reference's (task module altered?)",
                                      where));
  }
  if (GetString(h, "input_sha256_after") != GetString(h, "input_sha256")) {
    FailProofOfWork("input_mutated", fmt::format("{}: forward changed its inputs", where));
  }
  if (!GetBool(h, "hooks_intact", false))
    FailProofOfWork(
        "hooks_tampered",
        fmt::format("{}: the launch hook or the ATen audit was removed or replaced", where));
  if (GetBool(h, "global_state_changed", true))
    FailProofOfWork("global_state_changed",
                    fmt::format("{}: forward changed process-wide torch settings", where));
  // Each entry: [kernel name, defined in the candidate's file, launches] (the count may be left
  // out: one launch). Counted per kernel: a call may launch hundreds of thousands of times.
  std::int64_t own = 0;
  auto launches = h.find("launches");
  if (launches != h.end() && launches->is_array()) {
    for (const auto& l : *launches) {
      if (!l.is_array() || (l.size() != 2 && l.size() != 3) || !l[0].is_string() ||
          !l[1].is_boolean())
        continue;
      std::int64_t n = 1;
      if (l.size() == 3) {
        if (!l[2].is_number_integer() || l[2].get<std::int64_t>() < 1) continue;
        n = std::min<std::int64_t>(l[2].get<std::int64_t>(), std::numeric_limits<int>::max());
      }
      const std::string name = Truncate(l[0].get<std::string>(), 100);
      if (l[1].get<bool>()) {
        own = std::min<std::int64_t>(own + n, std::numeric_limits<int>::max());
        own_kernels.insert(name);
      } else {
        other_kernels.insert(name);
      }
    }
  }
  min_launches =
      min_launches < 0 ? static_cast<int>(own) : std::min(min_launches, static_cast<int>(own));
  if (own == 0) {
    FailProofOfWork(
        "no_triton_launch",
        fmt::format("{} ({}): no kernel defined in the candidate file ran during forward{}", where,
                    *modes.rbegin(),
                    other_kernels.empty()
                        ? ""
                        : fmt::format(" (other kernels: {})", fmt::join(other_kernels, ", "))));
  }
  if (GetBool(h, "compiled_path", false) && GetInt(h, "c_launches").value_or(0) < 1) {
    FailProofOfWork("no_triton_launch",
                    fmt::format("{}: Triton's launcher hook saw no launch", where));
  }
  for (const auto& op : GetStrings(h, "aten_ops")) aten_ops.insert(Truncate(op, 80));
  const auto bad_ops = GetStrings(h, "forbidden_ops");
  for (const auto& op : bad_ops) forbidden.insert(Truncate(op, 80));
  if (!bad_ops.empty()) {
    FailProofOfWork("forbidden_aten_op",
                    fmt::format("{}: ATen compute ops outside the allowlist ran during forward: {}",
                                where, fmt::join(bad_ops, ", ")));
  }
  for (auto& g : CheckGuards(h, where, &guards)) FailProofOfWork(g.code, std::move(g.message));
  if (!GetString(h, "outputs_error").empty()) {
    Fail("output_structure",
         fmt::format("{}: {}", where, Truncate(GetString(h, "outputs_error"), 200)));
    return;
  }
  auto outs = h.find("outputs");
  if (outs == h.end() || !outs->is_array() || outs->size() != rt.outputs.size()) {
    Fail("output_count",
         fmt::format("{}: {} outputs, expected {}", where,
                     outs != h.end() && outs->is_array() ? outs->size() : 0, rt.outputs.size()));
    return;
  }
  outputs_.resize(rt.outputs.size());
  for (std::size_t i = 0; i < rt.outputs.size(); ++i) {
    const json& d = (*outs)[i];
    const OutputRecord& r = rt.outputs[i];
    if (!d.is_object() || !GetBool(d, "type_ok", false)) {
      Fail("output_type", fmt::format("{}: output {} is a {}, not exactly torch.Tensor", where, i,
                                      d.is_object() ? Truncate(GetString(d, "type"), 80) : "?"));
      continue;
    }
    if (GetBool(d, "alias", true)) {
      FailProofOfWork("output_aliases_input",
                      fmt::format("{}: output {} shares storage with an input", where, i));
    }
    auto o = ParseOutputDescription(d);
    if (!o.ok()) {
      Fail("protocol_violation", fmt::format("{}: output {}: {}", where, i, o.status().message()));
      continue;
    }
    if (o->device != r.device) {
      Fail("output_device", fmt::format("{}: output {} on {}, expected {}", where, i,
                                        Truncate(o->device, 20), r.device));
    }
    if (r.contiguous && !o->contiguous) {
      // A transposed or permuted view of what a kernel wrote: the order the worker reads it in
      // is made by its .contiguous(), torch's data movement after the call, not by a kernel.
      FailProofOfWork("output_not_from_kernel",
                      fmt::format("{}: output {} is a view whose elements are not in row-major "
                                  "order in its storage, where the reference's output is "
                                  "contiguous: the rearrangement would be the evaluator's, not a "
                                  "kernel's",
                                  where, i));
    }
    outputs_[i].compare.emplace(o->dtype, o->shape, r.dtype, r.shape, ref_.tolerance);
    outputs_[i].ref_offset = r.spill_offset;
  }
}

Status CandidateChecker::OnSlice(std::size_t output, std::int64_t offset, std::string_view bytes) {
  if (output >= outputs_.size()) return Status::Ok();  // the trial already failed its outputs
  OutputInProgress& o = outputs_[output];
  if (!o.compare || o.compare->failed()) return Status::Ok();
  // Same dtype and shape as the reference's (else compare has failed): the bytes exist there.
  if (Status s = ref_.spill->ReadAt(o.ref_offset + offset, bytes.size(), ref_bytes_); !s.ok())
    return s;
  o.compare->Feed(bytes, ref_bytes_);
  return Status::Ok();
}

Status CandidateChecker::OnTrialEnd() {
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (!outputs_[i].compare) continue;
    const CompareResult cmp = outputs_[i].compare->Finish();
    if (std::isfinite(cmp.max_abs_err)) check_.max_abs = std::max(check_.max_abs, cmp.max_abs_err);
    if (std::isfinite(cmp.rel_l2)) check_.max_rel = std::max(check_.max_rel, cmp.rel_l2);
    if (std::isfinite(cmp.tolerance_margin))
      check_.max_margin = std::max(check_.max_margin, cmp.tolerance_margin);
    if (!cmp.ok) Fail(cmp.code, fmt::format("{}: output {}: {}", where_, i, cmp.message));
  }
  outputs_.clear();
  ref_bytes_.clear();
  ref_bytes_.shrink_to_fit();  // one slice's buffer is not kept between trials
  return Status::Ok();
}

bool OutputsMatched(const TrialCheck& check, std::size_t trials_expected) {
  if (check.trials_checked != static_cast<int>(trials_expected)) return false;
  for (const auto& [code, reason] : check.failures)
    if (check.proof_of_work.count(code) == 0) return false;
  return true;
}

}  // namespace tritonrl::eval
