#include "train/sft.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "model/qwen3.h"
#include "train/distributed.h"
#include "train/run_util.h"
#include "train/sft_data.h"
#include "train/trainer.h"

namespace tritonrl::train {

// The trajectory options' JSON (TrajectoryOptions): one list of fields for both directions.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SftOptions, model, epochs, max_steps, max_tokens, batch_tokens,
                                   grad_accum, lr, min_lr_ratio, warmup, weight_decay, beta1, beta2,
                                   adam_eps, clip, seed, small_vocab, checkpoint_layers, lora_r,
                                   lora_alpha, lora_dropout, lora_targets);

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
// The options that shape the trajectory: stored in the checkpoint, and taken
// from it on resume (so a resumed run is the same run); SftOptions' JSON, above.
json TrajectoryOptions(const SftOptions& o) {
  return o;
}

// A checkpoint written before an option existed resumes with its default (LoRA off).
void ApplyTrajectoryOptions(const json& j, SftOptions& o) {
  json full = TrajectoryOptions(SftOptions{});
  full.update(j);
  full.get_to(o);
}

// builtin:small and builtin:mini learn their BPE from the training texts (prompts as the policy
// sees them).
Result<StartModel> LoadSftStartModel(const SftOptions& o, const std::vector<SftRecord>& records,
                                     const model::ChatTemplate& chat, c10::Device device,
                                     c10::ScalarType compute, const model::LoraConfig& lora) {
  std::vector<std::string> texts;
  if (o.model == "builtin:small" || o.model == "builtin:mini") {
    for (const SftRecord& r : records) {
      auto prompt = SftPromptText(chat, r.prompt);
      if (!prompt.ok()) return prompt.status();
      texts.push_back(std::move(prompt.value()));
      texts.push_back(r.completion);
    }
  }
  return LoadStartModel(o.model, o.seed, o.small_vocab, texts, device, compute, lora);
}

// Micro-batches of all epochs, in order, computed once (cheap: host only).
struct Schedule {
  std::vector<std::vector<std::vector<int32_t>>> epochs;
  const std::vector<int32_t>& At(int64_t epoch, int64_t index) const {
    return epochs[epoch][index];
  }
};

// The held-out loss through the training loss's kernels (with --loss-chunk, no
// [N, vocab] fp32 logits here either).
double EvalLoss(const Trainable& t, const std::vector<SftExample>& ex,
                const std::vector<std::vector<int32_t>>& plan, c10::Device device,
                const LossKernels& kernels) {
  at::NoGradGuard no_grad;
  model::Qwen3Model view = ComputeView(t);
  LossKernels k = kernels;
  k.lora_dropout = false;  // held-out loss: no dropout
  double sum = 0;
  int64_t n = 0;
  for (const auto& mb : plan) {
    std::vector<std::vector<int32_t>> rows;
    std::vector<int64_t> from;
    for (int32_t i : mb) {
      rows.push_back(ex[i].ids);
      from.push_back(ex[i].prompt_tokens);
    }
    TokenBatch b = MakeBatch(rows, from, device);
    sum +=
        HeadNllSum(ScoredHidden(view, b, k), view.lm_head, b.targets, k.loss_chunk).item<double>();
    n += b.targets.size(0);
  }
  return n ? sum / static_cast<double>(n) : 0.0;
}

// One SFT run's state between its phases: set-up, the step's micro-batches, the training step,
// log, held-out loss and save.
struct SftRun {
  SftOptions o;
  DistributedContext dist;
  c10::Device device = c10::kCPU;
  c10::ScalarType compute = at::kFloat;
  StartModel m;
  model::ChatTemplate chat;  // the prompts' format: the model's (or checkpoint's) own template
  model::LoraConfig lora;
  int64_t max_tokens = 0;
  TokenizeStats ts;
  std::vector<SftExample> examples, eval_examples;
  std::vector<std::vector<int32_t>> eval_plan;
  std::vector<int64_t> lengths;
  Schedule sched;
  int64_t total_steps = 0;
  AdamWState adam;
  AdamWOptions ao;
  LossKernels kernels;
  int64_t step = 0, epoch = 0, index = 0;
  double best_eval_loss = std::numeric_limits<double>::infinity();  // --keep-best
  int64_t best_step = 0;
  std::ofstream metrics;  // rank 0 only
  std::string ckpt_dir, best_dir, data_hash;

