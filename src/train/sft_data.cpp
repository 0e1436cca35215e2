#include "train/sft_data.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "data/sft.h"
#include "model/chat_template.h"

namespace tritonrl::train {

namespace {

using json = nlohmann::json;

// Fisher-Yates over mt19937_64's specified output (std::shuffle's use of the
// generator is implementation-defined; this order is the same everywhere).
void Shuffle(std::vector<int32_t>& v, std::mt19937_64& rng) {
  for (size_t i = v.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(rng() % i);
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace

Result<std::vector<SftRecord>> ReadSftJsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IoError(path + ": cannot open");
  std::vector<SftRecord> out;
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      return Status::ParseError(where + "not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object()) return Status::InvalidArgument(where + "expected a JSON object");
    for (const char* key : {"prompt", "completion"}) {
      if (!j.contains(key)) {
        return Status::InvalidArgument(where + "missing \"" + key + "\"");
      }
      if (!j[key].is_string()) {
        return Status::InvalidArgument(where + "\"" + key + "\" must be a string");
      }
    }
    out.push_back({j["prompt"].get<std::string>(), j["completion"].get<std::string>(), n});
    if (out.back().completion.empty()) {
      return Status::InvalidArgument(where + "\"completion\" is empty");
    }
  }
  if (out.empty()) return Status::InvalidArgument(path + ": no records");
  return out;
}

Result<std::string> SftPromptText(const model::ChatTemplate& chat, const std::string& prompt) {
  return chat.Apply({{"user", prompt}}, {.add_generation_prompt = true});
}

std::string TaskInstruction(std::string_view reference) {
  return data::PromptFor(reference);
}

Result<std::string> PolicyPrompt(const model::ChatTemplate& chat, std::string_view reference) {
  return SftPromptText(chat, TaskInstruction(reference));
}

Result<std::vector<SftExample>> TokenizeSft(const model::Tokenizer& tok,
                                            const model::ChatTemplate& chat, int32_t end_of_turn_id,
                                            const std::vector<SftRecord>& records,
                                            int64_t max_tokens, TokenizeStats* stats) {
  if (end_of_turn_id < 0 || end_of_turn_id >= tok.vocab_size()) {
    return Status::InvalidArgument("end-of-turn id " + std::to_string(end_of_turn_id) +
                                   " is not a token of the tokenizer");
  }
  TokenizeStats st;
  std::vector<SftExample> out;
  for (const SftRecord& r : records) {
    const std::string at = "line " + std::to_string(r.line) + ": ";
    auto text = SftPromptText(chat, r.prompt);
    if (!text.ok()) return Status::InvalidArgument(at + text.status().message());
    auto p = model::Encode(tok, *text);
    if (!p.ok()) return Status::InvalidArgument(at + "prompt: " + p.status().message());
    // Added tokens (<think>, </think>) are parsed, as when the whole chat is
    // tokenized at once; the prompt and completion are encoded separately, as
    // generation sees them (prompt ids, then sampled ids).
    auto c = model::Encode(tok, r.completion);
    if (!c.ok()) return Status::InvalidArgument(at + "completion: " + c.status().message());
    SftExample e;
    e.line = r.line;
    e.ids = std::move(p->ids);
    e.prompt_tokens = static_cast<int64_t>(e.ids.size());
    if (e.prompt_tokens >= max_tokens) {
      ++st.dropped;
      continue;
    }
    e.ids.insert(e.ids.end(), c->ids.begin(), c->ids.end());
    e.ids.push_back(end_of_turn_id);  // the policy learns to end its turn
    if (static_cast<int64_t>(e.ids.size()) > max_tokens) {
      e.ids.resize(max_tokens);
      ++st.truncated;
    }
    out.push_back(std::move(e));
  }
  if (stats) *stats = st;
  return out;
}

std::vector<std::vector<int32_t>> PlanEpoch(const std::vector<int64_t>& lengths, uint64_t seed,
                                            int64_t epoch, int64_t batch_tokens, bool shuffle,
                                            int64_t window) {
  std::vector<int32_t> order(lengths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(epoch));
  if (shuffle) Shuffle(order, rng);
  std::vector<std::vector<int32_t>> batches;
  for (size_t w = 0; w < order.size(); w += static_cast<size_t>(window)) {
    auto begin = order.begin() + static_cast<std::ptrdiff_t>(w);
    auto end = order.begin() +
               static_cast<std::ptrdiff_t>(std::min(order.size(), w + static_cast<size_t>(window)));
    // Longest first; ties by index, so the order is total.
    std::sort(begin, end, [&](int32_t a, int32_t b) {
      return lengths[a] != lengths[b] ? lengths[a] > lengths[b] : a < b;
    });
    std::vector<int32_t> cur;
    int64_t longest = 0;
    for (auto it = begin; it != end; ++it) {
      int64_t len = std::max(longest, lengths[*it]);
      if (!cur.empty() && len * static_cast<int64_t>(cur.size() + 1) > batch_tokens) {
        batches.push_back(std::move(cur));
        cur.clear();
        len = lengths[*it];
      }
      cur.push_back(*it);
      longest = len;
    }
    if (!cur.empty()) batches.push_back(std::move(cur));
  }
  if (shuffle) {
    std::vector<int32_t> idx(batches.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>(i);
    Shuffle(idx, rng);
    std::vector<std::vector<int32_t>> shuffled;
    for (int32_t i : idx) shuffled.push_back(std::move(batches[i]));
    batches = std::move(shuffled);
  }
  return batches;
}

}  // namespace tritonrl::train
