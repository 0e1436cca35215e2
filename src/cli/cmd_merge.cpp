// `tritonrl merge OUT.db IN.db...`: merges results stores (for example the shards
// that several hosts wrote with `tritonrl eval --shard i/n`). Idempotent; exit 1
// when some duplicate keys had different content (listed; the first copy is kept).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "store/store.h"

namespace {

struct MergeCliOptions {
  std::string out;
  std::vector<std::string> in;
};

int RunMerge(const MergeCliOptions& o) {
  auto summary = tritonrl::store::MergeStores(o.out, o.in);
  if (!summary.ok()) {
    std::fprintf(stderr, "tritonrl merge: error: %s\n", summary.status().message().c_str());
    return 2;
  }
  for (const auto& s : summary->sources) {
    std::printf(
        "%s: +%lld runs, +%lld tasks, +%lld samples, +%lld verdicts, %lld already present\n",
        s.path.c_str(), static_cast<long long>(s.runs_added), static_cast<long long>(s.tasks_added),
        static_cast<long long>(s.samples_added), static_cast<long long>(s.verdicts_added),
        static_cast<long long>(s.verdicts_identical));
  }
  for (const auto& c : summary->conflicts) std::printf("conflict: %s\n", c.c_str());
  if (!summary->conflicts.empty()) {
    std::fprintf(stderr, "tritonrl merge: %zu conflicting duplicate(s); kept the first copy\n",
                 summary->conflicts.size());
    return 1;
  }
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"merge", "Merge results stores (shards from several hosts) into one",
     [](CLI::App& sub) -> tritonrl::cli::CommandAction {
       auto o = std::make_shared<MergeCliOptions>();
       sub.add_option("out", o->out, "Destination store (created if missing)")->required();
       sub.add_option("in", o->in, "Source stores")->required();
       return [o]() { return RunMerge(*o); };
     }});

}  // namespace
