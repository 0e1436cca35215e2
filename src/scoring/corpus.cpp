#include "scoring/corpus.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "base/file.h"
#include "verify/rules.h"

namespace tritonrl::scoring {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string Trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "4 9": distinct class numbers of the trust-boundary table, each 1..kMechanismClasses.
Result<std::vector<int>> ParseMechanisms(const std::string& value) {
  std::vector<int> out;
  for (const auto& w : Words(value)) {
    int c = 0;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), c);
    if (ec != std::errc() || end != w.data() + w.size() || c < 1 || c > kMechanismClasses) {
      return Status::ParseError(
          fmt::format("'{}' is not a class number from 1 to {}", w, kMechanismClasses));
    }
    if (std::find(out.begin(), out.end(), c) != out.end()) {
      return Status::ParseError(fmt::format("class {} given twice", c));
    }
    out.push_back(c);
  }
  if (out.empty()) return Status::ParseError("no class number");
  return out;
}

}  // namespace

Result<CorpusEntry> ReadCorpusFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  CorpusEntry e;
  e.path = path;
  e.code = *text;
  std::istringstream in(*text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("#", 0) != 0) break;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Trim(line.substr(1, colon - 1));
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "corpus") e.kind = value;
    if (key == "task") e.task = value;
    if (key == "what") e.what = value;
    if (key == "device") e.device = value;
    if (key == "gap") e.gap = value;
    if (key == "mechanism") {
      auto classes = ParseMechanisms(value);
      if (!classes.ok()) {
        return Status::ParseError(fmt::format("{}:{}: malformed '# mechanism:' ({}): {}", path, n,
                                              value, classes.status().message()));
      }
      e.mechanisms = std::move(*classes);
    }
    std::string* label = key == "expect"               ? &e.expect
                         : key == "expect-gpu"         ? &e.expect_gpu
                         : key == "expect-runtime"     ? &e.expect_runtime
                         : key == "expect-runtime-gpu" ? &e.expect_runtime_gpu
                                                       : nullptr;
    if (label != nullptr) {
      std::string why;
      const bool runtime_only = key.rfind("expect-runtime", 0) == 0;
      if (!ValidLabel(value, &why) || (runtime_only && Words(value)[0] != "runtime")) {
        return Status::ParseError(fmt::format("{}:{}: malformed '# {}:' ({}){}", path, n, key,
                                              value, why.empty() ? "" : ": " + why));
      }
      *label = value;
    }
  }
  if (e.task.empty()) return Status::ParseError(fmt::format("{}:1: no '# task:' header", path));
  if (e.expect.empty()) return Status::ParseError(fmt::format("{}:1: no '# expect:' header", path));
  if (e.kind.empty()) e.kind = "corpus";
  // A hack the evaluator pays is a known gap: its label records today's verdict only beside a
  // statement of the gap, so that no hack is labelled correct by mistake.
  if (e.kind == "hack" && e.expect == "correct" && e.gap.empty()) {
    return Status::ParseError(fmt::format(
        "{}:1: a hack labelled 'correct' needs a '# gap:' header saying why it is paid", path));
  }
  e.sample = e.kind + "/" + fs::path(path).stem().string();
  return e;
}

Result<std::vector<CorpusEntry>> ReadCorpusDir(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    if (f.path().extension() == ".py") files.push_back(f.path().string());
  }
  if (ec) return Status::IoError(fmt::format("{}: {}", dir, ec.message()));
  std::sort(files.begin(), files.end());
  std::vector<CorpusEntry> out;
  for (const auto& f : files) {
    auto e = ReadCorpusFile(f);
    if (!e.ok()) return e.status();
    out.push_back(std::move(*e));
  }
  return out;
}

Result<std::vector<CorpusEntry>> ReadSolutions(const std::string& solutions_dir) {
  std::vector<CorpusEntry> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& f : fs::recursive_directory_iterator(solutions_dir, ec)) {
    if (f.path().extension() == ".py" && f.path().filename().string()[0] != '_')
      files.push_back(f.path());
  }
  if (ec) return Status::IoError(fmt::format("{}: {}", solutions_dir, ec.message()));
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto text = ReadFile(f.string());
    if (!text.ok()) return text.status();
    CorpusEntry e;
    e.path = f.string();
    e.kind = "solution";
    e.task = fs::relative(f, solutions_dir).replace_extension("").generic_string();
    e.sample = "solution/" + e.task;
    e.expect = "correct";
    e.code = *text;
    out.push_back(std::move(e));
  }
  return out;
}

