#include "process/tokenizer_normalizer.h"

#include <vector>

#include "process/tokenizer_regex.h"
#include "process/unicode_text.h"

namespace hone::process {
namespace {

constexpr std::string_view kSupported =
    "BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace, Prepend, Strip, Sequence";

template <typename Keep>
std::string FilterCodePoints(std::string_view text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t begin = pos;
    if (keep(NextCodePoint(text, &pos))) out.append(text.substr(begin, pos - begin));
  }
  return out;
}

// BERT's cleaning, CJK padding, accent stripping and lowercasing, in that order.
class BertNormalizer final : public Normalizer {
 public:
  BertNormalizer(bool clean_text, bool handle_chinese_chars, bool strip_accents, bool lowercase)
      : clean_text_(clean_text), chinese_(handle_chinese_chars), strip_accents_(strip_accents),
        lowercase_(lowercase) {}

  Status Normalize(std::string* text) const override {
    if (clean_text_ || chinese_) {
      std::string out;
      out.reserve(text->size());
      size_t pos = 0;
      while (pos < text->size()) {
        const char32_t cp = NextCodePoint(*text, &pos);
        if (clean_text_ && (cp == 0 || cp == 0xFFFD || IsControl(cp))) continue;
        if (clean_text_ && IsWhitespace(cp)) {
          out.push_back(' ');
        } else if (chinese_ && IsChineseChar(cp)) {
          out.push_back(' ');
          AppendUtf8(cp, &out);
          out.push_back(' ');
        } else {
          AppendUtf8(cp, &out);
        }
      }
      *text = std::move(out);
    }
    if (strip_accents_) {
      // BERT drops only nonspacing marks (Mn) after NFD; spacing vowel signs (Mc) stay.
      *text = FilterCodePoints(process::Normalize(*text, NormalForm::kNfd),
                               [](char32_t cp) { return !IsNonspacingMark(cp); });
    }
    if (lowercase_) *text = Lowercase(*text);
    return Status::Ok();
  }

 private:
  bool clean_text_, chinese_, strip_accents_, lowercase_;
};

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
  Status Normalize(std::string* text) const override {
    *text = process::Normalize(*text, form_);
    return Status::Ok();
  }

 private:
  NormalForm form_;
};

class LowercaseNormalizer final : public Normalizer {
 public:
  Status Normalize(std::string* text) const override {
    *text = Lowercase(*text);
    return Status::Ok();
  }
};

// Drops every combining mark (M*) as it stands; it does not decompose first (pair it with NFD/NFKD for that).
class StripAccentsNormalizer final : public Normalizer {
 public:
  Status Normalize(std::string* text) const override {
    *text = FilterCodePoints(*text, [](char32_t cp) { return !IsMark(cp); });
    return Status::Ok();
  }
};

class ReplaceNormalizer final : public Normalizer {
 public:
  ReplaceNormalizer(std::unique_ptr<Pattern> pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  Status Normalize(std::string* text) const override {
    std::vector<Pattern::Match> matches;
    HONE_RETURN_IF_ERROR(pattern_->FindAll(*text, &matches));
    if (matches.empty()) return Status::Ok();
    std::string out;
    size_t prev = 0;
    for (const auto& [begin, end] : matches) {
      out.append(*text, prev, begin - prev);
      out.append(content_);
      prev = end;
    }
    out.append(*text, prev);
    *text = std::move(out);
    return Status::Ok();
  }

 private:
  std::unique_ptr<Pattern> pattern_;
  std::string content_;
};

class PrependNormalizer final : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  Status Normalize(std::string* text) const override {
    if (!text->empty()) text->insert(0, prefix_);  // tokenizers leaves an empty text empty
    return Status::Ok();
  }

 private:
  std::string prefix_;
};

