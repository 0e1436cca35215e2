#include "verify/batch.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace tritonrl::verify {

SampleFile ParseSampleJsonl(std::string_view content, std::string_view filename) {
  SampleFile file;
  size_t pos = 0;
  int line_no = 0;
  while (pos < content.size()) {
    size_t eol = content.find('\n', pos);
    size_t end = eol == std::string_view::npos ? content.size() : eol;
    std::string_view line = content.substr(pos, end - pos);
    pos = eol == std::string_view::npos ? content.size() : eol + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto fail = [&](const std::string& why) {
      file.error = Status::InvalidArgument(std::string(filename) + ":" + std::to_string(line_no) +
                                           ": " + why);
    };
    nlohmann::json obj = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (obj.is_discarded()) {
      fail("not valid JSON (truncated line?)");
      break;
    }
    if (!obj.is_object()) {
      fail("expected a JSON object");
      break;
    }
    Sample s;
    s.line = line_no;
    s.task = obj.value("task", nlohmann::json(nullptr));
    s.sample = obj.value("sample", nlohmann::json(nullptr));
    if (obj.contains("output") && obj["output"].is_string()) {
      s.text = obj["output"].get<std::string>();
      s.is_output = true;
    } else if (obj.contains("code") && obj["code"].is_string()) {
      s.text = obj["code"].get<std::string>();
      s.is_output = false;
    } else {
      fail("needs a string field \"output\" or \"code\"");
      break;
    }
    file.samples.push_back(std::move(s));
  }
  return file;
}

std::vector<Verdict> VerifySamples(const std::vector<Sample>& samples, const VerifyOptions& options,
                                   unsigned jobs) {
  std::vector<Verdict> verdicts(samples.size());
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, samples.size())));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < samples.size(); i = next.fetch_add(1)) {
      const Sample& s = samples[i];
      verdicts[i] = s.is_output ? VerifyOutput(s.text, options) : VerifyCode(s.text, options);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  return verdicts;
}

nlohmann::json SampleVerdictJson(const Sample& sample, const Verdict& verdict) {
  nlohmann::json j = {{"task", sample.task}, {"sample", sample.sample}};
  j.update(ToJson(verdict));
  return j;
}

}  // namespace tritonrl::verify