  void Log(const json& j) {
    if (dist.is_root()) metrics << j.dump() << "\n" << std::flush;
  }
};

// ---- Set-up.

// The device (a data-parallel rank takes its local GPU unless told one) and, on resume, the
// checkpoint, whose trajectory options replace the given ones.
Status PlaceAndResume(SftRun& run, ResumePoint& rp) {
  auto dist_ctx = DistributedFromEnv();
  if (!dist_ctx.ok()) return dist_ctx.status();
  run.dist = std::move(dist_ctx.value());
  auto placed = ResolveDeviceAndDType(run.o.device, run.o.dtype);
  if (!placed.ok()) return placed.status();
  if (run.dist.active() && placed->first.is_cuda() && !placed->first.has_index()) {
    placed->first = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(run.dist.local_rank));
  }
  run.device = placed->first;
  run.compute = placed->second;
  auto loaded = LoadResumePoint(run.o.resume, run.device, run.compute, "sft",
                                [&](const json& j) { ApplyTrajectoryOptions(j, run.o); });
  if (!loaded.ok()) return loaded.status();
  rp = std::move(loaded.value());
  const SftOptions& o = run.o;
  if (o.grad_accum < 1 || o.batch_tokens < 2 || o.max_tokens < 2) {
    return Status::InvalidArgument("grad_accum, batch_tokens and max_tokens must be positive");
  }
  if (o.keep_best && o.eval_data.empty()) {
    return Status::InvalidArgument("--keep-best needs --eval-data (the held-out loss it keeps by)");
  }
  auto lora = LoraConfigFromFlags(o.lora_r, o.lora_alpha, o.lora_dropout, o.lora_targets);
  if (!lora.ok()) return lora.status();
  run.lora = *lora;
  return Status::Ok();
}

// The records, the model (from the checkpoint or the start model; rank 0's weights broadcast),
// the training and held-out examples in tokens.
Status LoadModelAndData(SftRun& run, ResumePoint& rp) {
  const SftOptions& o = run.o;
  auto records = ReadSftJsonl(o.data);
  if (!records.ok()) return records.status();
  auto data_hash = HashOfFile(o.data);
  if (!data_hash.ok()) return data_hash.status();
  run.data_hash = *data_hash;
  if (rp.ckpt && rp.state.value("data_sha256", "") != run.data_hash) {
    return Status::FailedPrecondition(o.resume + ": checkpoint was trained on other data than " +
                                      o.data + " (data hash differs); cannot resume exactly");
  }
  // A checkpoint carries its start model's template (or tritonrl's own), so a resumed run
  // renders the prompts it was trained on.
  auto chat = model::LoadChatTemplate(rp.ckpt ? o.resume : o.model);
  if (!chat.ok()) return chat.status();
  run.chat = std::move(chat.value());
  if (rp.ckpt) {
    run.m.trainable = std::move(rp.ckpt->trainable);
    run.m.tokenizer = std::move(rp.ckpt->tokenizer);
    run.m.end_of_turn = std::move(rp.ckpt->end_of_turn);
    run.m.carried_files = std::move(rp.ckpt->carried_files);
  } else {
    auto start = LoadSftStartModel(o, *records, run.chat, run.device, run.compute, run.lora);
    if (!start.ok()) return start.status();
    run.m = std::move(start.value());
    run.lora = run.m.trainable.master.lora;  // an adapter as --model brings its own
    TRITONRL_RETURN_IF_ERROR(SettleStartLora(run.m, run.o, run.dist.is_root()));
  }
  if (run.dist.active()) {
    // Every rank built or loaded the same weights; rank 0's are the truth.
    std::vector<at::Tensor> weights;
    for (const Param& p : run.m.trainable.params) weights.push_back(p.value);
    TRITONRL_RETURN_IF_ERROR(Broadcast(run.dist, weights));
  }
  run.max_tokens = std::min(o.max_tokens, run.m.trainable.master.max_positions());
  auto examples = TokenizeSft(run.m.tokenizer, run.chat, run.m.end_of_turn.id, *records,
                              run.max_tokens, &run.ts);
  if (!examples.ok()) return Status::InvalidArgument(o.data + ": " + examples.status().message());
  if (examples->empty()) {
    return Status::InvalidArgument(o.data + ": every prompt is longer than max_tokens " +
                                   std::to_string(run.max_tokens));
  }
  run.examples = std::move(examples.value());
  if (o.eval_data.empty()) return Status::Ok();
  auto er = ReadSftJsonl(o.eval_data);
  if (!er.ok()) return er.status();
  auto ee =
      TokenizeSft(run.m.tokenizer, run.chat, run.m.end_of_turn.id, *er, run.max_tokens, nullptr);
  if (!ee.ok()) return Status::InvalidArgument(o.eval_data + ": " + ee.status().message());
  run.eval_examples = std::move(ee.value());
  std::vector<int64_t> lens;
  for (const auto& e : run.eval_examples) lens.push_back(static_cast<int64_t>(e.ids.size()));
  run.eval_plan = PlanEpoch(lens, 0, 0, o.batch_tokens, /*shuffle=*/false);
  return Status::Ok();
}

