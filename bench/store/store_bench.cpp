// store_bench [N] [DIR]: writes N results per configuration into fresh stores under DIR
// (default: the system temp dir) and prints commits/s, so the durability choice
// (synchronous FULL, one transaction per verdict) is made on numbers.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "store/store.h"

namespace {

using namespace tritonrl::store;
using Clock = std::chrono::steady_clock;

EvalResult MakeResult(int i) {
  EvalResult r;
  r.sample.key = {"bench", "level1/" + std::to_string(i % 50) + "_Task", std::to_string(i)};
  r.sample.text = std::string(4000, 'x') + std::to_string(i);  // a typical model output size
  r.sample.code = std::string(1500, 'c') + std::to_string(i);
  VerdictRecord& v = r.verdict;
  v.cache_key = tritonrl::Sha256Hex(std::to_string(i));
  v.outcome = "correct";
  v.valid = v.syntax_ok = v.functionality_ok = v.compiled = v.correct = true;
  v.speedup = 1.25;
  v.reasons = {"ok"};
  v.evidence_json = R"({"checks":["launch","aten","profile"]})";
  v.stage_timings = {{"static", 0.001}, {"compile", 1.2}, {"correctness", 0.8}, {"timing", 3.0}};
  v.trial_stats = {{"reference", "large", 100, 2, 2, 2, 2, 0},
                   {"candidate", "large", 100, 1, 1, 1, 1, 0}};
  return r;
}

double Seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void Fail(const tritonrl::Status& s) {
  std::fprintf(stderr, "store_bench: %s\n", s.ToString().c_str());
  std::exit(1);
}

std::string Fresh(const std::string& dir, const std::string& name) {
  std::string p = dir + "/" + name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p + suffix);
  return p;
}

double WriteDirect(const std::string& path, int n, bool full, int batch) {
  OpenOptions o;
  o.synchronous_full = full;
  auto s = Store::Open(path, o);
  if (!s.ok()) Fail(s.status());
  RunInfo run;
  run.id = "bench";
  if (auto st = s->BeginRun(run); !st.ok()) Fail(st);
  std::vector<EvalResult> pending;
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    pending.push_back(MakeResult(i));
    if (static_cast<int>(pending.size()) == batch || i == n - 1) {
      if (auto st = s->PutResults(pending); !st.ok()) Fail(st);
      pending.clear();
    }
  }
  return n / Seconds(t0);
}

double WriteWithWriter(const std::string& path, int n) {
  {
    auto s = Store::Open(path);
    if (!s.ok()) Fail(s.status());
    RunInfo run;
    run.id = "bench";
    if (auto st = s->BeginRun(run); !st.ok()) Fail(st);
  }
  auto w = VerdictWriter::Open(path);
  if (!w.ok()) Fail(w.status());
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) (*w)->Submit(MakeResult(i));
  if (auto st = (*w)->Close(); !st.ok()) Fail(st);
  return n / Seconds(t0);
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 500;
  std::string dir = argc > 2 ? argv[2] : std::filesystem::temp_directory_path().string();
  std::printf("store_bench: %d results per row, dir %s\n\n", n, dir.c_str());
  std::printf("| configuration | results/s |\n|---|---|\n");
  struct Cfg {
    const char* name;
    bool full;
    int batch;
  };
  for (Cfg c : {Cfg{"FULL, 1 result per transaction", true, 1},
                Cfg{"NORMAL, 1 result per transaction", false, 1},
                Cfg{"FULL, batches of 8", true, 8}, Cfg{"FULL, batches of 64", true, 64}}) {
    std::printf("| %s | %.0f |\n", c.name, WriteDirect(Fresh(dir, "bench.db"), n, c.full, c.batch));
  }
  std::printf("| FULL, VerdictWriter (max_batch 8, 200 ms) | %.0f |\n",
              WriteWithWriter(Fresh(dir, "bench.db"), n));

  auto s = Store::Open(dir + "/bench.db");
  if (!s.ok()) Fail(s.status());
  auto t0 = Clock::now();
  int hits = 0;
  for (int i = 0; i < n; ++i)
    hits += (*s->Lookup(tritonrl::Sha256Hex(std::to_string(i)))).has_value();
  std::printf("| Lookup (cache hit) | %.0f |\n", n / Seconds(t0));
  t0 = Clock::now();
  auto done = s->DoneSamples("bench");
  std::printf("| DoneSamples over %zu verdicts | %.0f verdicts/s |\n", done->size(),
              done->size() / Seconds(t0));
  std::string dst = Fresh(dir, "bench-merged.db");
  t0 = Clock::now();
  auto m = MergeStores(dst, {dir + "/bench.db"});
  if (!m.ok()) Fail(m.status());
  std::printf("| MergeStores (%lld verdicts) | %.0f verdicts/s |\n",
              static_cast<long long>(m->sources[0].verdicts_added),
              m->sources[0].verdicts_added / Seconds(t0));
  if (hits != n) Fail(tritonrl::Status::Internal("lookup missed"));
  for (const char* f : {"bench.db", "bench-merged.db"})
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(dir + "/" + f + suffix);
  return 0;
}
