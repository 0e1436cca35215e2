// tritonrl serve: the HTTP API for other RL engines (docs/serve.md). Flags in, one call to
// serve::RunServer, exit code out.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/file.h"
#include "cli/command.h"
#include "serve/serve.h"
#ifdef TRITONRL_HAVE_MODEL
#include "serve/completions.h"
#endif

namespace {

namespace sv = tritonrl::serve;

struct ServeFlags {
  sv::ServeConfig config;
  std::string token_file;
  double max_body_mb = 8;
  double max_text_kb = 256;
  double request_timeout_s = 300;
  int socket_timeout_s = 30;
  int shutdown_grace_s = 30;
  std::string model;  // empty: no completion routes
  std::string model_device, model_dtype, served_name;
  int64_t max_tokens = 4096;
};

int Run(ServeFlags& f) {
  auto& c = f.config;
  if (!f.token_file.empty()) {
    auto token = tritonrl::ReadFile(f.token_file);
    if (!token.ok()) throw std::runtime_error(token.status().message());
    c.http.token = *token;
    while (!c.http.token.empty() && (c.http.token.back() == '\n' || c.http.token.back() == '\r'))
      c.http.token.pop_back();
  } else if (c.http.token.empty()) {
    if (const char* env = std::getenv("TRITONRL_SERVE_TOKEN"); env && *env) c.http.token = env;
  }
  if (!(f.max_body_mb > 0) || !(f.max_text_kb > 0) || !(f.request_timeout_s > 0))
    throw std::runtime_error("--max-body-mb, --max-text-kb and --request-timeout must be positive");
  c.limits.max_body_bytes = static_cast<size_t>(f.max_body_mb * (1 << 20));
  c.limits.max_text_bytes = static_cast<size_t>(f.max_text_kb * (1 << 10));
  c.limits.request_timeout =
      std::chrono::milliseconds(static_cast<long long>(f.request_timeout_s * 1000));
  c.http.socket_timeout = std::chrono::seconds(f.socket_timeout_s);
  c.shutdown_grace = std::chrono::seconds(f.shutdown_grace_s);
  if (!f.model.empty()) {
#ifdef TRITONRL_HAVE_MODEL
    sv::CompletionsConfig cc;
    cc.policy = {f.model, f.model_device, f.model_dtype, 0};
    cc.served_name = f.served_name;
    cc.max_tokens = f.max_tokens;
    c.extra_routes = [cc](sv::ServeContext& ctx) -> tritonrl::Result<std::vector<sv::Route>> {
      auto service = sv::StartCompletions(cc, ctx);
      if (!service.ok()) return service.status();
      return sv::CompletionRoutes(*service);
    };
#else
    throw std::runtime_error("--model needs a build with libtorch (the model module)");
#endif
  }
  auto st = sv::RunServer(c);
  if (!st.ok()) {
    std::fprintf(stderr, "tritonrl serve: error: %s\n", st.message().c_str());
    return 2;
  }
  return 0;
}

const bool kRegistered = tritonrl::cli::RegisterCommand(
    {"serve", "HTTP API: verify, evaluate and reward samples for other RL engines",
     [](CLI::App& sub) {
       auto f = std::make_shared<ServeFlags>();
       auto& c = f->config;
       auto& sc = c.scoring;
       sub.add_option("--tasks", sc.tasks, "The served task suite (task ids resolve only here)")
           ->required();
       sub.add_option("--state-dir", c.state_dir,
                      "Job files and the default results store; a restarted server resumes "
                      "its jobs from here")
           ->capture_default_str();
       sub.add_option("--db", sc.db, "Results store (default: STATE_DIR/results.db)");
       sub.add_option("--device", sc.device, "auto, cpu or cuda")->capture_default_str();
       sub.add_option("--jobs", sc.jobs, "Worker processes, shared by all requests")
           ->check(CLI::PositiveNumber)
           ->capture_default_str();
       sub.add_option(
              "--prestart-workers", sc.prestart_workers,
              "workers started ahead of their samples (spawned, sandboxed and, on the GPU, with "
              "their CUDA context made; each runs one sample): -1 one per job, 0 off; "
              "docs/eval.md, \"Pre-started workers\"")
           ->capture_default_str();
       sub.add_flag("--keep-idle-workers", sc.keep_idle_workers,
                    "keep the pre-started workers between requests (each holds a worker's base "
                    "memory while idle; on the GPU a CUDA context, about 500 MB)");
       sub.add_option("--policy", sc.policy, "Static policy: standard or strict")
           ->check(CLI::IsMember({"standard", "strict"}))
           ->capture_default_str();
       sub.add_option("--trials", sc.trials, "Correctness trials per variant (at least 5)")
           ->capture_default_str();
       sub.add_option("--large-output-mb", sc.large_output_mb,
                      "A variant with outputs this large (MiB) runs --large-trials trials (0: off)")
           ->capture_default_str();
       sub.add_option("--large-trials", sc.large_trials, "Correctness trials of the large variant")
           ->capture_default_str();
       sub.add_option("--variants", sc.variants,
                      "Comma-separated variants to run, of those each task has (default: cpu "
                      "small, cuda all)")
           ->delimiter(',');
       sub.add_option("--reference-keep-s", sc.reference_keep_s,
                      "Seconds a task's reference (and its secret seeds) serves later requests "
                      "(0: every request runs its own)")
           ->check(CLI::NonNegativeNumber)
           ->capture_default_str();
       sub.add_option("--timing-trials", sc.timing_trials, "Timed calls per side (GPU)")
           ->capture_default_str();
       sub.add_option("--baseline", sc.baseline, "eager or compile")->capture_default_str();
       sub.add_flag("--no-timing", sc.no_timing, "Skip the timing stage (no speedups)");
       sub.add_option("--stage-timeout", sc.stage_timeout_s,
                      "Seconds per import, build and trial stage (0: the engine's defaults)")
           ->capture_default_str();
       sub.add_option("--idle-timeout", sc.idle_timeout_s,
                      "GPU: seconds a candidate's stage may pass with no progress and no Triton "
                      "compile (0: off)")
           ->capture_default_str();
       sub.add_flag(
           "--no-cache", [&sc](int64_t) { sc.use_cache = false; },
           "Never reuse verdicts of identical earlier work");
       sub.add_option("--python", sc.python, "The runner's Python interpreter");
       sub.add_option("--runner", sc.runner, "Folder holding tritonrl_runner/");
       sub.add_option("--work-dir", sc.work_dir, "Workers' private folders");
       sub.add_option("--max-active-jobs", c.max_active_jobs,
                      "Jobs (evaluate and reward requests) running at once; more get 503")
           ->check(CLI::PositiveNumber)
           ->capture_default_str();
       sub.add_option("--host", c.http.host, "Address to bind; any non-loopback one needs --token")
           ->capture_default_str();
       sub.add_option("--port", c.http.port, "TCP port; 0 picks a free one (see --port-file)")
           ->capture_default_str();
       sub.add_option("--port-file", c.port_file, "Write the bound port here once listening");
       auto* tok = sub.add_option("--token", c.http.token,
                                  "Bearer token clients must send (also TRITONRL_SERVE_TOKEN)");
       sub.add_option("--token-file", f->token_file, "Read the bearer token from this file")
           ->excludes(tok);
       sub.add_option("--threads", c.http.threads, "Requests answered at once")
           ->check(CLI::Range(1, 1024))
           ->capture_default_str();
       sub.add_option("--max-body-mb", f->max_body_mb, "Largest request body")
           ->capture_default_str();
       sub.add_option("--max-text-kb", f->max_text_kb, "Largest output or code of one sample")
           ->capture_default_str();
       sub.add_option("--max-verify-batch", c.limits.max_verify_batch,
                      "Most samples in one /v1/verify request")
           ->capture_default_str();
       sub.add_option("--max-eval-batch", c.limits.max_eval_batch,
                      "Most samples in one /v1/evaluate request")
           ->capture_default_str();
       sub.add_option("--max-group", c.limits.max_group, "Most rollouts in one /v1/reward request")
           ->capture_default_str();
       sub.add_option("--request-timeout", f->request_timeout_s,
                      "Seconds a synchronous request (reward, completions) may take")
           ->capture_default_str();
       sub.add_option("--socket-timeout", f->socket_timeout_s,
                      "Seconds to read a request or write a reply")
           ->capture_default_str();
       sub.add_option("--shutdown-grace", f->shutdown_grace_s,
                      "On SIGTERM, seconds running jobs get to finish before they are handed "
                      "back to the state folder")
           ->capture_default_str();
       sub.add_option("--model", f->model,
                      "Also serve this policy (a Hugging Face folder or builtin:tiny) as "
                      "/v1/completions and /v1/chat/completions");
       sub.add_option("--model-device", f->model_device,
                      "cpu, cuda or cuda:N (default: cuda if "
                      "available)");
       sub.add_option("--model-dtype", f->model_dtype, "fp32, bf16 or fp16");
       sub.add_option("--served-model-name", f->served_name,
                      "The model name clients use (default: the --model value)");
       sub.add_option("--max-tokens", f->max_tokens, "Largest max_tokens a request may ask for")
           ->check(CLI::PositiveNumber)
           ->capture_default_str();
       return [f]() { return Run(*f); };
     }});

}  // namespace
