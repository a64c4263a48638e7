// Models: turn one pre-tokenized word into tokens of a vocabulary. Supported model "type"s: BPE, WordPiece (a
// tokenizer.json without model.type is read as BPE when it has "merges", else as WordPiece when it has
// "continuing_subword_prefix").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "process/tokenizer_json.h"

namespace hone::process {

struct Token {
  int64_t id;
  std::string value;  // the vocabulary's spelling of the token
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the tokens of `word` (valid UTF-8, not empty). Thread-safe. Fails when the vocabulary lacks the
  // unknown token a word needs, naming both.
  virtual Status Tokenize(std::string_view word, std::vector<Token>* out) const = 0;
  virtual std::optional<int64_t> TokenToId(std::string_view token) const = 0;
  virtual std::optional<std::string_view> IdToToken(int64_t id) const = 0;
  virtual size_t VocabSize() const = 0;
};

// The model described by `json`; `path` names it in errors ("model").
Result<std::unique_ptr<Model>> ParseModel(const Json& json, std::string_view path);

}  // namespace hone::process
