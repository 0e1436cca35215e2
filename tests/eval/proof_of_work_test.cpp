// The engine's check of the run-time guards' evidence in a trial frame (default deny).
#include "eval/proof_of_work.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tritonrl::eval {
namespace {

using nlohmann::json;

json CleanTrial() {
  return {{"outputs", json::array({json::object()})},
          {"output_writers", {"kernel"}},
          {"module_hooks", json::array()},
          {"host_calls", json::array()},
          {"internal_calls", json::array()},
          {"host_steps", json::array({{5, 1}})},
          {"thread_ban", "on"}};
}

std::vector<std::string> Codes(const std::vector<GuardFailure>& f) {
  std::vector<std::string> out;
  for (const auto& x : f) out.push_back(x.code);
  return out;
}

TEST(ProofOfWorkTest, CleanEvidencePasses) {
  GuardEvidence ev;
  EXPECT_TRUE(CheckGuards(CleanTrial(), "small trial 0", &ev).empty());
  EXPECT_EQ(ev.thread_ban, "on");
  EXPECT_EQ(ev.output_writers, std::set<std::string>{"kernel"});
  EXPECT_EQ(ev.host_steps, 5);
}

TEST(ProofOfWorkTest, MissingOrMalformedFieldsFail) {
  for (const char* key : {"output_writers", "module_hooks", "host_calls", "internal_calls"}) {
    json h = CleanTrial();
    h.erase(key);
    GuardEvidence ev;
    const auto f = CheckGuards(h, "t", &ev);
    ASSERT_EQ(Codes(f), std::vector<std::string>{"evidence_missing"}) << key;
    EXPECT_NE(f[0].message.find(key), std::string::npos) << f[0].message;
    h = CleanTrial();
    h[key] = json::array({1});  // not strings
    EXPECT_EQ(Codes(CheckGuards(h, "t", &ev)), std::vector<std::string>{"evidence_missing"});
  }
  for (json bad : {json(), json(5), json::array({5}), json::array({{5}}), json::array({{-1, 0}}),
                   json::array({{5, "1"}}), json::array({{1.5, 1}}), json::array({{1, 2, 3}})}) {
    json h = CleanTrial();
    if (bad.is_null()) {
      h.erase("host_steps");
    } else {
      h["host_steps"] = bad;
    }
    GuardEvidence ev;
    const auto f = CheckGuards(h, "t", &ev);
    ASSERT_EQ(Codes(f), std::vector<std::string>{"evidence_missing"}) << bad.dump();
    EXPECT_NE(f[0].message.find("host_steps"), std::string::npos) << f[0].message;
  }
  json h = CleanTrial();
  h["outputs"] = json::array({json::object(), json::object()});  // two outputs, one writer
  GuardEvidence ev;
  EXPECT_EQ(Codes(CheckGuards(h, "t", &ev)), std::vector<std::string>{"evidence_missing"});
}

// A host table of n values takes about n loop iterations or calls, however it is spelled: more
// steps in one call than its launches' bookkeeping needs is host compute.
TEST(ProofOfWorkTest, HostStepsOverTheBudgetAreHostCompute) {
  json h = CleanTrial();
  h["host_steps"] = json::array({{HostStepBudget(3), 3}});  // at the budget: bookkeeping
  GuardEvidence ev;
  EXPECT_TRUE(CheckGuards(h, "t", &ev).empty());
  EXPECT_EQ(ev.host_steps, kHostStepsBase + 3 * kHostStepsPerLaunch);
  EXPECT_FALSE(ev.torch_did_work);
  // One call of the frame's over it (the timing stage reports each audited call).
  h["host_steps"] = json::array({{10, 0}, {HostStepBudget(3) + 1, 3}, {4000, 1000}});
  GuardEvidence over;
  const auto f = CheckGuards(h, "small trial 2", &over);
  ASSERT_EQ(Codes(f), std::vector<std::string>{"host_compute"});
  EXPECT_NE(f[0].message.find("small trial 2: the candidate's code ran 281 host steps"),
            std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].message.find("with 3 kernel launches"), std::string::npos) << f[0].message;
  EXPECT_EQ(over.host_steps, 4000);  // the most steps of any call, within budget or not
  EXPECT_TRUE(over.torch_did_work);
}

// The import's and each constructor's steps (a stage frame's one pair) have a call's budget.
TEST(ProofOfWorkTest, StageHostStepsHaveACallsBudget) {
  json stage = {{"type", "stage"}, {"stage", "build"}, {"host_steps", json::array({{256, 0}})}};
  EXPECT_TRUE(CheckStageHostSteps(stage, "small constructor").empty());
  stage["host_steps"] = json::array({{257, 0}});
  auto f = CheckStageHostSteps(stage, "small constructor");
  ASSERT_EQ(Codes(f), std::vector<std::string>{"host_compute"});
  EXPECT_NE(f[0].message.find("small constructor: the candidate's code ran 257 host steps (loop "
                              "iterations and function starts) in the import or the constructor"),
            std::string::npos)
      << f[0].message;
  for (json bad : {json(), json::array(), json::array({{1, 0}, {1, 0}}), json::array({{-1, 0}})}) {
    if (bad.is_null()) {
      stage.erase("host_steps");
    } else {
      stage["host_steps"] = bad;
    }
    EXPECT_EQ(Codes(CheckStageHostSteps(stage, "import")),
              std::vector<std::string>{"evidence_missing"})
        << bad.dump();
  }
}

TEST(ProofOfWorkTest, EachViolationHasItsCode) {
  json h = CleanTrial();
  h["output_writers"] = {"torch:clone"};
  h["module_hooks"] = {"model.forward_hooks"};
  h["host_calls"] = {"Tensor.tolist (line 12)"};
  h["internal_calls"] = {"torch._C._DisableTorchDispatch (line 9)"};
  GuardEvidence ev;
  const auto f = CheckGuards(h, "small trial 3", &ev);
  auto codes = Codes(f);
  std::sort(codes.begin(), codes.end());
  EXPECT_EQ(codes, (std::vector<std::string>{"forward_hook", "host_compute", "internal_access",
                                             "output_not_from_kernel"}));
  for (const auto& x : f) EXPECT_EQ(x.message.rfind("small trial 3:", 0), 0u) << x.message;
  EXPECT_EQ(ev.host_calls.count("Tensor.tolist (line 12)"), 1u);
  EXPECT_TRUE(ev.torch_did_work);
}

TEST(ProofOfWorkTest, AStaleOrUnwrittenOutputFails) {
  for (const char* writer : {"none", "alloc"}) {
    json h = CleanTrial();
    h["output_writers"] = {writer};
    GuardEvidence ev;
    EXPECT_EQ(Codes(CheckGuards(h, "t", &ev)), std::vector<std::string>{"output_not_from_kernel"});
    EXPECT_FALSE(ev.torch_did_work);  // nobody computed it: not a lazy optimisation
  }
}

}  // namespace
}  // namespace tritonrl::eval