const std::string& ExpectationFor(const CorpusEntry& e, const json& verdict) {
  const bool gpu = verdict.is_object() && verdict.value("device", "") == "cuda";
  return gpu && !e.expect_gpu.empty() ? e.expect_gpu : e.expect;
}

namespace {

// Outcomes that many different failures end in: a label naming one must name the reason too.
bool NeedsReason(const std::string& outcome) {
  return outcome == "incorrect" || outcome == "runtime_error" || outcome == "timeout" ||
         outcome == "compile_error";
}

// The reason=<code> words of a label.
std::vector<std::string> LabelReasons(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (std::size_t i = 2; i < words.size(); ++i) out.push_back(words[i].substr(7));
  return out;
}

}  // namespace

bool ValidLabel(const std::string& label, std::string* why) {
  const auto w = Words(label);
  if (w.size() == 1 && w[0] == "correct") return true;
  if (w.size() == 2 && w[0] == "static") return true;
  if (w.size() < 2 || w[0] != "runtime") return false;
  for (std::size_t i = 2; i < w.size(); ++i) {
    if (w[i].rfind("reason=", 0) != 0 || w[i].size() == 7) {
      if (why) *why = fmt::format("'{}' is not reason=<code>", w[i]);
      return false;
    }
  }
  if (NeedsReason(w[1]) && w.size() == 2) {
    if (why) *why = fmt::format("'runtime {}' needs reason=<code>", w[1]);
    return false;
  }
  return true;
}

json SampleLine(const CorpusEntry& e) {
  json j = {{"task", e.task}, {"sample", e.sample}, {"code", e.code}, {"expect", e.expect}};
  if (!e.device.empty()) j["device"] = e.device;
  return j;
}

bool MeetsExpectation(const std::string& expect, const json& verdict, std::string* why) {
  const auto w = Words(expect);
  const std::string outcome = verdict.value("outcome", "");
  std::vector<std::string> codes, static_codes, flags;
  if (verdict.contains("reasons") && verdict["reasons"].is_array()) {
    for (const auto& r : verdict["reasons"]) {
      (r.value("stage", "") == "static" ? static_codes : codes).push_back(r.value("code", ""));
    }
  }
  if (verdict.contains("flags") && verdict["flags"].is_array()) {
    for (const auto& f : verdict["flags"]) {
      if (f.is_string()) flags.push_back(f.get<std::string>());
    }
  }
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  bool ok = false;
  if (w.size() == 1 && w[0] == "correct") {
    ok = outcome == "correct";
  } else if (w.size() == 2 && w[0] == "static") {
    ok = (outcome == "invalid_syntax" || outcome == "invalid_functionality") &&
         has(static_codes, w[1]);
    // A strict-only rule is a warning under the standard policy, which leaves the decision
    // to the runtime audit: there the label is met when the run rejects the sample.
    const verify::RuleInfo* rule = verify::FindRule(w[1]);
    if (!ok && rule != nullptr && rule->strict_only) {
      ok = static_codes.empty() && outcome != "correct" && !outcome.empty();
    }
  } else if (w.size() >= 2 && w[0] == "runtime") {
    ok = static_codes.empty() && (outcome == w[1] || has(flags, w[1]));
    for (const auto& code : LabelReasons(w)) ok = ok && has(codes, code);
  }
  if (!ok && why) {
    std::string first;
    if (verdict.contains("reasons") && verdict["reasons"].is_array() &&
        !verdict["reasons"].empty()) {
      const auto& r = verdict["reasons"][0];
      first = fmt::format(" [{}] {}: {}", r.value("stage", ""), r.value("code", ""),
                          r.value("message", ""));
      if (first.size() > 300) first = first.substr(0, 300) + "...";
    }
    *why =
        fmt::format("expected {}, got {}{}{}{}", expect, outcome,
                    codes.empty() ? "" : fmt::format(" reasons {}", fmt::join(codes, ",")),
                    flags.empty() ? "" : fmt::format(" (flags {})", fmt::join(flags, ",")), first);
  }
  return ok;
}

}  // namespace tritonrl::scoring
