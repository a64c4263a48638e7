// The "added_tokens" of a tokenizer.json: strings (usually special tokens such as [CLS] or <|im_start|>) that are
// found in the text before the model sees it and become one token each.
//
// As in tokenizers, tokens with normalized=false are found in the raw text first; the text between them is
// normalized and then searched for the tokens with normalized=true (their content normalized the same way). At
// each position the longest token wins; single_word tokens only count between non-word characters; lstrip and
// rstrip tokens also take the whitespace on their left or right.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "process/tokenizer_json.h"

namespace hone::process {

class Normalizer;

struct AddedToken {
  int64_t id = 0;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// A stretch of text: either an added token (id set; text is what it matched) or text for the rest of the pipeline.
struct TextSegment {
  std::string text;
  std::optional<int64_t> id;
};

class AddedVocabulary {
 public:
  // Reads the "added_tokens" array (null or missing: none). `normalizer` (may be null) prepares the patterns of
  // normalized tokens; it is not kept.
  static Result<AddedVocabulary> FromJson(const Json* list, std::string_view path, const Normalizer* normalizer);

  // Appends the non-empty segments of raw `text`, split at tokens with normalized=false.
  void SplitRaw(std::string_view text, std::vector<TextSegment>* out) const { Split(raw_, text, out); }
  // Appends the non-empty segments of normalized `text`, split at tokens with normalized=true.
  void SplitNormalized(std::string_view text, std::vector<TextSegment>* out) const {
    Split(normalized_, text, out);
  }

  std::optional<int64_t> TokenToId(std::string_view content) const;
  const AddedToken* FindById(int64_t id) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // Patterns grouped by first byte, longest first, so that the first one that matches is the longest.
  struct Matcher {
    std::vector<std::vector<std::pair<std::string, size_t>>> by_first_byte;  // (pattern, index into tokens_)
    bool empty = true;
  };
  void Split(const Matcher& matcher, std::string_view text, std::vector<TextSegment>* out) const;

  std::vector<AddedToken> tokens_;
  std::unordered_map<std::string, size_t> by_content_;
  std::unordered_map<int64_t, size_t> by_id_;
  Matcher raw_, normalized_;
};

}  // namespace hone::process
