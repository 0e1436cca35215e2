#include "data/kernelbench_prompt.h"

#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/file.h"
#include "base/sha256.h"
#include "base/spawn.h"

namespace tritonrl::data {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kPromptsToml = "src/kernelbench/prompts/prompts.toml";

// Python's str.strip() for the ASCII whitespace the templates hold.
std::string Strip(const std::string& s) {
  const char* ws = " \t\n\r\v\f";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// The node at a dotted path of the TOML, a string (PromptConfig.compose_blocks' lookup).
Result<std::string> TomlString(const json& toml, const std::string& dotted) {
  const json* node = &toml;
  std::istringstream parts(dotted);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node->is_object() || !node->contains(part))
      return Status::InvalidArgument(fmt::format("{}: no [{}]", kPromptsToml, dotted));
    node = &(*node)[part];
  }
  if (!node->is_string())
    return Status::InvalidArgument(fmt::format("{}: [{}] is not a string", kPromptsToml, dotted));
  return node->get<std::string>();
}

// compose_blocks([key]): the template stripped, with one newline.
Result<std::string> Block(const json& toml, const std::string& dotted) {
  auto s = TomlString(toml, dotted);
  if (!s.ok()) return s.status();
  return Strip(*s) + "\n";
}

// Reads a checkout file named relative to its root (KernelBench's resolve_path) and records its
// hash.
Result<std::string> ReadCheckoutFile(KernelBenchPrompt& p, const std::string& rel) {
  auto text = ReadFile((fs::path(p.checkout) / rel).string());
  if (!text.ok())
    return Status::NotFound(
        fmt::format("KernelBench checkout {}: {}", p.checkout, text.status().message()));
  p.files[rel] = Sha256Hex(*text);
  return text;
}

// prompts.toml as JSON, parsed by Python's tomllib in a child of the runner's interpreter.
Result<json> ParseToml(const std::string& python, const std::string& path) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Status::IoError("pipe failed");
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return Status::IoError("pipe failed");
  }
  ExecSpec exec;
  exec.argv = {python, "-c",
               "import json, sys, tomllib\n"
               "json.dump(tomllib.load(open(sys.argv[1], 'rb')), sys.stdout)\n",
               path};
  exec.env = {"LC_ALL=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"};
  exec.fds = {{1, out[1]}, {2, err[1]}};
  auto pid = ForkExec(exec);
  close(out[1]);
  close(err[1]);
  auto drain = [](int fd) {
    std::string s;
    char buf[65536];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      s.append(buf, static_cast<size_t>(n));
    }
    close(fd);
    return s;
  };
  const std::string text = drain(out[0]);
  const std::string error = drain(err[0]);
  if (!pid.ok()) return pid.status();
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::InvalidArgument(
        fmt::format("{}: {} could not read it: {}", path, python, error.substr(0, 2000)));
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return Status::Internal(path + ": tomllib gave no table");
  return j;
}

// The examples block's two fields (render_prompt_by_option's requires_example branch).
Status RenderExamples(KernelBenchPrompt& p, const json& backend_data, const std::string& display,
                      const std::string& requires_example) {
  auto entry_template = TomlString(p.toml, "templates.common.example_entry_template");
  auto one = TomlString(p.toml, "templates.common.example_intro_one_shot");
  auto few = TomlString(p.toml, "templates.common.example_intro_few_shot");
  for (const auto* r : {&entry_template, &one, &few})
    if (!r->ok()) return r->status();
  const json bd = {{"backend_display", display}};
  auto intro_one = FormatNamed(Strip(*one), bd);
  auto intro_few = FormatNamed(Strip(*few), bd);
  if (!intro_one.ok()) return intro_one.status();
  if (!intro_few.ok()) return intro_few.status();
  std::vector<std::pair<std::string, std::string>> pairs;  // (input file, output file)
  p.examples_intro = *intro_one;
  const json few_shot = backend_data.value("few_shot_examples", json::array());
  // few_shot falls back to the one-shot example where the backend has none (Triton has none).
  const bool numbered = requires_example == "few_shot" && few_shot.is_array() && !few_shot.empty();
  if (numbered) {
    p.examples_intro = *intro_few;
    for (const auto& e : few_shot) pairs.emplace_back(e.at(0), e.at(1));
  } else {
    std::string input = backend_data.value("few_shot_example_arch", "");
    if (input.empty()) input = p.toml["shared"].value("few_shot_example_arch", "");
    pairs.emplace_back(input, backend_data.value("one_shot_new_arch", ""));
  }
  std::vector<std::string> entries;
  for (size_t i = 0; i < pairs.size(); ++i) {
    auto in = ReadCheckoutFile(p, pairs[i].first);
    if (!in.ok()) return in.status();
    auto out = ReadCheckoutFile(p, pairs[i].second);
    if (!out.ok()) return out.status();
    const std::string label = numbered ? fmt::format("Example {}:", i + 1) : "Example:";
    auto entry = FormatNamed(Strip(*entry_template), {{"example_label", label},
                                                      {"input_code", *in},
                                                      {"output_code", *out},
                                                      {"backend_display", display}});
    if (!entry.ok()) return entry.status();
    entries.push_back(*entry);
  }
  std::string joined;
  for (size_t i = 0; i < entries.size(); ++i) joined += (i ? "\n\n" : "") + entries[i];
  p.examples_entries = Strip(joined);
  return Status::Ok();
}

}  // namespace

