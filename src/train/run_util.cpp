#include "train/run_util.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "base/sha256.h"
#include "model/bpe_trainer.h"
#include "model/lora.h"
#include "model/qwen3.h"
#include "train/sft_data.h"

namespace tritonrl::train {

namespace fs = std::filesystem;
using json = nlohmann::json;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string Duration(double s) {
  const long long t = static_cast<long long>(s + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

Progress::Progress(bool on) : on_(on), tty_(isatty(2)) {}

void Progress::Update(int64_t step, int64_t total, const std::string& stats, double eta) {
  if (!on_) return;
  const int width = 24;
  const int filled = total > 0 ? static_cast<int>(width * std::min(step, total) / total) : 0;
  std::string bar(filled, '=');
  if (filled < width) bar += '>' + std::string(width - filled - 1, ' ');
  char line[320];
  std::snprintf(line, sizeof line, "[%s] step %lld/%lld %s ETA %s", bar.c_str(),
                static_cast<long long>(step), static_cast<long long>(total), stats.c_str(),
                Duration(eta).c_str());
  if (tty_) {
    std::fprintf(stderr, "\r%s", line);
    if (step == total) std::fprintf(stderr, "\n");
  } else if (step == total || step % std::max<int64_t>(1, total / 10) == 0) {
    std::fprintf(stderr, "%s\n", line);
  }
}

Result<std::pair<c10::Device, c10::ScalarType>> ResolveDeviceAndDType(const std::string& dev,
                                                                      const std::string& dtype) {
  auto device = model::ParseDevice(dev.empty() ? (at::hasCUDA() ? "cuda" : "cpu") : dev);
  if (!device.ok()) return device.status();
  if (device->is_cuda() && !at::hasCUDA()) return Status::Unavailable("no CUDA device available");
  auto compute =
      model::ParseModelDType(dtype.empty() ? (device->is_cuda() ? "bf16" : "fp32") : dtype);
  if (!compute.ok()) return compute.status();
  return std::pair{*device, *compute};
}

namespace {

// The start model's weights and tokenizer, fp32 (a directory's base in `dtype`).
Result<StartModel> LoadStartWeights(const std::string& name, uint64_t seed, int32_t small_vocab,
                                    const std::vector<std::string>& bpe_texts, c10::Device device,
                                    c10::ScalarType dtype) {
  model::ModelOptions mo;
  mo.device = device;
  mo.dtype = at::kFloat;
  StartModel m;
  if (name == "builtin:tiny") {
    m.tokenizer = model::ByteFallbackTokenizer();
    m.trainable.master = model::RandomQwen3(model::TinyQwen3Config(), seed, mo);
    return m;
  }
  if (name == "builtin:small" || name == "builtin:mini") {
    model::BpeTrainOptions bo;
    bo.vocab_size = small_vocab;
    auto tok = model::TrainByteLevelBpe(bpe_texts, bo);
    if (!tok.ok()) return tok.status();
    m.tokenizer = std::move(tok.value());
    model::Qwen3Config c = name == "builtin:small"
                               ? model::SmallQwen3Config(m.tokenizer.vocab_size())
                               : model::MiniQwen3Config(m.tokenizer.vocab_size());
    // The config's eos is the end of turn, as builtin:tiny's is (<|im_end|>).
    auto eot = model::FindEndOfTurn(name, m.tokenizer);
    if (!eot.ok()) return eot.status();
    c.eos_token_id = eot->id;
    m.trainable.master = model::RandomQwen3(c, seed, mo);
    return m;
  }
  mo.dtype = dtype;
  auto loaded = model::LoadQwen3(name, mo);
  if (!loaded.ok()) return loaded.status();
  auto tok = model::LoadTokenizerFile((fs::path(name) / "tokenizer.json").string());
  if (!tok.ok()) return tok.status();
  m.tokenizer = std::move(tok.value());
  auto carried = model::ReadCarriedModelFiles(name);
  if (!carried.ok()) return carried.status();
  m.carried_files = std::move(carried.value());
  m.trainable.master = std::move(loaded.value());
  return m;
}

// An adapter directory continued (LoadStartModel): base + adapters as model::LoadQwen3 reads
// them, the base in the compute dtype.
Result<StartModel> LoadStartAdapter(const std::string& dir, c10::Device device,
                                    c10::ScalarType compute, const model::LoraConfig& flags) {
  auto adapter = model::ReadLoraAdapterConfig(dir);
  if (!adapter.ok()) return adapter.status();
  const model::LoraConfig& have = adapter->config;
  if (flags.enabled() && (flags.r != have.r || flags.alpha != have.alpha ||
                          LoraTargetsText(flags) != LoraTargetsText(have))) {
    return Status::InvalidArgument(
        dir + " is an adapter of r " + std::to_string(have.r) + ", alpha " +
        std::to_string(have.alpha) + ", targets " + LoraTargetsText(have) +
        ": --lora-r/--lora-alpha/--lora-targets must restate them or be left out");
  }
  model::ModelOptions mo;
  mo.device = device;
  mo.dtype = compute;  // the base stays frozen in the compute dtype; the adapters load as fp32
  auto loaded = model::LoadQwen3(dir, mo);
  if (!loaded.ok()) return loaded.status();
  StartModel m;
  auto tok = model::LoadTokenizerFile((fs::path(dir) / "tokenizer.json").string());
  if (!tok.ok()) return tok.status();
  m.tokenizer = std::move(tok.value());
  auto carried = model::ReadCarriedModelFiles(dir);
  if (!carried.ok()) return carried.status();
  m.carried_files = std::move(carried.value());
  // Dropout is this run's choice (GRPO trains without), not the adapter's earlier run's.
  loaded->lora.dropout = flags.dropout;
  m.trainable = MakeLoraTrainable(std::move(loaded.value()), compute, adapter->base_model);
  return m;
}

// LoRA's initial A is drawn from another stream than the builtin weights' (seed itself).
uint64_t LoraSeed(uint64_t seed) {
  return seed ^ 0x4c6f5241ULL;
}

// The start model's end of turn, from its own files (an adapter's from the adapter directory,
// whose tokenizer it is; the config's eos is the base's).
Status SettleEndOfTurn(StartModel& m, const std::string& name) {
  auto eot = model::FindEndOfTurn(name, m.tokenizer, m.trainable.master.config.eos_token_id);
  if (!eot.ok()) return eot.status();
  m.end_of_turn = std::move(eot.value());
  return Status::Ok();
}

}  // namespace

std::string LoraTargetsText(const model::LoraConfig& c) {
  std::string out;
  for (int i = 0; i < model::kLoraTargetCount; ++i) {
    const auto t = static_cast<model::LoraTarget>(i);
    if (c.Targets(t)) out += (out.empty() ? "" : ",") + std::string(model::LoraTargetName(t));
  }
  return out;
}

Result<model::LoraConfig> LoraConfigFromFlags(int64_t r, double alpha, double dropout,
                                              const std::string& targets) {
  model::LoraConfig c;
  c.dropout = dropout;
  if (!(dropout >= 0 && dropout < 1)) {
    return Status::InvalidArgument("--lora-dropout: LoRA dropout must be in [0, 1)");
  }
  if (r == 0) return c;
  c.r = r;
  c.alpha = alpha;
  auto parsed = model::ParseLoraTargets(targets);
  if (!parsed.ok()) return Status::InvalidArgument("--lora-targets: " + parsed.status().message());
  c.targets = *parsed;
  auto valid = model::ValidateLoraConfig(c);
  if (!valid.ok())
    return Status::InvalidArgument("--lora-r/--lora-alpha/--lora-dropout: " + valid.message());
  return c;
}

Result<StartModel> LoadStartModel(const std::string& name, uint64_t seed, int32_t small_vocab,
                                  const std::vector<std::string>& bpe_texts, c10::Device device,
                                  c10::ScalarType compute, const model::LoraConfig& lora) {
  if (model::IsLoraAdapterDir(name)) {
    auto m = LoadStartAdapter(name, device, compute, lora);
    if (m.ok()) TRITONRL_RETURN_IF_ERROR(SettleEndOfTurn(*m, name));
    return m;
  }
  auto m = LoadStartWeights(name, seed, small_vocab, bpe_texts, device,
                            lora.enabled() ? compute : at::kFloat);
  if (!m.ok()) return m.status();
  TRITONRL_RETURN_IF_ERROR(SettleEndOfTurn(*m, name));
  model::Qwen3Model base = std::move(m->trainable.master);
  if (!lora.enabled()) {
    m->trainable = MakeTrainable(std::move(base), compute);
    return m;
  }
  model::AddLoraAdapters(base, lora, LoraSeed(seed));
  const bool builtin = name.rfind("builtin:", 0) == 0;
  m->trainable = MakeLoraTrainable(std::move(base), compute,
                                   builtin ? "" : fs::absolute(name).lexically_normal().string());
  return m;
}

Status WriteBuiltinLoraBase(StartModel& m, const std::string& out, bool write) {
  Trainable& t = m.trainable;
  t.lora_base = fs::absolute(fs::path(out) / "base").lexically_normal().string();
  if (!write) return Status::Ok();
  model::Qwen3Model base = t.master;
  for (model::Qwen3Layer& L : base.layers) L.lora = {};
  base.lora = {};
  TRITONRL_RETURN_IF_ERROR(model::SaveQwen3(base, t.lora_base));
  TRITONRL_RETURN_IF_ERROR(WriteFileAtomic((fs::path(t.lora_base) / "tokenizer.json").string(),
                                           model::TokenizerToJson(m.tokenizer)));
  model::HfSideFileOptions side;
  side.model_max_length = base.config.max_position_embeddings;
  side.eos_token_id = base.config.eos_token_id;
  side.bos_token_id = base.config.bos_token_id;
  side.end_of_turn = m.end_of_turn;
  return model::WriteHfModelFiles(t.lora_base, m.tokenizer, side, {});
}

Result<model::Qwen3Model> StartLoraView(const Trainable& t, const std::string& model,
                                        uint64_t seed) {
  at::NoGradGuard no_grad;
  model::Qwen3Model view = ComputeView(t);  // the frozen base's tensors themselves
  if (model::IsLoraAdapterDir(model)) {
    TRITONRL_RETURN_IF_ERROR(model::LoadLoraAdapterWeights(view, model, t.master.lora));
  } else {
    model::AddLoraAdapters(view, t.master.lora, LoraSeed(seed));
  }
  return view;
}

std::string DescribeModel(const Trainable& t, c10::Device device) {
  return "qwen3 " + std::to_string(t.master.config.num_hidden_layers) + " layers, hidden " +
         std::to_string(t.master.config.hidden_size) + ", vocab " +
         std::to_string(t.master.config.vocab_size) + ", " + c10::toString(t.compute) +
         " compute on " + device.str();
}

Status CheckSaveDtype(const std::string& save_dtype, int64_t lora_r, const std::string& model,
                      const std::string& resume) {
  if (save_dtype != "fp32" && save_dtype != "bf16") {
    return Status::InvalidArgument("--save-dtype must be fp32 or bf16, not '" + save_dtype + "'");
  }
  const bool lora = lora_r > 0 || model::IsLoraAdapterDir(model) ||
                    (!resume.empty() && model::IsLoraAdapterDir(resume));
  if (save_dtype == "bf16" && lora) {
    return Status::InvalidArgument(
        "--save-dtype bf16 is for full fine-tuning: a LoRA run's served model is its merged "
        "adapter (tritonrl lora merge)");
  }
  return Status::Ok();
}

Status SaveServedCopy(const std::string& save_dtype, const std::string& out, const StartModel& m) {
  if (save_dtype != "bf16") return Status::Ok();
  return SaveServedModel((fs::path(out) / "model").string(), m.trainable, m.tokenizer,
                         m.end_of_turn, at::kBFloat16, m.carried_files);
}

Result<std::ofstream> OpenMetricsLog(const std::string& path, int64_t keep_through_step) {
  std::string kept;
  if (keep_through_step >= 0) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      try {
        if (json::parse(line).value("step", int64_t{0}) <= keep_through_step) kept += line + "\n";
      } catch (const json::exception&) {
        // a torn last line of an interrupted run: dropped
      }
    }
  }
  TRITONRL_RETURN_IF_ERROR(WriteFileAtomic(path, kept));
  std::ofstream out(path, std::ios::app);
  if (!out) return Status::IoError(path + ": cannot open");
  return out;
}

Result<ResumePoint> LoadResumePoint(const std::string& dir, c10::Device device,
                                    c10::ScalarType compute, const std::string& trainer,
                                    const std::function<void(const json&)>& apply_options) {
  ResumePoint rp;
  if (dir.empty()) return rp;
  auto c = LoadTrainCheckpoint(dir, device, compute);
  if (!c.ok()) return c.status();
  const std::string state_path = dir + "/trainer_state.json";
  try {
    rp.state = json::parse(c->state_json);
    const std::string written_by = rp.state.value("trainer", std::string());
    if (written_by != trainer) {
      return Status::FailedPrecondition(
          state_path + ": not a " + trainer + " checkpoint (written by " +
          (written_by.empty() ? std::string("an unnamed trainer") : "train " + written_by) +
          (trainer == "grpo" ? "; an SFT checkpoint is a --model, not a --resume)" : ")"));
    }
    apply_options(rp.state.at("options"));
  } catch (const json::exception& e) {
    return Status::Corruption(state_path + ": bad state (" + e.what() + ")");
  }
  rp.ckpt = std::move(c.value());
  return rp;
}

Result<std::string> HashOfFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  return Sha256Hex(*text);
}

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace tritonrl::train
