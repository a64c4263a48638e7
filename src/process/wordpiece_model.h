// WordPiece (BERT): each word becomes the longest vocabulary prefix, then the longest "##"-prefixed piece of the
// rest, and so on; a word with a piece that matches nothing, or longer than max_input_chars_per_word characters,
// becomes the single unknown token.
#pragma once

#include <memory>
#include <string>

#include "process/tokenizer_model.h"
#include "process/tokenizer_vocab.h"

namespace hone::process {

class WordPieceModel final : public Model {
 public:
  // Reads {"type": "WordPiece", "vocab": {...}, "unk_token": "[UNK]", "continuing_subword_prefix": "##",
  // "max_input_chars_per_word": 100}.
  static Result<std::unique_ptr<Model>> FromJson(const Json& json, std::string_view path);

  Status Tokenize(std::string_view word, std::vector<Token>* out) const override;
  std::optional<int64_t> TokenToId(std::string_view token) const override { return vocab_.Find(token); }
  std::optional<std::string_view> IdToToken(int64_t id) const override { return vocab_.Token(id); }
  size_t VocabSize() const override { return vocab_.size(); }

 private:
  Status AppendUnknown(std::string_view word, std::vector<Token>* out) const;

  Vocab vocab_;
  std::string unk_token_;
  std::string prefix_;
  size_t max_chars_ = 100;
};

}  // namespace hone::process
