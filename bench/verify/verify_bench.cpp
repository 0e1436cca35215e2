// verify_bench [--samples N] [--jobs J] [--json]: verifies the legit and hack corpora replicated to
// N samples (default 100000), on one thread and on J threads (default: all cores), as bare code and
// as full model outputs (<think> plan + fenced code). Prints a table (or one JSON object).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file.h"
#include "verify/batch.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Row {
  std::string input;
  unsigned threads;
  size_t samples;
  double seconds;
  size_t valid;
};

Row Measure(const std::string& input, const std::vector<tritonrl::verify::Sample>& samples,
            unsigned threads) {
  auto start = Clock::now();
  std::vector<tritonrl::verify::Verdict> verdicts =
      tritonrl::verify::VerifySamples(samples, tritonrl::verify::VerifyOptions{}, threads);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  size_t valid = static_cast<size_t>(
      std::count_if(verdicts.begin(), verdicts.end(), [](const auto& v) { return v.valid; }));
  return {input, threads, samples.size(), seconds, valid};
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 100000;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) {
      n = std::strtoul(argv[++i], nullptr, 10);
    } else if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) {
      jobs = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (!std::strcmp(argv[i], "--json")) {
      json = true;
    } else {
      std::fprintf(stderr, "usage: verify_bench [--samples N] [--jobs J] [--json]\n");
      return 2;
    }
  }
  std::vector<std::string> corpus;
  for (const char* kind : {"legit", "hacks"}) {
    std::filesystem::path dir = std::filesystem::path(TRITONRL_SOURCE_DIR) / "tests/corpus" / kind;
    std::vector<std::filesystem::path> paths;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".py") paths.push_back(e.path());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) {
      auto text = tritonrl::ReadFile(p.string());
      if (!text.ok()) {
        std::fprintf(stderr, "%s\n", text.status().ToString().c_str());
        return 2;
      }
      corpus.push_back(std::move(text).value());
    }
  }
  std::vector<tritonrl::verify::Sample> code(n), outputs(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string& c = corpus[i % corpus.size()];
    code[i].text = c;
    code[i].is_output = false;
    outputs[i].text =
        "<think>\nPlan: tile the problem, fuse the epilogue.\n</think>\n```python\n" + c + "```\n";
    outputs[i].is_output = true;
  }
  std::vector<Row> rows;
  rows.push_back(Measure("code", code, 1));
  rows.push_back(Measure("code", code, jobs));
  rows.push_back(Measure("output", outputs, 1));
  rows.push_back(Measure("output", outputs, jobs));
  if (json) {
    nlohmann::json j;
    j["corpus_files"] = corpus.size();
    for (const Row& r : rows) {
      j["rows"].push_back({{"input", r.input},
                           {"threads", r.threads},
                           {"samples", r.samples},
                           {"seconds", r.seconds},
                           {"samples_per_s", r.samples / r.seconds},
                           {"valid", r.valid}});
    }
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("verify_bench: %zu corpus files replicated to %zu samples\n", corpus.size(), n);
  std::printf("%-8s %8s %10s %10s %14s %10s\n", "input", "threads", "samples", "seconds",
              "samples/s", "valid");
  for (const Row& r : rows) {
    std::printf("%-8s %8u %10zu %10.3f %14.0f %10zu\n", r.input.c_str(), r.threads, r.samples,
                r.seconds, r.samples / r.seconds, r.valid);
  }
  return 0;
}
