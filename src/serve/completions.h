// The policy served as an OpenAI-compatible API, as vLLM's OpenAI server speaks it: POST
// /v1/completions and /v1/chat/completions (prompt or messages, n, temperature, top_p, top_k,
// max_tokens, stop, seed, penalties, logprobs, stream) and GET /v1/models. Fields the server
// cannot honour are refused by name (openai_compat.h). Built only with the model module
// (libtorch); the serve core knows these routes only through ServeConfig::extra_routes.
//
// Threads: any number of HTTP threads submit; one generation thread owns the policy and runs
// requests in batches: requests waiting with the same sampling options and no seed are merged
// into one generate call (a request with a seed runs alone, so its seed alone decides its
// samples). A plain request that waits longer than the request timeout gets 504. A streamed one
// gets its text from the generation thread as it is read back (server-sent events on its HTTP
// thread); its client leaving gives its rows up. Nothing survives a restart.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/policy.h"
#include "serve/endpoints.h"
#include "serve/http_server.h"

namespace tritonrl::serve {

struct CompletionsConfig {
  model::PolicyOptions policy;
  std::string served_name;       // the "model" name clients see; default: the --model value
  int64_t max_tokens = 4096;     // largest max_tokens a request may ask for
  int64_t max_n = 64;            // largest n
  int64_t max_prompts = 64;      // prompts in one /v1/completions request
  int64_t max_batch_rows = 256;  // prompts x n merged into one generate call
};

class CompletionsService;

// Loads the policy and starts the generation thread.
Result<std::shared_ptr<CompletionsService>> StartCompletions(const CompletionsConfig& config,
                                                             const ServeContext& ctx);
// The routes; they keep the service alive.
std::vector<Route> CompletionRoutes(std::shared_ptr<CompletionsService> service);

}  // namespace tritonrl::serve
