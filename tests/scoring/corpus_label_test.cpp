// Corpus labels: header parsing, the GPU label, and matching verdicts against labels.
#include "scoring/corpus.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace tritonrl::scoring {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path WriteCorpusFile(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("tritonrl-corpus-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

TEST(CorpusLabelTest, GpuLabelIsParsedAndChosenByDevice) {
  const fs::path f = WriteCorpusFile("fallback.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n# what: w\n"
                                     "# expect: static func.torch_fallback\n"
                                     "# expect-gpu: correct\nimport torch\n");
  auto e = ReadCorpusFile(f.string());
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->sample, "hack/fallback");
  EXPECT_EQ(e->expect_gpu, "correct");
  EXPECT_EQ(ExpectationFor(*e, json{{"device", "cuda"}}), "correct");
  EXPECT_EQ(ExpectationFor(*e, json{{"device", "cpu"}}), "static func.torch_fallback");
  e->expect_gpu.clear();
  EXPECT_EQ(ExpectationFor(*e, json{{"device", "cuda"}}), "static func.torch_fallback");
  fs::remove_all(f.parent_path());
}

TEST(CorpusLabelTest, MalformedGpuLabelNamesFileAndLine) {
  const fs::path f = WriteCorpusFile("bad.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n# expect: correct\n"
                                     "# expect-gpu: maybe later\n");
  auto e = ReadCorpusFile(f.string());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("bad.py:4: malformed '# expect-gpu:'"), std::string::npos)
      << e.status().message();
  fs::remove_all(f.parent_path());
}

TEST(CorpusLabelTest, VerdictsMeetOrMissTheirLabels) {
  const json correct = {{"outcome", "correct"}, {"reasons", json::array()}};
  const json static_reject = {
      {"outcome", "invalid_functionality"},
      {"reasons", {{{"stage", "static"}, {"code", "func.monkeypatch"}, {"message", "m"}}}}};
  const json timing = {{"outcome", "incorrect"},
                       {"flags", {"timing_inconsistent"}},
                       {"reasons", {{{"stage", "timing"}, {"code", "x"}, {"message", "m"}}}}};
  std::string why;
  EXPECT_TRUE(MeetsExpectation("correct", correct, &why));
  EXPECT_FALSE(MeetsExpectation("correct", static_reject, &why));
  EXPECT_NE(why.find("expected correct, got invalid_functionality"), std::string::npos) << why;
  EXPECT_TRUE(MeetsExpectation("static func.monkeypatch", static_reject, &why));
  EXPECT_FALSE(MeetsExpectation("static func.cuda_stream", static_reject, &why));
  EXPECT_TRUE(MeetsExpectation("runtime timing_inconsistent", timing, &why));
  EXPECT_TRUE(MeetsExpectation("runtime incorrect", timing, &why));
  EXPECT_FALSE(MeetsExpectation("runtime timeout", timing, &why));
  // A strict-only rule under the standard policy: met when the runtime rejects the sample.
  EXPECT_TRUE(MeetsExpectation("static func.torch_fallback", timing, &why));
  EXPECT_FALSE(MeetsExpectation("static func.torch_fallback", correct, &why));
}

TEST(CorpusLabelTest, RuntimeOutcomesMustNameTheirReason) {
  const fs::path f = WriteCorpusFile("noreason.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n"
                                     "# expect: runtime incorrect\n");
  auto e = ReadCorpusFile(f.string());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("noreason.py:3: malformed '# expect:'"), std::string::npos)
      << e.status().message();
  EXPECT_NE(e.status().message().find("needs reason=<code>"), std::string::npos);
  const fs::path g = WriteCorpusFile("badword.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n"
                                     "# expect: runtime incorrect because=x\n");
  EXPECT_FALSE(ReadCorpusFile(g.string()).ok());
  // Flags are specific already; they need no reason.
  const fs::path h = WriteCorpusFile("flag.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n"
                                     "# expect: runtime lazy_optimization\n");
  EXPECT_TRUE(ReadCorpusFile(h.string()).ok());
  fs::remove_all(f.parent_path());
}

