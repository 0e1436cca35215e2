#include "model/bpe_trainer.h"

#include <cstring>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

namespace tritonrl::model {

namespace {

std::string ByteText(uint8_t b) {
  char32_t cp = ByteToCodePoint(b);
  std::string s;
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else {  // the mapping stays below U+0800
    s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return s;
}

uint64_t Key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

struct Word {
  std::vector<int32_t> syms;
  int64_t count = 0;
};

}  // namespace

Result<Tokenizer> TrainByteLevelBpe(const std::vector<std::string>& texts,
                                    const BpeTrainOptions& o) {
  static const char* kAdded[] = {"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>",
                                 "</think>"};
  const int32_t n_added = 5;
  if (o.vocab_size < 256 + n_added) {
    return Status::InvalidArgument("BPE vocabulary size must be at least 261");
  }
  Tokenizer tok;
  TRITONRL_RETURN_IF_ERROR(SetSplitPattern(tok, kQwen2SplitPattern));
  // Words: distinct pieces with their counts (added-token strings are not
  // learned from: they are single tokens anyway).
  std::map<std::string, int64_t> counts;
  for (const std::string& text : texts) {
    std::string clean = text;
    for (const char* a : kAdded) {
      for (size_t p; (p = clean.find(a)) != std::string::npos;) clean.replace(p, strlen(a), "\n");
    }
    auto pieces = PreTokenize(tok, clean);
    if (!pieces.ok()) return pieces.status();
    for (const std::string& p : *pieces) ++counts[p];
  }
  std::vector<Word> words;
  for (const auto& [piece, n] : counts) {
    Word w;
    for (unsigned char c : piece) w.syms.push_back(c);
    w.count = n;
    words.push_back(std::move(w));
  }
  std::unordered_map<uint64_t, int64_t> pair_count;
  std::unordered_map<uint64_t, std::set<int32_t>> pair_words;
  auto add_pairs = [&](int32_t wi, int64_t sign) {
    const Word& w = words[wi];
    for (size_t i = 0; i + 1 < w.syms.size(); ++i) {
      uint64_t k = Key(w.syms[i], w.syms[i + 1]);
      pair_count[k] += sign * w.count;
      if (sign > 0) pair_words[k].insert(wi);
    }
  };
  for (int32_t wi = 0; wi < static_cast<int32_t>(words.size()); ++wi) add_pairs(wi, 1);
  // Max-heap of (count, -key) with lazy deletion: an entry is current only if
  // its count still equals pair_count.
  using Entry = std::pair<int64_t, int64_t>;
  auto cmp = [](const Entry& a, const Entry& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(cmp)> heap(cmp);
  auto push = [&](uint64_t k) {
    int64_t c = pair_count[k];
    if (c > 0) heap.push({c, -static_cast<int64_t>(k)});
  };
  for (const auto& [k, c] : pair_count) push(k);

  std::unordered_map<std::string, int32_t> ids;
  for (int b = 0; b < 256; ++b) {
    tok.id_to_token.push_back(ByteText(static_cast<uint8_t>(b)));
    ids[tok.id_to_token.back()] = b;
  }
  std::vector<std::pair<int32_t, int32_t>> merge_list;
  const int32_t max_tokens = o.vocab_size - n_added;
  while (static_cast<int32_t>(tok.id_to_token.size()) < max_tokens && !heap.empty()) {
    auto [c, negk] = heap.top();
    heap.pop();
    const uint64_t k = static_cast<uint64_t>(-negk);
    if (pair_count[k] != c) continue;  // stale
    if (c < o.min_frequency) break;
    const int32_t a = static_cast<int32_t>(k >> 32), b = static_cast<int32_t>(k & 0xffffffffu);
    // Two merge paths may spell the same string ("ab"+"c", "a"+"bc"): one id.
    const std::string text = tok.id_to_token[a] + tok.id_to_token[b];
    auto [it, fresh] = ids.emplace(text, static_cast<int32_t>(tok.id_to_token.size()));
    const int32_t id = it->second;
    if (fresh) tok.id_to_token.push_back(text);
    merge_list.emplace_back(a, b);
    std::set<int32_t> affected = std::move(pair_words[k]);
    pair_words.erase(k);
    std::set<uint64_t> touched;
    for (int32_t wi : affected) {
      Word& w = words[wi];
      for (size_t i = 0; i + 1 < w.syms.size(); ++i) touched.insert(Key(w.syms[i], w.syms[i + 1]));
      add_pairs(wi, -1);
      std::vector<int32_t> merged;
      for (size_t i = 0; i < w.syms.size(); ++i) {
        if (i + 1 < w.syms.size() && w.syms[i] == a && w.syms[i + 1] == b) {
          merged.push_back(id);
          ++i;
        } else {
          merged.push_back(w.syms[i]);
        }
      }
      w.syms = std::move(merged);
      add_pairs(wi, 1);
      for (size_t i = 0; i + 1 < w.syms.size(); ++i) touched.insert(Key(w.syms[i], w.syms[i + 1]));
    }
    pair_count[k] = 0;
    for (uint64_t t : touched) push(t);
  }
  for (int32_t id = 0; id < static_cast<int32_t>(tok.id_to_token.size()); ++id) {
    tok.token_to_id[tok.id_to_token[id]] = id;
  }
  for (size_t r = 0; r < merge_list.size(); ++r) {
    const auto [a, b] = merge_list[r];
    tok.merges.emplace(Key(a, b),
                       std::make_pair(static_cast<int32_t>(r),
                                      tok.token_to_id.at(tok.id_to_token[a] + tok.id_to_token[b])));
  }
  for (int32_t i = 0; i < n_added; ++i) {
    const int32_t id = tok.vocab_size();
    tok.added_tokens.push_back({kAdded[i], id, /*special=*/i < 3});
    tok.id_to_token.push_back(kAdded[i]);
    tok.token_to_id[kAdded[i]] = id;
  }
  FinalizeTokenizer(tok);
  return tok;
}

}  // namespace tritonrl::model
