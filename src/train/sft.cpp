#include "train/sft.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "model/qwen3.h"
#include "train/distributed.h"
#include "train/run_util.h"
#include "train/sft_data.h"
#include "train/trainer.h"

namespace tritonrl::train {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
// The options that shape the trajectory: stored in the checkpoint, and taken
// from it on resume (so a resumed run is the same run).
json TrajectoryOptions(const SftOptions& o) {
  return {{"model", o.model},
          {"epochs", o.epochs},
          {"max_steps", o.max_steps},
          {"max_tokens", o.max_tokens},
          {"batch_tokens", o.batch_tokens},
          {"grad_accum", o.grad_accum},
          {"lr", o.lr},
          {"min_lr_ratio", o.min_lr_ratio},
          {"warmup", o.warmup},
          {"weight_decay", o.weight_decay},
          {"beta1", o.beta1},
          {"beta2", o.beta2},
          {"adam_eps", o.adam_eps},
          {"clip", o.clip},
          {"seed", o.seed},
          {"small_vocab", o.small_vocab},
          {"checkpoint_layers", o.checkpoint_layers}};
}

void ApplyTrajectoryOptions(const json& j, SftOptions& o) {
  o.model = j.at("model").get<std::string>();
  o.epochs = j.at("epochs");
  o.max_steps = j.at("max_steps");
  o.max_tokens = j.at("max_tokens");
  o.batch_tokens = j.at("batch_tokens");
  o.grad_accum = j.at("grad_accum");
  o.lr = j.at("lr");
  o.min_lr_ratio = j.at("min_lr_ratio");
  o.warmup = j.at("warmup");
  o.weight_decay = j.at("weight_decay");
  o.beta1 = j.at("beta1");
  o.beta2 = j.at("beta2");
  o.adam_eps = j.at("adam_eps");
  o.clip = j.at("clip");
  o.seed = j.at("seed");
  o.small_vocab = j.at("small_vocab");
  o.checkpoint_layers = j.at("checkpoint_layers");
}

// builtin:small learns its BPE from the training texts (prompts as the policy sees them).
Result<StartModel> LoadSftStartModel(const SftOptions& o, const std::vector<SftRecord>& records,
                                     c10::Device device, c10::ScalarType compute) {
  std::vector<std::string> texts;
  if (o.model == "builtin:small") {
    for (const SftRecord& r : records) {
      texts.push_back(SftPromptText(r.prompt));
      texts.push_back(r.completion);
    }
  }
  return LoadStartModel(o.model, o.seed, o.small_vocab, texts, device, compute);
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
    sum += HeadNllSum(ScoredHidden(view, b, kernels), view.lm_head, b.targets, kernels.loss_chunk)
               .item<double>();
    n += b.targets.size(0);
  }
  return n ? sum / static_cast<double>(n) : 0.0;
}

