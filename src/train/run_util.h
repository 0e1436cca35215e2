// Pieces every training loop of src/train shares (SFT and GRPO): wall-clock
// helpers, the progress bar on stderr, the starting model (builtin:tiny,
// builtin:small with a BPE learned from given texts, or a Hugging Face
// directory), the metrics log that a resumed run truncates to its checkpoint,
// and file hashes (SHA-256). Only src/train includes this header (libtorch types). One
// training loop per process, from one thread.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/end_of_turn.h"
#include "model/tokenizer.h"
#include "train/trainer.h"

namespace tritonrl::train {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t);
std::string Duration(double seconds);  // H:MM:SS

// One line redrawn on a terminal; on a log, a line per tenth of the run.
class Progress {
 public:
  explicit Progress(bool on);
  // `stats`: what the loop shows after "step S/T" (loss, rewards, tokens/s).
  void Update(int64_t step, int64_t total, const std::string& stats, double eta_seconds);

 private:
  bool on_, tty_;
};

// The policy's device (empty: cuda if available, else cpu) and compute dtype
// (empty: bf16 on a GPU, fp32 on the CPU).
Result<std::pair<c10::Device, c10::ScalarType>> ResolveDeviceAndDType(const std::string& device,
                                                                      const std::string& dtype);

struct StartModel {
  Trainable trainable;
  model::Tokenizer tokenizer;
  // The token that ends the model's turn (model::FindEndOfTurn): what SFT appends to each
  // completion, where GRPO's rollouts stop, the eos of the side files a checkpoint generates.
  model::EndOfTurn end_of_turn;
  // A directory's files that each checkpoint carries unchanged (model::ReadCarriedModelFiles);
  // none for the built-in models.
  model::ModelFiles carried_files;
};

// The --lora-r/--lora-alpha/--lora-dropout/--lora-targets flags as the model module's config
// (errors name the flag). r == 0 (no --lora-r): LoRA off unless the model is an adapter, whose
// run still takes the dropout from here (the other fields are then the adapter's).
Result<model::LoraConfig> LoraConfigFromFlags(int64_t r, double alpha, double dropout,
                                              const std::string& targets);
// The config's targets as --lora-targets spells them: PEFT's names in enum order, commas.
std::string LoraTargetsText(const model::LoraConfig& c);

// builtin:tiny (byte tokenizer, random weights of `seed`), builtin:small (a
// BPE of `small_vocab` learned from `bpe_texts`, random weights of `seed`) or a
// directory (config.json, *.safetensors, tokenizer.json; its other files are carried), with
// its end of turn (model::FindEndOfTurn; a model without one fails, naming it). Masters
// are fp32. With `lora` enabled: the base frozen in the compute dtype and fresh adapters drawn
// from (seed, "LoRA") (MakeLoraTrainable); a directory base is referenced by its absolute path,
// a builtin one has none yet (WriteBuiltinLoraBase). A LoRA adapter directory as `model` (a
// `train sft --lora-r` checkpoint, or PEFT's) is continued: its base frozen in the compute
// dtype, its adapters trained, its r, alpha and targets kept (`lora` enabled must restate
// them, or fails naming the flags) and `lora.dropout` used; the base stays the adapter's
// base_model_name_or_path.
Result<StartModel> LoadStartModel(const std::string& model, uint64_t seed, int32_t small_vocab,
                                  const std::vector<std::string>& bpe_texts, c10::Device device,
                                  c10::ScalarType compute, const model::LoraConfig& lora = {});

// A builtin model has no directory for an adapter to reference: writes its frozen base (and
// tokenizer) once to OUT/base, a Hugging Face model PEFT loads as the base, and sets
// Trainable::lora_base to it. `write` false (a data-parallel rank other than 0): sets only.
Status WriteBuiltinLoraBase(StartModel& m, const std::string& out, bool write = true);

// After LoadStartModel of a fresh run: with LoRA on (--lora-r, or an adapter as --model), the
// options record the trained r, alpha and targets (an adapter brings its own; the trajectory
// names what was trained, for a resume and the metrics), and a builtin base is written to
// OUT/base (WriteBuiltinLoraBase; `write_base` false on a data-parallel rank other than 0).
// Without LoRA: nothing. Options: SftOptions or GrpoOptions (lora_r, lora_alpha, lora_targets,
// out).
template <typename Options>
Status SettleStartLora(StartModel& m, Options& o, bool write_base = true) {
  const model::LoraConfig& have = m.trainable.master.lora;
  if (!have.enabled()) return Status::Ok();
  o.lora_r = have.r;
  o.lora_alpha = have.alpha;
  o.lora_targets = LoraTargetsText(have);
  if (!m.trainable.lora_base.empty()) return Status::Ok();
  return WriteBuiltinLoraBase(m, o.out, write_base);
}

// The policy a LoRA run started from, for a KL reference: `t`'s frozen base (shared, not
// copied) in the compute dtype with the starting adapters, drawn again from `seed` as
// LoadStartModel drew them or read again from the adapter directory `model`. No gradients.
Result<model::Qwen3Model> StartLoraView(const Trainable& t, const std::string& model,
                                        uint64_t seed);

// Where a resumed run starts: the checkpoint (weights, optimizer, tokenizer) and its
// trainer_state.json. Both trainers set up through it.
struct ResumePoint {
  std::optional<LoadedCheckpoint> ckpt;  // none: a fresh run
  nlohmann::json state;
};

// `dir` empty: a fresh run. Otherwise loads the checkpoint, checks that its state's "trainer"
// is `trainer` ("sft" or "grpo"; an SFT checkpoint given to GRPO is a --model, not a --resume),
// and hands the state's "options" to apply_options (the trajectory options a resumed run takes
// from its checkpoint). Errors name the file.
Result<ResumePoint> LoadResumePoint(
    const std::string& dir, c10::Device device, c10::ScalarType compute, const std::string& trainer,
    const std::function<void(const nlohmann::json&)>& apply_options);

// "qwen3 N layers, hidden H, vocab V, DTYPE compute on DEVICE".
std::string DescribeModel(const Trainable& t, c10::Device device);

// --save-dtype: "fp32" (the resume checkpoint only) or "bf16" (also the served model in OUT/model;
// refused for a LoRA run, whose served model is the merged adapter: --lora-r > 0, or an adapter
// directory as the model or the checkpoint resumed).
Status CheckSaveDtype(const std::string& save_dtype, int64_t lora_r, const std::string& model,
                      const std::string& resume);
// With save_dtype "bf16": writes OUT/model, the model as served (SaveServedModel); else nothing.
Status SaveServedCopy(const std::string& save_dtype, const std::string& out, const StartModel& m);

// Opens OUT/metrics.jsonl for appending. keep_through_step < 0 (a fresh run):
// the file starts empty; otherwise (a resume) the lines whose "step" is at most
// that step are kept and the rest (and a torn last line) dropped.
Result<std::ofstream> OpenMetricsLog(const std::string& path, int64_t keep_through_step);

// SHA-256 of a file's bytes (base/sha256.h, the project's one content hash), as hex.
Result<std::string> HashOfFile(const std::string& path);
std::string Hex64(uint64_t value);  // 16 lowercase hex digits

}  // namespace tritonrl::train