Result<std::string> FormatNamed(const std::string& text, const json& context) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c == '}') return Status::InvalidArgument("single '}' in a template");
    if (c != '{') {
      out += c;
      continue;
    }
    const size_t end = text.find('}', i);
    if (end == std::string::npos) return Status::InvalidArgument("unclosed '{' in a template");
    const std::string name = text.substr(i + 1, end - i - 1);
    if (name.empty() || name.find_first_of("!:[.{ ") != std::string::npos ||
        std::isdigit(static_cast<unsigned char>(name[0])))
      return Status::InvalidArgument("template field {" + name + "} is not a plain name");
    if (!context.contains(name) || !context[name].is_string())
      return Status::InvalidArgument("template field {" + name + "} has no value");
    out += context[name].get<std::string>();
    i = end;
  }
  return out;
}

std::string GitHead(const std::string& checkout) {
  const fs::path git = fs::path(checkout) / ".git";
  auto head = ReadFile((git / "HEAD").string());
  if (!head.ok()) return "";
  std::string h = Strip(*head);
  if (h.rfind("ref: ", 0) != 0) return h;
  const std::string ref = h.substr(5);
  if (auto loose = ReadFile((git / ref).string()); loose.ok()) return Strip(*loose);
  std::ifstream packed(git / "packed-refs");
  for (std::string line; std::getline(packed, line);) {
    if (line.size() > 41 && line.substr(41) == ref) return line.substr(0, 40);
  }
  return "";
}

Result<KernelBenchPrompt> LoadKernelBenchPrompt(const std::string& checkout,
                                                const std::string& python,
                                                const std::string& backend,
                                                const std::string& option) {
  KernelBenchPrompt p;
  p.checkout = checkout;
  p.backend = backend;
  p.option = option;
  p.commit = GitHead(checkout);
  auto raw = ReadCheckoutFile(p, kPromptsToml);
  if (!raw.ok()) return raw.status();
  auto toml = ParseToml(python, (fs::path(checkout) / kPromptsToml).string());
  if (!toml.ok()) return toml.status();
  p.toml = std::move(*toml);
  const json& backends = p.toml.value("backends", json::object());
  const json& options = p.toml.value("options", json::object());
  if (!backends.contains(backend))
    return Status::InvalidArgument(fmt::format("{}: no backend {}", kPromptsToml, backend));
  if (!options.contains(option))
    return Status::InvalidArgument(fmt::format("{}: no option {}", kPromptsToml, option));
  const json& od = options[option];
  for (const auto& c : od.value("components", json::array()))
    if (c.is_string() && c.get<std::string>().rfind("hardware_", 0) == 0)
      return Status::InvalidArgument(fmt::format(
          "{}: option {} needs the hardware blocks (KernelBench's gpu_specs.py), which bench "
          "does not run: write the prompt with KernelBench and pass it as --prompt-template",
          kPromptsToml, option));
  if (od.value("requires_gpu", false))
    return Status::InvalidArgument(
        fmt::format("{}: option {} requires a GPU description; use "
                    "--prompt-template",
                    kPromptsToml, option));
  const std::string requires_example = od.value("requires_example", "");
  if (!requires_example.empty()) {
    const json& bd = backends[backend];
    TRITONRL_RETURN_IF_ERROR(
        RenderExamples(p, bd, bd.value("backend_display", backend), requires_example));
  }
  return p;
}

Result<std::string> RenderKernelBenchPrompt(const KernelBenchPrompt& p,
                                            const std::string& ref_arch_src,
                                            const std::string& precision) {
  const json& bd = p.toml["backends"][p.backend];
  const json& od = p.toml["options"][p.option];
  const std::string display = bd.value("backend_display", p.backend);
  const json shared = p.toml.value("shared", json::object());
  auto problem = FormatNamed(shared.value("problem_statement", ""), {{"backend_display", display}});
  auto instruction = FormatNamed(shared.value("instruction", ""), {{"backend_display", display}});
  if (!problem.ok()) return problem.status();
  if (!instruction.ok()) return instruction.status();
  const json prec = p.toml.value("precision", json::object());
  if (!prec.contains(precision))
    return Status::InvalidArgument("unknown precision " + precision + " (fp32, fp16, bf16)");
  std::string backend_word = p.backend;  // "Triton": capitalize() of a lower-case name
  if (!backend_word.empty()) backend_word[0] = static_cast<char>(std::toupper(backend_word[0]));
  json context = {{"ref_arch_src", ref_arch_src},
                  {"backend", backend_word},
                  {"backend_display", display},
                  {"problem_statement", *problem},
                  {"instruction", *instruction},
                  {"precision_display", prec[precision].value("precision_display", precision)}};
  if (!od.value("requires_example", "").empty()) {
    context["examples_intro"] = p.examples_intro;
    context["examples_entries"] = p.examples_entries;
  }
  std::string joined;
  bool first = true;
  for (const auto& c : od.value("components", json::array())) {
    const std::string name = c.get<std::string>();
    std::string part;
    if (name == "problem_statement" || name == "instruction") {
      part = context[name].get<std::string>();
    } else {
      auto block = Block(p.toml, "templates.common." + name);
      if (!block.ok()) return block.status();
      part = *block;
    }
    joined += (first ? "" : "\n") + part;
    first = false;
  }
  auto text = FormatNamed(Strip(joined) + "\n", context);
  if (!text.ok()) return text.status();
  return Strip(*text) + "\n";
}

}  // namespace tritonrl::data