Result<SftSummary> RunSftImpl(SftOptions o) {
  if (o.data.empty()) return Status::InvalidArgument("--data is required");
  if (o.out.empty()) return Status::InvalidArgument("--out is required");
  // Data parallel when started like torchrun (WORLD_SIZE > 1): see docs/distributed.md.
  auto dist_ctx = DistributedFromEnv();
  if (!dist_ctx.ok()) return dist_ctx.status();
  const DistributedContext& dist = *dist_ctx;
  auto placed = ResolveDeviceAndDType(o.device, o.dtype);
  if (!placed.ok()) return placed.status();
  // Data-parallel ranks on one host each take their own GPU unless told one.
  if (dist.active() && placed->first.is_cuda() && !placed->first.has_index()) {
    placed->first = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(dist.local_rank));
  }
  const c10::Device* device = &placed->first;
  const c10::ScalarType* compute = &placed->second;

  // Resume: the checkpoint fixes the model and the trajectory options.
  json resumed_state;
  std::optional<LoadedCheckpoint> ckpt;
  if (!o.resume.empty()) {
    auto c = LoadTrainCheckpoint(o.resume, *device, *compute);
    if (!c.ok()) return c.status();
    resumed_state = json::parse(c->state_json);
    try {
      ApplyTrajectoryOptions(resumed_state.at("options"), o);
    } catch (const json::exception& e) {
      return Status::Corruption(o.resume + "/trainer_state.json: bad options (" + e.what() + ")");
    }
    ckpt = std::move(c.value());
  }
  if (o.grad_accum < 1 || o.batch_tokens < 2 || o.max_tokens < 2) {
    return Status::InvalidArgument("grad_accum, batch_tokens and max_tokens must be positive");
  }

  auto records = ReadSftJsonl(o.data);
  if (!records.ok()) return records.status();
  auto data_hash = HashOfFile(o.data);
  if (!data_hash.ok()) return data_hash.status();
  if (ckpt) {
    const std::string want = resumed_state.value("data_fnv1a64", "");
    if (want != Hex64(*data_hash)) {
      return Status::FailedPrecondition(o.resume + ": checkpoint was trained on other data than " +
                                        o.data + " (data hash differs); cannot resume exactly");
    }
  }

  StartModel m;
  if (ckpt) {
    m.trainable = std::move(ckpt->trainable);
    m.tokenizer = std::move(ckpt->tokenizer);
  } else {
    auto start = LoadSftStartModel(o, *records, *device, *compute);
    if (!start.ok()) return start.status();
    m = std::move(start.value());
  }
  Trainable& t = m.trainable;
  if (dist.active()) {
    // Every rank built or loaded the same weights; rank 0's are the truth.
    std::vector<at::Tensor> weights;
    for (const Param& p : t.params) weights.push_back(p.value);
    TRITONRL_RETURN_IF_ERROR(Broadcast(dist, weights));
  }
  const int64_t max_tokens = std::min(o.max_tokens, t.master.max_positions());
  TokenizeStats ts;
  auto examples = TokenizeSft(m.tokenizer, *records, max_tokens, &ts);
  if (!examples.ok()) return Status::InvalidArgument(o.data + ": " + examples.status().message());
  if (examples->empty()) {
    return Status::InvalidArgument(o.data + ": every prompt is longer than max_tokens " +
                                   std::to_string(max_tokens));
  }
  std::vector<SftExample> eval_examples;
  std::vector<std::vector<int32_t>> eval_plan;
  if (!o.eval_data.empty()) {
    auto er = ReadSftJsonl(o.eval_data);
    if (!er.ok()) return er.status();
    auto ee = TokenizeSft(m.tokenizer, *er, max_tokens, nullptr);
    if (!ee.ok()) return Status::InvalidArgument(o.eval_data + ": " + ee.status().message());
    eval_examples = std::move(ee.value());
    std::vector<int64_t> lens;
    for (const auto& e : eval_examples) lens.push_back(static_cast<int64_t>(e.ids.size()));
    eval_plan = PlanEpoch(lens, 0, 0, o.batch_tokens, /*shuffle=*/false);
  }

  std::vector<int64_t> lengths;
  for (const auto& e : *examples) lengths.push_back(static_cast<int64_t>(e.ids.size()));
  Schedule sched;
  int64_t total_micro = 0;
  const int64_t n_epochs = std::max<int64_t>(o.epochs, 1);
  for (int64_t e = 0; e < n_epochs; ++e) {
    sched.epochs.push_back(PlanEpoch(lengths, o.seed, e, o.batch_tokens));
    total_micro += static_cast<int64_t>(sched.epochs.back().size());
  }
  const int64_t total_steps =
      o.max_steps > 0 ? o.max_steps : (total_micro + o.grad_accum - 1) / o.grad_accum;

  AdamWState adam = ckpt ? std::move(ckpt->adam) : InitAdamW(t);
  AdamWOptions ao{o.beta1, o.beta2, o.adam_eps, o.weight_decay, o.fused_adamw};
  LossKernels kernels;
  kernels.checkpoint_layers = o.checkpoint_layers;
  kernels.fused_norm = o.fused_norm;
  kernels.fused_proj = o.fused_proj;
  kernels.rope_roll = o.rope_roll;
  kernels.loss_chunk = o.loss_chunk;
  int64_t step = 0, epoch = 0, index = 0;
  if (ckpt) {
    step = resumed_state.at("step");
    epoch = resumed_state.at("epoch");
    index = resumed_state.at("index");
  }

  // Metrics and checkpoints are rank 0's alone (the ranks hold the same weights).
  std::ofstream metrics;
  if (dist.is_root()) {
    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec) return Status::IoError(o.out + ": " + ec.message());
    const std::string metrics_path = (fs::path(o.out) / "metrics.jsonl").string();
    // A resumed run keeps the lines up to its checkpoint and rewrites the rest.
    auto metrics_log = OpenMetricsLog(metrics_path, ckpt ? step : -1);
    if (!metrics_log.ok()) return metrics_log.status();
    metrics = std::move(*metrics_log);
  }
  auto log = [&](const json& j) {
    if (dist.is_root()) metrics << j.dump() << "\n" << std::flush;
  };

  const std::string ckpt_dir = (fs::path(o.out) / "checkpoint").string();
  const std::string data_hex = Hex64(*data_hash);
  auto save = [&]() -> Status {
    json st = {{"step", step},
               {"epoch", epoch},
               {"index", index},
               {"options", TrajectoryOptions(o)},
               {"data_fnv1a64", data_hex},
               {"total_steps", total_steps}};
    return SaveTrainCheckpoint(ckpt_dir, t, adam, m.tokenizer, st.dump());
  };

  SftSummary summary;
  summary.description = DescribeModel(t, *device);
  if ((ts.truncated || ts.dropped) && dist.is_root()) {
    std::fprintf(stderr, "train sft: %lld sequences cut at %lld tokens, %lld records dropped\n",
                 static_cast<long long>(ts.truncated), static_cast<long long>(max_tokens),
                 static_cast<long long>(ts.dropped));
  }
  Progress bar(o.progress && dist.is_root());
  const auto t0 = Clock::now();
  int64_t tokens_done = 0;
  double train_s = 0;  // steps only: held-out loss and checkpoint writes are not training
  const int64_t first_step = step;
  bool first = true;
  while (step < total_steps) {
    // This step's micro-batches (the data cycles when max_steps asks for more).
    std::vector<const std::vector<int32_t>*> micro;
    while (static_cast<int64_t>(micro.size()) < o.grad_accum) {
      if (epoch >= static_cast<int64_t>(sched.epochs.size())) {
        if (o.max_steps <= 0) break;
        sched.epochs.push_back(PlanEpoch(lengths, o.seed, epoch, o.batch_tokens));
      }
      if (index >= static_cast<int64_t>(sched.epochs[epoch].size())) {
        ++epoch;
        index = 0;
        continue;
      }
      micro.push_back(&sched.At(epoch, index++));
    }
    if (micro.empty()) break;
    int64_t loss_tokens = 0;
    for (const auto* mb : micro) {
      for (int32_t i : *mb) loss_tokens += (*examples)[i].loss_tokens();
    }
    const auto ts0 = Clock::now();
    // Where a step's time goes (--phase-timing): the device is synchronised at each mark, so
    // each phase's own kernels are in its time.
    std::map<std::string, double> phase_ms;
    auto phase_t = Clock::now();
    auto mark = [&](const char* name) {
      if (!o.phase_timing) return;
      if (device->is_cuda())
        (void)at::zeros({1}, at::TensorOptions().device(*device)).item<float>();
      const auto now = Clock::now();
      phase_ms[name] += std::chrono::duration<double, std::milli>(now - phase_t).count();
      phase_t = now;
    };
    for (const Param& p : t.params) p.value.mutable_grad().reset();
    at::Tensor loss_sum = at::zeros({}, at::TensorOptions().dtype(at::kFloat).device(*device));
    int64_t step_tokens = 0;
    // Rank r runs the step's micro-batches r, r + world, ...; each scales its
    // loss by the whole step's loss_tokens, so the ranks' gradients sum to
    // the gradient of one rank running them all.
    for (size_t k = 0; k < micro.size(); ++k) {
      if (static_cast<int64_t>(k) % dist.world != dist.rank) continue;
      const auto* mb = micro[k];
      std::vector<std::vector<int32_t>> rows;
      std::vector<int64_t> from;
      for (int32_t i : *mb) {
        rows.push_back((*examples)[i].ids);
        from.push_back((*examples)[i].prompt_tokens);
      }
      TokenBatch b = MakeBatch(rows, from, *device);
      step_tokens += b.real_tokens;
      mark("batch");
      model::Qwen3Model view = ComputeView(t);
      at::Tensor hidden = ScoredHidden(view, b, kernels);
      mark("forward");
      at::Tensor loss = HeadNllSum(hidden, view.lm_head, b.targets, kernels.loss_chunk) /
                        static_cast<double>(loss_tokens);
      mark("head");
      // The hook runs once the head's gradient reaches the layers: the backward
      // pass splits into the head's part and the layers' part.
      if (o.phase_timing && hidden.requires_grad()) {
        hidden.register_hook([&](const at::Tensor&) { mark("head_backward"); });
      }
      loss.backward();
      loss_sum += loss.detach();
      mark("backward");
    }
    if (dist.active()) {
      TRITONRL_RETURN_IF_ERROR(AllReduceGradients(dist, t));
      at::Tensor totals = at::stack({loss_sum.to(at::kCPU, at::kDouble),
                                     at::scalar_tensor(static_cast<double>(step_tokens),
                                                       at::TensorOptions().dtype(at::kDouble))});
      TRITONRL_RETURN_IF_ERROR(AllReduceSum(dist, {totals}));
      loss_sum = totals[0].to(loss_sum.device(), at::kFloat);
      step_tokens = static_cast<int64_t>(totals[1].item<double>());
      mark("allreduce");
    }
    // The fused path leaves the norm on the device until the step is done (no sync here).
    at::Tensor grad_norm_t;
    double grad_norm = 0;
    if (o.fused_adamw) {
      grad_norm_t = ClipGradNormForeach(t, o.clip);
    } else {
      grad_norm = ClipGradNorm(t, o.clip);
    }
    mark("clip");
    const double lr = CosineLr(step, o.warmup, total_steps, o.lr, o.min_lr_ratio);
    AdamWStep(t, adam, lr, ao);
    mark("optimizer");
    const double loss = loss_sum.item<double>();  // synchronises: the step is done
    if (grad_norm_t.defined()) grad_norm = grad_norm_t.item<double>();
    ++step;
    const double step_s = Since(ts0);
    tokens_done += step_tokens;
    train_s += step_s;
    const double tok_s = tokens_done / std::max(train_s, 1e-9);
    if (first) summary.first_loss = loss;
    first = false;
    summary.last_loss = loss;
    nlohmann::json line = {{"step", step},
                           {"epoch", epoch},
                           {"loss", loss},
                           {"lr", lr},
                           {"grad_norm", grad_norm},
                           {"tokens", step_tokens},
                           {"loss_tokens", loss_tokens},
                           {"tokens_per_s", step_tokens / std::max(step_s, 1e-9)},
                           {"elapsed_s", Since(t0)}};
    if (o.phase_timing) line["phase_ms"] = phase_ms;
    log(line);
    const double eta = (total_steps - step) * Since(t0) / static_cast<double>(step - first_step);
    char stats[96];
    std::snprintf(stats, sizeof stats, "loss %.4f %.0f tok/s", loss, tok_s);
    bar.Update(step, total_steps, stats, eta);
    const bool last = step == total_steps || step == o.stop_after;
    if (dist.is_root() && !eval_plan.empty() &&
        ((o.eval_every > 0 && step % o.eval_every == 0) || last)) {
      summary.eval_loss = EvalLoss(t, eval_examples, eval_plan, *device, kernels);
      log({{"step", step}, {"eval_loss", summary.eval_loss}});
    }
    if (dist.is_root() && o.save && (last || (o.save_every > 0 && step % o.save_every == 0))) {
      TRITONRL_RETURN_IF_ERROR(save());
      summary.checkpoint = ckpt_dir;
    }
    if (step == o.stop_after) break;
  }
  summary.steps = step;
  summary.tokens_per_second = tokens_done / std::max(train_s, 1e-9);
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
