// Choosing the sandbox a machine allows: feature names and the probe itself,
// run for real (the venv's interpreter inside the sandbox).
#include "eval/sandbox_check.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace tritonrl::eval {
namespace {

namespace fs = std::filesystem;

TEST(SandboxCheckTest, FeaturesSwitchOffByName) {
  SandboxOptions o;
  o.address_space_bytes = 1 << 30;
  ASSERT_TRUE(DisableSandboxFeatures(o, "netns,,caps").ok());
  EXPECT_FALSE(o.net_namespace);
  EXPECT_FALSE(o.drop_capabilities);
  EXPECT_TRUE(o.pid_namespace && o.seccomp && o.private_proc && o.read_only_fs);
  EXPECT_EQ(o.address_space_bytes, 1u << 30);
  ASSERT_TRUE(DisableSandboxFeatures(o, "pidns,rlimits,rofs,seccomp").ok());
  EXPECT_FALSE(o.pid_namespace);
  EXPECT_FALSE(o.private_proc);  // a fresh /proc belongs to the PID namespace
  EXPECT_FALSE(o.read_only_fs);
  EXPECT_FALSE(o.seccomp);
  EXPECT_EQ(o.address_space_bytes, 0u);
}

TEST(SandboxCheckTest, UnknownFeatureIsAnError) {
  SandboxOptions o;
  const Status s = DisableSandboxFeatures(o, "pidns,selinux");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'selinux'"), std::string::npos) << s.message();
  for (const auto& name : SandboxFeatureNames()) {
    EXPECT_TRUE(DisableSandboxFeatures(o, name).ok()) << name;
  }
}

EngineConfig CpuConfig(const fs::path& work) {
  EngineConfig cfg;
  cfg.python = TRITONRL_VENV_PYTHON;
  cfg.runner_dir = std::string(TRITONRL_SOURCE_DIR) + "/python";
  cfg.work_dir = work.string();
  cfg.device = "cpu";
  cfg.sandbox.forbid_fork = true;
  auto prog = BuildSeccompProgram(true);
  if (prog.ok()) cfg.seccomp_program = *prog;
  return cfg;
}

TEST(SandboxCheckTest, CpuProbePassesUnderTheFullSandbox) {
  const fs::path work = fs::temp_directory_path() / ("tritonrl-probe-" + std::to_string(getpid()));
  const EngineConfig cfg = CpuConfig(work);
  const SandboxChoice choice = ChooseSandbox(cfg);
  fs::remove_all(work);
  ASSERT_TRUE(choice.ok);
  ASSERT_EQ(choice.tried.size(), 1u) << choice.tried.back().detail;
  EXPECT_EQ(choice.tried[0].dropped, "");
  EXPECT_EQ(choice.tried[0].detail, "ok started");
  if (getuid() == 0) {
    EXPECT_EQ(choice.tried[0].report.Level(), "full");
  }
}

TEST(SandboxCheckTest, FallsBackToTheFirstSettingThatWorks) {
  // An address-space limit too small for the interpreter stands in for a feature a platform
  // refuses: the probe fails with it, passes without any sandbox, and the choice drops exactly it.
  const fs::path work = fs::temp_directory_path() / ("tritonrl-probe3-" + std::to_string(getpid()));
  EngineConfig cfg = CpuConfig(work);
  cfg.sandbox.address_space_bytes = 2ull << 20;
  const SandboxChoice choice = ChooseSandbox(cfg);
  fs::remove_all(work);
  ASSERT_TRUE(choice.ok);
  ASSERT_GE(choice.tried.size(), 2u);
  EXPECT_FALSE(choice.tried.front().ok);
  EXPECT_EQ(choice.tried.front().dropped, "");
  EXPECT_EQ(choice.tried.back().dropped, "rlimits");
  EXPECT_TRUE(choice.tried.back().ok);
  EXPECT_EQ(choice.options.address_space_bytes, 0u);
  EXPECT_TRUE(choice.options.seccomp && choice.options.pid_namespace);  // nothing else given up
  for (std::size_t i = 1; i + 1 < choice.tried.size(); ++i) EXPECT_FALSE(choice.tried[i].ok);
}

TEST(SandboxCheckTest, ProbeFailureIsReportedWithTheWorkersOutput) {
  // A CUDA probe on a machine without a GPU fails; its message names the cause.
  const fs::path work = fs::temp_directory_path() / ("tritonrl-probe2-" + std::to_string(getpid()));
  EngineConfig cfg = CpuConfig(work);
  cfg.device = "cuda";
  cfg.extra_env = {"CUDA_VISIBLE_DEVICES="};  // hides any device this machine may have
  const SandboxProbe probe = RunSandboxProbe(cfg, cfg.sandbox, "");
  fs::remove_all(work);
  EXPECT_FALSE(probe.ok);
  EXPECT_NE(probe.detail.find("exit code 1"), std::string::npos) << probe.detail;
  EXPECT_TRUE(probe.detail.find("libcuda") != std::string::npos ||
              probe.detail.find("cuDeviceGetCount") != std::string::npos ||
              probe.detail.find("cuInit") != std::string::npos)
      << probe.detail;
}

}  // namespace
}  // namespace tritonrl::eval
