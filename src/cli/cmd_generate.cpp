// tritonrl generate: sample completions from a Qwen3 checkpoint (or the
// built-in tiny model) and write one JSON object per completion.
// Built only when the model module (libtorch) is part of the build.
#ifdef TRITONRL_HAVE_MODEL

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "base/file.h"
#include "cli/command.h"
#include "model/chat_template.h"
#include "model/policy.h"

namespace {

using json = nlohmann::json;
namespace m = tritonrl::model;

struct GenerateFlags {
  std::string model = "builtin:tiny";
  std::string prompt;
  std::string prompts_file;
  std::string out;
  std::string device;
  std::string dtype;
  int64_t n = 1;
  double temperature = 1.0;
  double top_p = 1.0;
  int64_t top_k = 0;
  int64_t max_new_tokens = 128;
  uint64_t seed = 0;
  std::vector<std::string> stop;
  bool chat = false;
  bool no_think = false;
  bool no_graphs = false;
  bool print_prompts = false;
};

struct PromptItem {
  json id;  // echoed back when the input line had one
  std::string text;
};

// JSONL lines to --out (atomically), or to stdout without it.
void WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  auto st = tritonrl::WriteFileAtomic(path, text);
  if (!st.ok()) throw std::runtime_error(st.message());
}

// The model's chat template (model/chat_template.h), loaded the first time a prompt needs it, so
// raw prompts never depend on it. Errors name the template's file.
class ChatRenderer {
 public:
  ChatRenderer(std::string model, bool no_think) : model_(std::move(model)) {
    if (no_think) options_.enable_thinking = false;
  }
  // `where` prefixes a rendering error (the prompts file and line).
  std::string Render(const std::vector<m::ChatMessage>& messages, const std::string& where = "") {
    if (!template_) {
      auto t = m::LoadChatTemplate(model_);
      if (!t.ok()) throw std::runtime_error(t.status().message());
      template_ = std::move(t.value());
    }
    auto text = template_->Apply(messages, options_);
    if (!text.ok()) throw std::runtime_error(where + text.status().message());
    return std::move(text.value());
  }

 private:
  std::string model_;
  m::ChatTemplateOptions options_;
  std::optional<m::ChatTemplate> template_;
};

// One prompt per line: {"prompt": TEXT} or {"messages": [{role, content}...]},
// optionally with "id". A bad line names the file and line.
std::vector<PromptItem> ReadPrompts(const std::string& path, bool chat, ChatRenderer& renderer) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<PromptItem> items;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: not a JSON object: {}", path, lineno, e.what()));
    }
    PromptItem item;
    if (j.is_object() && j.contains("id")) item.id = j["id"];
    if (j.is_object() && j.contains("prompt") && j["prompt"].is_string()) {
      item.text = j["prompt"].get<std::string>();
      if (chat) {
        item.text = renderer.Render({{"user", item.text}}, fmt::format("{}:{}: ", path, lineno));
      }
    } else if (j.is_object() && j.contains("messages") && j["messages"].is_array()) {
      std::vector<m::ChatMessage> msgs;
      for (const auto& msg : j["messages"]) {
        if (!msg.is_object() || !msg.contains("role") || !msg.contains("content") ||
            !msg["role"].is_string() || !msg["content"].is_string()) {
          throw std::runtime_error(
              fmt::format("{}:{}: each message needs string role and content", path, lineno));
        }
        msgs.push_back({msg["role"].get<std::string>(), msg["content"].get<std::string>()});
      }
      item.text = renderer.Render(msgs, fmt::format("{}:{}: ", path, lineno));
    } else {
      throw std::runtime_error(fmt::format(
          "{}:{}: expected {{\"prompt\": string}} or {{\"messages\": [...]}}", path, lineno));
    }
    items.push_back(std::move(item));
  }
  if (items.empty()) throw std::runtime_error(path + ": no prompts");
  return items;
}

