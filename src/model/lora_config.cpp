#include "model/lora_config.h"

#include <algorithm>
#include <iterator>

namespace tritonrl::model {

namespace {

constexpr LoraTarget kAllTargets[] = {LoraTarget::kQ,   LoraTarget::kK,    LoraTarget::kV,
                                      LoraTarget::kO,   LoraTarget::kGate, LoraTarget::kUp,
                                      LoraTarget::kDown};

}  // namespace

const char* LoraTargetName(LoraTarget t) {
  static const char* kNames[] = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                 "gate_proj", "up_proj", "down_proj"};
  return kNames[static_cast<int>(t)];
}

const char* LoraTargetPath(LoraTarget t) {
  static const char* kPaths[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                 "self_attn.o_proj", "mlp.gate_proj",    "mlp.up_proj",
                                 "mlp.down_proj"};
  return kPaths[static_cast<int>(t)];
}

bool LoraConfig::Targets(LoraTarget t) const {
  for (LoraTarget x : targets) {
    if (x == t) return true;
  }
  return false;
}

Result<std::vector<LoraTarget>> ParseLoraTargets(const std::string& text) {
  if (text == "all") return std::vector<LoraTarget>(std::begin(kAllTargets), std::end(kAllTargets));
  if (text == "attention") {
    return std::vector<LoraTarget>{LoraTarget::kQ, LoraTarget::kK, LoraTarget::kV, LoraTarget::kO};
  }
  if (text == "mlp")
    return std::vector<LoraTarget>{LoraTarget::kGate, LoraTarget::kUp, LoraTarget::kDown};
  std::vector<LoraTarget> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    bool found = false;
    for (LoraTarget t : kAllTargets) {
      if (name != LoraTargetName(t)) continue;
      found = true;
      for (LoraTarget seen : out) {
        if (seen == t) return Status::InvalidArgument("LoRA target " + name + " given twice");
      }
      out.push_back(t);
    }
    if (!found) {
      return Status::InvalidArgument(
          "unknown LoRA target '" + name +
          "' (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, all, attention, mlp)");
    }
    start = comma + 1;
  }
  return out;
}

Status ValidateLoraConfig(const LoraConfig& c) {
  if (c.r < 1) return Status::InvalidArgument("LoRA rank must be at least 1");
  if (!(c.alpha > 0)) return Status::InvalidArgument("LoRA alpha must be positive");
  if (!(c.dropout >= 0 && c.dropout < 1)) {
    return Status::InvalidArgument("LoRA dropout must be in [0, 1)");
  }
  if (c.targets.empty()) return Status::InvalidArgument("LoRA needs at least one target module");
  return Status::Ok();
}

}  // namespace tritonrl::model