// The micro-batch schedule of every epoch, the optimizer, the loop's position on resume and the
// metrics log (rank 0's alone: the ranks hold the same weights).
Status PlanAndOpen(SftRun& run, ResumePoint& rp) {
  const SftOptions& o = run.o;
  for (const auto& e : run.examples) run.lengths.push_back(static_cast<int64_t>(e.ids.size()));
  int64_t total_micro = 0;
  for (int64_t e = 0; e < std::max<int64_t>(o.epochs, 1); ++e) {
    run.sched.epochs.push_back(PlanEpoch(run.lengths, o.seed, e, o.batch_tokens));
    total_micro += static_cast<int64_t>(run.sched.epochs.back().size());
  }
  run.total_steps = o.max_steps > 0 ? o.max_steps : (total_micro + o.grad_accum - 1) / o.grad_accum;
  run.adam = rp.ckpt ? std::move(rp.ckpt->adam) : InitAdamW(run.m.trainable);
  run.ao = AdamWOptions{o.beta1, o.beta2, o.adam_eps, o.weight_decay, o.fused_adamw};
  run.kernels.checkpoint_layers = o.checkpoint_layers;
  run.kernels.fused_norm = o.fused_norm;
  run.kernels.fused_proj = o.fused_proj;
  run.kernels.rope_roll = o.rope_roll;
  run.kernels.loss_chunk = o.loss_chunk;
  run.kernels.lora_dropout = run.lora.enabled() && run.lora.dropout > 0;
  if (rp.ckpt) {
    run.step = rp.state.at("step");
    run.epoch = rp.state.at("epoch");
    run.index = rp.state.at("index");
    run.best_step = rp.state.value("best_step", int64_t{0});
    if (run.best_step > 0) run.best_eval_loss = rp.state.at("best_eval_loss");
  }
  run.ckpt_dir = (fs::path(o.out) / "checkpoint").string();
  run.best_dir = (fs::path(o.out) / "best").string();
  if (!run.dist.is_root()) return Status::Ok();
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) return Status::IoError(o.out + ": " + ec.message());
  // A resumed run keeps the lines up to its checkpoint and rewrites the rest.
  auto metrics_log =
      OpenMetricsLog((fs::path(o.out) / "metrics.jsonl").string(), rp.ckpt ? run.step : -1);
  if (!metrics_log.ok()) return metrics_log.status();
  run.metrics = std::move(*metrics_log);
  return Status::Ok();
}

