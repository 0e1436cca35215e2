// `tritonrl lora merge --adapter DIR --out DIR`: folds a PEFT LoRA adapter (as
// `train sft --lora-r` writes it, or PEFT's own) into its base model and writes
// a full Hugging Face checkpoint (docs/train.md, "LoRA"). Built only with the
// model module (libtorch).
#ifdef TRITONRL_HAVE_MODEL

#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "model/lora_merge.h"

namespace {

struct LoraMergeFlags {
  std::string adapter, out;
};

int RunLoraMerge(const LoraMergeFlags& f) {
  auto merged = tritonrl::model::MergeLoraCheckpoint(f.adapter, f.out);
  if (!merged.ok()) {
    std::fprintf(stderr, "tritonrl lora merge: error: %s\n", merged.status().message().c_str());
    return 2;
  }
  std::printf("merged %lld adapters into %s (%s, base %s)\n",
              static_cast<long long>(merged->adapters), f.out.c_str(), merged->dtype.c_str(),
              merged->base_model.c_str());
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"lora", "LoRA adapters: merge one into its base model",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto f = std::make_shared<LoraMergeFlags>();
       sub.require_subcommand(1);
       CLI::App* merge = sub.add_subcommand(
           "merge", "Write base + (alpha/r) B A as a full Hugging Face checkpoint");
       merge->add_option("--adapter", f->adapter, "Adapter directory (adapter_config.json)")
           ->required();
       merge->add_option("--out", f->out, "Output model directory")->required();
       return [f]() { return RunLoraMerge(*f); };
     }});

}  // namespace

#endif  // TRITONRL_HAVE_MODEL