int Run(const GenerateFlags& f) {
  std::vector<PromptItem> items;
  ChatRenderer renderer(f.model, f.no_think);
  if (!f.prompt.empty()) {
    PromptItem p;
    p.text = f.chat ? renderer.Render({{"user", f.prompt}}) : f.prompt;
    items.push_back(std::move(p));
  } else {
    items = ReadPrompts(f.prompts_file, f.chat, renderer);
  }
  if (f.print_prompts) {
    // The prompts as the model would see them (chat template applied), without loading it.
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      json j = {{"prompt_index", i}, {"prompt", items[i].text}};
      if (!items[i].id.is_null()) j["id"] = items[i].id;
      out += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    }
    WriteOutput(f.out, out);
    return 0;
  }
  auto policy = m::LoadPolicy({f.model, f.device, f.dtype, 0});
  if (!policy.ok()) throw std::runtime_error(policy.status().message());
  std::fprintf(stderr, "generate: %s\n", m::PolicyDescription(**policy).c_str());

  m::SamplingOptions so;
  so.temperature = f.temperature;
  so.top_p = f.top_p;
  so.top_k = f.top_k;
  so.max_new_tokens = f.max_new_tokens;
  so.num_samples = f.n;
  so.seed = f.seed;
  so.stop_strings = f.stop;
  so.use_cuda_graphs = !f.no_graphs;
  so.stop_token_ids = m::DefaultStopTokens(**policy);
  std::vector<std::string> texts;
  for (const PromptItem& it : items) texts.push_back(it.text);
  m::GenerationStats stats;
  auto result = m::GenerateText(**policy, texts, so, &stats);
  if (!result.ok()) throw std::runtime_error(result.status().message());

  std::string out;
  for (const m::Completion& c : *result) {
    json j = {
        {"prompt_index", c.prompt_index},   {"sample", c.sample_index}, {"completion", c.text},
        {"finish_reason", c.finish_reason}, {"tokens", c.tokens},       {"logprobs", c.logprobs}};
    const json& id = items[c.prompt_index].id;
    if (!id.is_null()) j["id"] = id;
    out += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  WriteOutput(f.out, out);
  std::fprintf(stderr,
               "generate: %zu completions; prefill %lld tokens in %.3f s; decode %lld tokens in "
               "%.3f s (%.1f tokens/s)%s\n",
               result->size(), static_cast<long long>(stats.prefill_tokens), stats.prefill_seconds,
               static_cast<long long>(stats.new_tokens), stats.decode_seconds,
               stats.decode_seconds > 0 ? stats.new_tokens / stats.decode_seconds : 0.0,
               stats.cuda_graphs ? ", CUDA graphs" : "");
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"generate", "Sample completions from a Qwen3 model (JSONL out)", [](CLI::App& sub) {
       auto f = std::make_shared<GenerateFlags>();
       sub.add_option("--model", f->model,
                      "Model directory (config.json, *.safetensors, "
                      "tokenizer.json) or builtin:tiny")
           ->capture_default_str();
       auto* p = sub.add_option("--prompt", f->prompt, "One prompt");
       auto* ps = sub.add_option("--prompts", f->prompts_file,
                                 "JSONL file: {\"prompt\": ...} or {\"messages\": [...]} per line");
       p->excludes(ps);
       sub.add_option("--n", f->n, "Samples per prompt (sharing the prompt's prefill)")
           ->check(CLI::PositiveNumber)
           ->capture_default_str();
       sub.add_option("--temperature", f->temperature, "0 = greedy")->capture_default_str();
       sub.add_option("--top-p", f->top_p)->capture_default_str();
       sub.add_option("--top-k", f->top_k, "0 = off")->capture_default_str();
       sub.add_option("--max-new-tokens", f->max_new_tokens)
           ->check(CLI::PositiveNumber)
           ->capture_default_str();
       sub.add_option("--seed", f->seed)->capture_default_str();
       sub.add_option("--stop", f->stop, "Stop string (repeatable)");
       sub.add_option("--device", f->device, "cpu, cuda or cuda:N (default: cuda if available)");
       sub.add_option("--dtype", f->dtype,
                      "fp32, bf16 or fp16 (default: bf16 on GPU, fp32 on CPU)");
       sub.add_option("--out", f->out, "Write JSONL here instead of stdout");
       sub.add_flag("--chat", f->chat,
                    "Wrap each --prompt/\"prompt\" in the model's chat template (its own, else "
                    "the built-in Qwen3 one)");
       sub.add_flag("--no-think", f->no_think, "Chat template with enable_thinking=false");
       sub.add_flag("--no-cuda-graphs", f->no_graphs, "Run the decode step eagerly on GPU");
       sub.add_flag("--print-prompts", f->print_prompts,
                    "Write each prompt as the model sees it ({\"prompt_index\", \"prompt\"} "
                    "per line) and exit without loading the model");
       return [f]() -> int {
         if (f->prompt.empty() && f->prompts_file.empty()) {
           std::fprintf(stderr, "tritonrl generate: give --prompt TEXT or --prompts FILE.jsonl\n");
           return 2;
         }
         return Run(*f);
       };
     }});

}  // namespace

#endif  // TRITONRL_HAVE_MODEL
