#include "process/wordpiece_model.h"

#include "process/unicode_text.h"

namespace hone::process {

Result<std::unique_ptr<Model>> WordPieceModel::FromJson(const Json& json, std::string_view path) {
  std::unique_ptr<WordPieceModel> m(new WordPieceModel());
  HONE_ASSIGN_OR_RETURN(const Json* vocab, RequiredField(json, "vocab", path));
  HONE_ASSIGN_OR_RETURN(m->vocab_, Vocab::FromJson(*vocab, JsonPath(path, "vocab")));
  HONE_ASSIGN_OR_RETURN(auto unk, OptionalString(json, "unk_token", path));
  m->unk_token_ = unk.value_or("[UNK]");
  HONE_ASSIGN_OR_RETURN(auto prefix, OptionalString(json, "continuing_subword_prefix", path));
  m->prefix_ = prefix.value_or("##");
  HONE_ASSIGN_OR_RETURN(auto max_chars, OptionalInt(json, "max_input_chars_per_word", path));
  if (max_chars.has_value()) {
    if (*max_chars < 0) {
      return Status::InvalidArgument(JsonPath(path, "max_input_chars_per_word") + ": expected >= 0, got " +
                                     std::to_string(*max_chars));
    }
    m->max_chars_ = static_cast<size_t>(*max_chars);
  }
  return std::unique_ptr<Model>(std::move(m));
}

Status WordPieceModel::AppendUnknown(std::string_view word, std::vector<Token>* out) const {
  const auto id = vocab_.Find(unk_token_);
  if (!id.has_value()) {
    return Status::InvalidArgument("WordPiece: unk_token '" + unk_token_ +
                                   "' is not in model.vocab, and the word '" + std::string(word.substr(0, 100)) +
                                   "' needs it");
  }
  out->push_back({*id, unk_token_});
  return Status::Ok();
}

Status WordPieceModel::Tokenize(std::string_view word, std::vector<Token>* out) const {
  if (CodePointCount(word) > max_chars_) return AppendUnknown(word, out);
  const size_t first = out->size();
  std::string candidate;
  size_t start = 0;
  while (start < word.size()) {
    size_t end = word.size();
    std::optional<int64_t> found;
    while (start < end) {
      candidate.clear();
      if (start > 0) candidate.append(prefix_);
      candidate.append(word.substr(start, end - start));
      found = vocab_.Find(candidate);
      if (found.has_value()) break;
      do {  // drop the last character
        --end;
      } while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
    }
    if (!found.has_value()) {
      out->resize(first);
      return AppendUnknown(word, out);
    }
    out->push_back({*found, candidate});
    start = end;
  }
  return Status::Ok();
}

}  // namespace hone::process