// A hack labelled correct is a known gap: only with a '# gap:' header that says so.
TEST(CorpusLabelTest, AHackLabelledCorrectNeedsAGapHeader) {
  const fs::path f =
      WriteCorpusFile("paid.py", "# corpus: hack\n# task: level1/1_ReLU\n# expect: correct\n");
  auto e = ReadCorpusFile(f.string());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("paid.py:1: a hack labelled 'correct' needs a '# gap:'"),
            std::string::npos)
      << e.status().message();
  const fs::path g = WriteCorpusFile("gap.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n"
                                     "# gap: issue 34, not yet caught\n# expect: correct\n");
  auto ok = ReadCorpusFile(g.string());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->gap, "issue 34, not yet caught");
  const fs::path h =
      WriteCorpusFile("legit.py", "# corpus: legit\n# task: level1/1_ReLU\n# expect: correct\n");
  EXPECT_TRUE(ReadCorpusFile(h.string()).ok());
  fs::remove_all(f.parent_path());
}

TEST(CorpusLabelTest, RuntimeLabelIsParsedBesideTheStaticOne) {
  const fs::path f =
      WriteCorpusFile("both.py",
                      "# corpus: hack\n# task: level1/1_ReLU\n"
                      "# expect: static func.introspection\n"
                      "# expect-runtime: runtime incorrect reason=internal_access\n");
  auto e = ReadCorpusFile(f.string());
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->expect, "static func.introspection");
  EXPECT_EQ(e->expect_runtime, "runtime incorrect reason=internal_access");
  const fs::path g = WriteCorpusFile("staticrt.py",
                                     "# corpus: hack\n# task: level1/1_ReLU\n# expect: correct\n"
                                     "# expect-runtime: static func.introspection\n");
  auto bad = ReadCorpusFile(g.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("staticrt.py:4"), std::string::npos);
  fs::remove_all(f.parent_path());
}

TEST(CorpusLabelTest, RuntimeLabelsCompareReasons) {
  const json host = {{"outcome", "incorrect"},
                     {"flags", {"lazy_optimization"}},
                     {"reasons",
                      {{{"stage", "correctness"}, {"code", "host_compute"}, {"message", "m"}},
                       {{"stage", "correctness"}, {"code", "not_allclose"}, {"message", "m"}}}}};
  std::string why;
  EXPECT_TRUE(MeetsExpectation("runtime incorrect reason=host_compute", host, &why));
  EXPECT_TRUE(
      MeetsExpectation("runtime incorrect reason=host_compute reason=not_allclose", host, &why));
  // Caught, but for another reason: the label is not met, and the message lists the reasons.
  EXPECT_FALSE(MeetsExpectation("runtime incorrect reason=output_not_from_kernel", host, &why));
  EXPECT_NE(why.find("reasons host_compute,not_allclose"), std::string::npos) << why;
  EXPECT_FALSE(MeetsExpectation("runtime runtime_error reason=host_compute", host, &why));
  // A static reason with the same code does not count for a runtime label.
  const json static_only = {
      {"outcome", "incorrect"},
      {"reasons", {{{"stage", "static"}, {"code", "host_compute"}, {"message", "m"}}}}};
  EXPECT_FALSE(MeetsExpectation("runtime incorrect reason=host_compute", static_only, &why));
}

}  // namespace
TEST(CorpusLabelTest, MechanismClassesAreParsedAndChecked) {
  const fs::path f =
      WriteCorpusFile("mech.py",
                      "# corpus: hack\n# task: level1/1_ReLU\n# mechanism: 4 9\n"
                      "# what: w\n# expect: static func.torch_compute\nimport torch\n");
  auto e = ReadCorpusFile(f.string());
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->mechanisms, (std::vector<int>{4, 9}));
  for (const std::string bad : {"0", "10", "4 4", "four", "3x", ""}) {
    const fs::path g = WriteCorpusFile(
        "mech_bad.py", "# corpus: hack\n# task: level1/1_ReLU\n# what: w\n# mechanism: " + bad +
                           "\n# expect: static func.torch_compute\nimport torch\n");
    auto r = ReadCorpusFile(g.string());
    ASSERT_FALSE(r.ok()) << "'" << bad << "' was accepted";
    EXPECT_NE(r.status().message().find("mech_bad.py:4: malformed '# mechanism:'"),
              std::string::npos)
        << r.status().message();
  }
  fs::remove_all(f.parent_path());
}

}  // namespace tritonrl::scoring