Result<std::unique_ptr<SftRun>> SetUpSft(SftOptions o) {
  if (o.data.empty()) return Status::InvalidArgument("--data is required");
  if (o.out.empty()) return Status::InvalidArgument("--out is required");
  TRITONRL_RETURN_IF_ERROR(CheckSaveDtype(o.save_dtype, o.lora_r, o.model, o.resume));
  auto run = std::make_unique<SftRun>();
  run->o = std::move(o);
  ResumePoint rp;
  TRITONRL_RETURN_IF_ERROR(PlaceAndResume(*run, rp));
  TRITONRL_RETURN_IF_ERROR(LoadModelAndData(*run, rp));
  TRITONRL_RETURN_IF_ERROR(PlanAndOpen(*run, rp));
  return run;
}

// ---- One step.

// The step's micro-batches (the data cycles when max_steps asks for more); empty at the end.
std::vector<const std::vector<int32_t>*> NextMicroBatches(SftRun& run) {
  std::vector<const std::vector<int32_t>*> micro;
  while (static_cast<int64_t>(micro.size()) < run.o.grad_accum) {
    if (run.epoch >= static_cast<int64_t>(run.sched.epochs.size())) {
      if (run.o.max_steps <= 0) break;
      run.sched.epochs.push_back(PlanEpoch(run.lengths, run.o.seed, run.epoch, run.o.batch_tokens));
    }
    if (run.index >= static_cast<int64_t>(run.sched.epochs[run.epoch].size())) {
      ++run.epoch;
      run.index = 0;
      continue;
    }
    micro.push_back(&run.sched.At(run.epoch, run.index++));
  }
  return micro;
}

// Where a step's time goes (--phase-timing): the device is synchronised at each mark, so each
// phase's own kernels are in its time.
struct PhaseClock {
  bool on = false;
  c10::Device device = c10::kCPU;
  std::map<std::string, double> ms;
  Clock::time_point t = Clock::now();
  void Mark(const char* name) {
    if (!on) return;
    if (device.is_cuda()) (void)at::zeros({1}, at::TensorOptions().device(device)).item<float>();
    const auto now = Clock::now();
    ms[name] += std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
  }
};

struct SftStepResult {
  double loss = 0, grad_norm = 0, lr = 0;
  int64_t tokens = 0, loss_tokens = 0;
  std::map<std::string, double> phase_ms;
};

