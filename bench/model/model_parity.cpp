// model_parity: the C++ side of bench/gpu/model.sh. One binary, three jobs:
//   logits   --model DIR --ids IDS.json --out LOGITS.f32 [--dtype] [--device]
//            full-sequence logits for each row of IDS.json ({"ids": [[...], ...]},
//            rows of equal length), raw little-endian float32 [rows, T, vocab]
//   tokenize --tokenizer tokenizer.json --in STRINGS.jsonl --out IDS.jsonl
//            one JSON string per input line -> {"ids": [...]} per output line
//   bench    --model DIR --ids PROMPTS.json [--new N] [--dtype] [--no-graphs]
//            prefill and decode throughput of Generate, one JSON line
#include <ATen/ATen.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "model/generate.h"
#include "model/lora.h"
#include "model/qwen3.h"
#include "model/tokenizer.h"

namespace {

using json = nlohmann::json;
namespace m = tritonrl::model;

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "model_parity: %s\n", msg.c_str());
  std::exit(2);
}

template <typename T>
T Check(tritonrl::Result<T> r) {
  if (!r.ok()) Die(r.status().ToString());
  return std::move(r.value());
}

std::vector<std::vector<int32_t>> ReadIds(const std::string& path) {
  std::string text = Check(tritonrl::ReadFile(path));
  json j = json::parse(text);
  return j.at("ids").get<std::vector<std::vector<int32_t>>>();
}

m::Qwen3Model Load(const std::string& dir, const std::string& dtype, const std::string& device) {
  m::ModelOptions o;
  o.device = Check(m::ParseDevice(device));
  o.dtype = Check(m::ParseModelDType(dtype));
  return Check(m::LoadQwen3(dir, o));
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int Logits(const std::string& dir, const std::string& ids_path, const std::string& out,
           const std::string& dtype, const std::string& device) {
  m::Qwen3Model model = Load(dir, dtype, device);
  auto rows = ReadIds(ids_path);
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (!f) Die(out + ": cannot open");
  for (const auto& row : rows) {
    std::vector<int64_t> v(row.begin(), row.end());
    at::Tensor ids =
        at::tensor(v, at::TensorOptions().dtype(at::kLong)).unsqueeze(0).to(model.device);
    at::Tensor pad = at::zeros({1}, ids.options());
    at::Tensor logits = m::ForwardNoCache(model, ids, pad).to(at::kCPU).contiguous();
    std::fwrite(logits.data_ptr<float>(), sizeof(float), logits.numel(), f);
  }
  std::fclose(f);
  std::printf("{\"rows\": %zu, \"vocab\": %lld}\n", rows.size(),
              static_cast<long long>(model.config.vocab_size));
  return 0;
}

int Tokenize(const std::string& tok_path, const std::string& in, const std::string& out) {
  m::Tokenizer tok = Check(m::LoadTokenizerFile(tok_path));
  std::ifstream is(in);
  if (!is) Die(in + ": cannot open");
  std::string line, result;
  size_t n = 0;
  double t0 = Now();
  for (int lineno = 1; std::getline(is, line); ++lineno) {
    json j = json::parse(line);
    std::string text = j.is_string() ? j.get<std::string>() : j.at("text").get<std::string>();
    auto e = m::Encode(tok, text);
    if (!e.ok()) Die(in + ":" + std::to_string(lineno) + ": " + e.status().message());
    result += json{{"ids", e->ids}}.dump() + "\n";
    ++n;
  }
  double secs = Now() - t0;
  if (!tritonrl::WriteFileAtomic(out, result).ok()) Die(out + ": cannot write");
  std::printf("{\"strings\": %zu, \"seconds\": %.3f}\n", n, secs);
  return 0;
}

int Bench(const std::string& dir, const std::string& ids_path, const std::string& dtype,
          const std::string& device, int64_t max_new, bool graphs, double temperature) {
  m::Qwen3Model model = Load(dir, dtype, device);
  auto prompts = ReadIds(ids_path);
  int64_t prompt_tokens = 0;
  for (const auto& p : prompts) prompt_tokens += static_cast<int64_t>(p.size());
  // Prefill alone: best of 5 after a warm-up (the logits readback synchronises).
  double best_prefill = 1e30;
  for (int i = 0; i < 6; ++i) {
    double t0 = Now();
    auto s = Check(m::Prefill(model, prompts, 1, 1));
    (void)s.logits.sum().item<float>();
    if (i > 0) best_prefill = std::min(best_prefill, Now() - t0);
  }
  m::SamplingOptions o;
  o.temperature = temperature;
  o.max_new_tokens = max_new;
  o.use_cuda_graphs = graphs;
  o.seed = 1;
  // Warm-up run (library handles, allocator); then the measured run.
  m::SamplingOptions warm = o;
  warm.max_new_tokens = std::min<int64_t>(max_new, 32);
  Check(m::Generate(model, nullptr, prompts, warm));
  m::GenerationStats st;
  auto out = Check(m::Generate(model, nullptr, prompts, o, &st));
  json j = {{"batch", prompts.size()},
            {"prompt_tokens", prompt_tokens},
            {"prefill_seconds", best_prefill},
            {"prefill_tokens_per_s", prompt_tokens / best_prefill},
            {"new_tokens", st.new_tokens},
            {"decode_steps", st.decode_steps},
            {"decode_seconds", st.decode_seconds},
            {"decode_tokens_per_s", st.new_tokens / st.decode_seconds},
            {"cuda_graphs", st.cuda_graphs},
            {"dtype", dtype},
            {"completions", out.size()}};
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"model_parity: logits, tokenizer ids and throughput for bench/gpu/model.sh"};
  app.require_subcommand(1);
  std::string model, ids, out, dtype = "fp32", device = "cuda", tok, in;
  int64_t max_new = 512;
  bool no_graphs = false;
  double temperature = 1.0;
  auto* lg = app.add_subcommand("logits", "full-sequence logits as raw float32");
  lg->add_option("--model", model)->required();
  lg->add_option("--ids", ids)->required();
  lg->add_option("--out", out)->required();
  lg->add_option("--dtype", dtype);
  lg->add_option("--device", device);
  auto* tk = app.add_subcommand("tokenize", "token ids per string");
  tk->add_option("--tokenizer", tok)->required();
  tk->add_option("--in", in)->required();
  tk->add_option("--out", out)->required();
  auto* bn = app.add_subcommand("bench", "prefill and decode throughput");
  bn->add_option("--model", model)->required();
  bn->add_option("--ids", ids)->required();
  bn->add_option("--new", max_new);
  bn->add_option("--dtype", dtype);
  bn->add_option("--device", device);
  bn->add_option("--temperature", temperature);
  bn->add_flag("--no-graphs", no_graphs);
  CLI11_PARSE(app, argc, argv);
  try {
    if (lg->parsed()) return Logits(model, ids, out, dtype, device);
    if (tk->parsed()) return Tokenize(tok, in, out);
    return Bench(model, ids, dtype, device, max_new, !no_graphs, temperature);
  } catch (const std::exception& e) {
    Die(e.what());
  }
}
