// train_parity: loss and gradients of the trainer's forward for
// tests/python/test_train_sft.py, which checks them against an independent
// PyTorch Qwen3.
//   train_parity --model DIR --batch BATCH.json --out GRADS.safetensors [--kernels fused]
// BATCH.json: {"rows": [[ids...], ...], "score_from": [n, ...]}. Prints
// {"loss": L, "scored": N}; the loss is the mean negative log-likelihood of the
// scored tokens (fp32 everywhere), the gradients are written under the
// trainer's parameter names (fused q/k/v and gate/up as trained). --kernels
// fused: the loss through sft's speed options (fused RMSNorm, fused q/k/v and
// gate/up GEMMs, rotary embedding with a roll, the chunked head +
// cross-entropy in chunks of 3 rows). DIR may be a LoRA adapter (model/lora.h): then only the
// adapters are trained and their gradients written.
#include <ATen/ATen.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "model/lora.h"
#include "model/safetensors.h"
#include "train/trainer.h"

namespace {

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "train_parity: %s\n", msg.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  namespace m = tritonrl::model;
  namespace t = tritonrl::train;
  std::string model, batch, out, kernels;
  // An unknown flag or a flag without a value is refused: it must never land in another flag's
  // field (it used to overwrite --model, which made a misspelled flag load the wrong folder).
  for (int i = 1; i < argc; i += 2) {
    std::string k = argv[i];
    std::string* field = k == "--model"     ? &model
                         : k == "--batch"   ? &batch
                         : k == "--out"     ? &out
                         : k == "--kernels" ? &kernels
                                            : nullptr;
    if (field == nullptr) Die("unknown flag '" + k + "'");
    if (i + 1 >= argc) Die("flag '" + k + "' needs a value");
    *field = argv[i + 1];
  }
  if (model.empty() || batch.empty() || out.empty()) Die("usage: --model DIR --batch F --out F");
  auto text = tritonrl::ReadFile(batch);
  if (!text.ok()) Die(text.status().message());
  auto j = nlohmann::json::parse(*text);
  auto rows = j.at("rows").get<std::vector<std::vector<int32_t>>>();
  auto from = j.at("score_from").get<std::vector<int64_t>>();
  auto loaded = m::LoadQwen3(model, {});
  if (!loaded.ok()) Die(loaded.status().message());
  // A LoRA adapter directory: the base frozen, the adapters trained (gradients under
  // "layers.L.TARGET.lora_A" / "lora_B").
  t::Trainable tr = loaded->lora.enabled()
                        ? t::MakeLoraTrainable(std::move(loaded.value()), at::kFloat, "")
                        : t::MakeTrainable(std::move(loaded.value()), at::kFloat);
  t::TokenBatch b = t::MakeBatch(rows, from, at::kCPU);
  at::Tensor loss;
  if (kernels == "fused") {
    t::LossKernels k;
    k.fused_norm = k.fused_proj = k.rope_roll = true;
    k.loss_chunk = 3;
    m::Qwen3Model view = t::ComputeView(tr);
    loss = t::HeadNllSum(t::ScoredHidden(view, b, k), view.lm_head, b.targets, k.loss_chunk) /
           static_cast<double>(b.targets.size(0));
  } else {
    loss = t::ScoredLogProbs(t::ComputeView(tr), b).mean().neg();
  }
  loss.backward();
  std::vector<at::Tensor> keep;
  std::vector<m::TensorToWrite> w;
  for (const t::Param& p : tr.params) {
    keep.push_back(p.value.grad().contiguous());
    w.push_back({p.name, m::DType::kF32, keep.back().sizes().vec(), keep.back().data_ptr()});
  }
  auto st = m::WriteSafetensors(out, w);
  if (!st.ok()) Die(st.message());
  std::printf("{\"loss\": %.9g, \"scored\": %lld}\n", loss.item<double>(),
              static_cast<long long>(b.targets.size(0)));
  return 0;
}