// Forward and backward over this rank's share of the micro-batches, the all-reduce, the clip
// and one AdamW step.
Result<SftStepResult> TrainStep(SftRun& run,
                                const std::vector<const std::vector<int32_t>*>& micro) {
  SftStepResult r;
  Trainable& t = run.m.trainable;
  for (const auto* mb : micro) {
    for (int32_t i : *mb) r.loss_tokens += run.examples[i].loss_tokens();
  }
  PhaseClock clock{run.o.phase_timing, run.device};
  for (const Param& p : t.params) p.value.mutable_grad().reset();
  at::Tensor loss_sum = at::zeros({}, at::TensorOptions().dtype(at::kFloat).device(run.device));
  // Rank r runs the step's micro-batches r, r + world, ...; each scales its loss by the whole
  // step's loss_tokens, so the ranks' gradients sum to the gradient of one rank running them all.
  for (size_t k = 0; k < micro.size(); ++k) {
    if (static_cast<int64_t>(k) % run.dist.world != run.dist.rank) continue;
    std::vector<std::vector<int32_t>> rows;
    std::vector<int64_t> from;
    for (int32_t i : *micro[k]) {
      rows.push_back(run.examples[i].ids);
      from.push_back(run.examples[i].prompt_tokens);
    }
    TokenBatch b = MakeBatch(rows, from, run.device);
    r.tokens += b.real_tokens;
    // LoRA dropout draws from the default generator, seeded per (seed, step, micro-batch): a
    // resumed run draws the same masks.
    if (run.kernels.lora_dropout) {
      at::manual_seed(run.o.seed * 1000003ULL + static_cast<uint64_t>(run.step) * 1009ULL + k);
    }
    clock.Mark("batch");
    model::Qwen3Model view = ComputeView(t);
    at::Tensor hidden = ScoredHidden(view, b, run.kernels);
    clock.Mark("forward");
    at::Tensor loss = HeadNllSum(hidden, view.lm_head, b.targets, run.kernels.loss_chunk) /
                      static_cast<double>(r.loss_tokens);
    clock.Mark("head");
    // The hook runs once the head's gradient reaches the layers: the backward pass splits into
    // the head's part and the layers' part.
    if (clock.on && hidden.requires_grad()) {
      hidden.register_hook([&](const at::Tensor&) { clock.Mark("head_backward"); });
    }
    loss.backward();
    loss_sum += loss.detach();
    clock.Mark("backward");
  }
  if (run.dist.active()) {
    TRITONRL_RETURN_IF_ERROR(AllReduceGradients(run.dist, t));
    at::Tensor totals = at::stack(
        {loss_sum.to(at::kCPU, at::kDouble),
         at::scalar_tensor(static_cast<double>(r.tokens), at::TensorOptions().dtype(at::kDouble))});
    TRITONRL_RETURN_IF_ERROR(AllReduceSum(run.dist, {totals}));
    loss_sum = totals[0].to(loss_sum.device(), at::kFloat);
    r.tokens = static_cast<int64_t>(totals[1].item<double>());
    clock.Mark("allreduce");
  }
  // The fused path leaves the norm on the device until the step is done (no sync here).
  at::Tensor grad_norm_t;
  if (run.o.fused_adamw) {
    grad_norm_t = ClipGradNormForeach(t, run.o.clip);
  } else {
    r.grad_norm = ClipGradNorm(t, run.o.clip);
  }
  clock.Mark("clip");
  r.lr = CosineLr(run.step, run.o.warmup, run.total_steps, run.o.lr, run.o.min_lr_ratio);
  AdamWStep(t, run.adam, r.lr, run.ao);
  clock.Mark("optimizer");
  r.loss = loss_sum.item<double>();  // synchronises: the step is done
  if (grad_norm_t.defined()) r.grad_norm = grad_norm_t.item<double>();
  r.phase_ms = std::move(clock.ms);
  return r;
}

// ---- Held-out loss and save.

Status SaveSftCheckpoint(const SftRun& run, const std::string& dir) {
  json st = {{"trainer", "sft"},
             {"step", run.step},
             {"epoch", run.epoch},
             {"index", run.index},
             {"options", TrajectoryOptions(run.o)},
             {"data_sha256", run.data_hash},
             {"total_steps", run.total_steps},
             {"best_step", run.best_step},
             {"best_eval_loss", run.best_step > 0 ? json(run.best_eval_loss) : json(nullptr)}};
  return SaveTrainCheckpoint(dir, run.m.trainable, run.adam, run.m.tokenizer, run.m.end_of_turn,
                             st.dump(), run.m.carried_files);
}

// The held-out loss every --eval-every steps and at the end; under --keep-best a step that
// lowers it is saved to OUT/best (a Hugging Face checkpoint, like OUT/checkpoint).
Status EvaluateHeldOut(SftRun& run, bool last, SftSummary& summary) {
  const SftOptions& o = run.o;
  if (!run.dist.is_root() || run.eval_plan.empty()) return Status::Ok();
  if (!((o.eval_every > 0 && run.step % o.eval_every == 0) || last)) return Status::Ok();
  summary.eval_loss =
      EvalLoss(run.m.trainable, run.eval_examples, run.eval_plan, run.device, run.kernels);
  json line = {{"step", run.step}, {"eval_loss", summary.eval_loss}};
  if (o.keep_best && summary.eval_loss < run.best_eval_loss) {
    run.best_eval_loss = summary.eval_loss;
    run.best_step = run.step;
    TRITONRL_RETURN_IF_ERROR(SaveSftCheckpoint(run, run.best_dir));
    line["best"] = true;
  }
  run.Log(line);
  return Status::Ok();
}