class StripNormalizer final : public Normalizer {
 public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  Status Normalize(std::string* text) const override {
    size_t begin = 0, end = text->size();
    if (left_) {
      size_t pos = 0;
      while (pos < end) {
        const size_t at = pos;
        if (!IsWhitespace(NextCodePoint(*text, &pos))) {
          pos = at;
          break;
        }
      }
      begin = pos;
    }
    if (right_) {
      while (end > begin) {
        size_t at = end - 1;
        while (at > begin && (static_cast<unsigned char>((*text)[at]) & 0xC0) == 0x80) --at;
        size_t pos = at;
        if (!IsWhitespace(NextCodePoint(*text, &pos))) break;
        end = at;
      }
    }
    *text = text->substr(begin, end - begin);
    return Status::Ok();
  }

 private:
  bool left_, right_;
};

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  Status Normalize(std::string* text) const override {
    for (const auto& part : parts_) HONE_RETURN_IF_ERROR(part->Normalize(text));
    return Status::Ok();
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace

Result<std::unique_ptr<Normalizer>> ParseNormalizer(const Json& json, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const std::string type, ComponentType(json, path));
  if (type == "BertNormalizer") {
    HONE_ASSIGN_OR_RETURN(const bool clean, OptionalBool(json, "clean_text", path, true));
    HONE_ASSIGN_OR_RETURN(const bool chinese, OptionalBool(json, "handle_chinese_chars", path, true));
    HONE_ASSIGN_OR_RETURN(const bool lowercase, OptionalBool(json, "lowercase", path, true));
    // strip_accents: null means "as lowercase says".
    HONE_ASSIGN_OR_RETURN(const bool strip, OptionalBool(json, "strip_accents", path, lowercase));
    return std::unique_ptr<Normalizer>(new BertNormalizer(clean, chinese, strip, lowercase));
  }
  if (type == "NFC") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(NormalForm::kNfc));
  if (type == "NFD") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(NormalForm::kNfd));
  if (type == "NFKC") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(NormalForm::kNfkc));
  if (type == "NFKD") return std::unique_ptr<Normalizer>(new UnicodeNormalizer(NormalForm::kNfkd));
  if (type == "Lowercase") return std::unique_ptr<Normalizer>(new LowercaseNormalizer());
  if (type == "StripAccents") return std::unique_ptr<Normalizer>(new StripAccentsNormalizer());
  if (type == "Replace") {
    HONE_ASSIGN_OR_RETURN(const Json* pattern_json, RequiredField(json, "pattern", path));
    HONE_ASSIGN_OR_RETURN(auto pattern, ParsePatternJson(*pattern_json, JsonPath(path, "pattern")));
    HONE_ASSIGN_OR_RETURN(std::string content, RequiredString(json, "content", path));
    return std::unique_ptr<Normalizer>(new ReplaceNormalizer(std::move(pattern), std::move(content)));
  }
  if (type == "Prepend") {
    HONE_ASSIGN_OR_RETURN(std::string prefix, RequiredString(json, "prepend", path));
    return std::unique_ptr<Normalizer>(new PrependNormalizer(std::move(prefix)));
  }
  if (type == "Strip") {
    HONE_ASSIGN_OR_RETURN(const bool left, OptionalBool(json, "strip_left", path, true));
    HONE_ASSIGN_OR_RETURN(const bool right, OptionalBool(json, "strip_right", path, true));
    return std::unique_ptr<Normalizer>(new StripNormalizer(left, right));
  }
  if (type == "Sequence") {
    HONE_ASSIGN_OR_RETURN(const Json* list, RequiredArray(json, "normalizers", path));
    std::vector<std::unique_ptr<Normalizer>> parts;
    for (size_t i = 0; i < list->size(); ++i) {
      HONE_ASSIGN_OR_RETURN(auto part, ParseNormalizer((*list)[i], JsonPath(JsonPath(path, "normalizers"), i)));
      parts.push_back(std::move(part));
    }
    return std::unique_ptr<Normalizer>(new SequenceNormalizer(std::move(parts)));
  }
  return UnsupportedType(path, type, kSupported);
}

}  // namespace hone::process
