// Byte-pair encoding: a word starts as its characters (each looked up in the vocabulary, with byte fallback or the
// unknown token for those missing) and adjacent pairs are merged, lowest merge rank first and leftmost first among
// equal ranks, until no listed merge applies. O(n log n) in the word's length.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "process/tokenizer_model.h"
#include "process/tokenizer_vocab.h"

namespace hone::process {

class BpeModel final : public Model {
 public:
  // Reads {"type": "BPE", "vocab": {...}, "merges": ["a b", ...] or [["a", "b"], ...], "unk_token",
  // "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk", "byte_fallback", "ignore_merges", "dropout"}.
  // A dropout above 0 makes encoding random, so it is rejected.
  static Result<std::unique_ptr<Model>> FromJson(const Json& json, std::string_view path);

  Status Tokenize(std::string_view word, std::vector<Token>* out) const override;
  std::optional<int64_t> TokenToId(std::string_view token) const override { return vocab_.Find(token); }
  std::optional<std::string_view> IdToToken(int64_t id) const override { return vocab_.Token(id); }
  size_t VocabSize() const override { return vocab_.size(); }

  // Pairs of adjacent symbols Tokenize has looked up in the merges on the calling thread so far: the work words
  // cost, which tests bound without a clock (a word of n characters takes O(n) lookups here; a merge loop that
  // rescanned the word after each merge would take O(n^2)).
  static uint64_t PairLookupsOnThisThread();

 private:
  struct Merge {
    uint32_t rank;
    int64_t new_id;
  };
  static uint64_t PairKey(int64_t a, int64_t b) { return (static_cast<uint64_t>(a) << 32) | static_cast<uint64_t>(b); }
  const Merge* FindMerge(int64_t a, int64_t b) const {
    auto it = merges_.find(PairKey(a, b));
    return it == merges_.end() ? nullptr : &it->second;
  }
  Status ParseMerges(const Json& merges, std::string_view path);

  Vocab vocab_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::optional<std::string> unk_token_;
  std::string prefix_;  // continuing_subword_prefix, "" for none
  std::string suffix_;  // end_of_word_suffix, "" for none
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
};

}  // namespace hone::process