// ---- The loop.

Result<SftSummary> RunSftImpl(SftOptions options) {
  auto set_up = SetUpSft(std::move(options));
  if (!set_up.ok()) return set_up.status();
  SftRun& run = **set_up;
  const SftOptions& o = run.o;
  SftSummary summary;
  summary.description = DescribeModel(run.m.trainable, run.device);
  if ((run.ts.truncated || run.ts.dropped) && run.dist.is_root()) {
    std::fprintf(stderr, "train sft: %lld sequences cut at %lld tokens, %lld records dropped\n",
                 static_cast<long long>(run.ts.truncated), static_cast<long long>(run.max_tokens),
                 static_cast<long long>(run.ts.dropped));
  }
  Progress bar(o.progress && run.dist.is_root());
  const auto t0 = Clock::now();
  int64_t tokens_done = 0;
  double train_s = 0;  // steps only: held-out loss and checkpoint writes are not training
  const int64_t first_step = run.step;
  while (run.step < run.total_steps) {
    const auto micro = NextMicroBatches(run);
    if (micro.empty()) break;
    const auto ts0 = Clock::now();
    auto r = TrainStep(run, micro);
    if (!r.ok()) return r.status();
    ++run.step;
    const double step_s = Since(ts0);
    tokens_done += r->tokens;
    train_s += step_s;
    if (run.step == first_step + 1) summary.first_loss = r->loss;
    summary.last_loss = r->loss;
    json line = {{"step", run.step},
                 {"epoch", run.epoch},
                 {"loss", r->loss},
                 {"lr", r->lr},
                 {"grad_norm", r->grad_norm},
                 {"tokens", r->tokens},
                 {"loss_tokens", r->loss_tokens},
                 {"tokens_per_s", r->tokens / std::max(step_s, 1e-9)},
                 {"elapsed_s", Since(t0)}};
    if (o.phase_timing) line["phase_ms"] = r->phase_ms;
    run.Log(line);
    const double eta =
        (run.total_steps - run.step) * Since(t0) / static_cast<double>(run.step - first_step);
    char stats[96];
    std::snprintf(stats, sizeof stats, "loss %.4f %.0f tok/s", r->loss,
                  tokens_done / std::max(train_s, 1e-9));
    bar.Update(run.step, run.total_steps, stats, eta);
    const bool last = run.step == run.total_steps || run.step == o.stop_after;
    TRITONRL_RETURN_IF_ERROR(EvaluateHeldOut(run, last, summary));
    if (run.dist.is_root() && o.save &&
        (last || (o.save_every > 0 && run.step % o.save_every == 0))) {
      TRITONRL_RETURN_IF_ERROR(SaveSftCheckpoint(run, run.ckpt_dir));
      TRITONRL_RETURN_IF_ERROR(SaveServedCopy(o.save_dtype, o.out, run.m));
      summary.checkpoint = run.ckpt_dir;
    }
    if (run.step == o.stop_after) break;
  }
  summary.steps = run.step;
  summary.tokens_per_second = tokens_done / std::max(train_s, 1e-9);
  if (run.best_step > 0) {
    summary.best_step = run.best_step;
    summary.best_eval_loss = run.best_eval_loss;
    summary.best_checkpoint = run.best_dir;
  }
  return summary;
}

}  // namespace

Result<SftSummary> RunSft(const SftOptions& options) {
  try {
    return RunSftImpl(options);
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("training failed: ") + e.what_without_backtrace());
  } catch (const json::exception& e) {
    return Status::Corruption(std::string("training state: ") + e.what());
  }
}

}  // namespace tritonrl::train
