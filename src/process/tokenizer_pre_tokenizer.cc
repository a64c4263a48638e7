#include "process/tokenizer_pre_tokenizer.h"

#include <functional>

#include "process/byte_level.h"
#include "process/tokenizer_regex.h"
#include "process/tokenizer_split.h"
#include "process/unicode_text.h"

namespace hone::process {
namespace {

constexpr std::string_view kSupported =
    "BertPreTokenizer, ByteLevel, Split, Digits, Punctuation, Whitespace, WhitespaceSplit, Sequence";

// GPT-2's word pattern, which ByteLevel applies when use_regex is true.
constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// A pre-tokenizer that handles each piece on its own.
class PiecewisePreTokenizer : public PreTokenizer {
 public:
  Status PreTokenize(std::vector<std::string>* pieces) const final {
    std::vector<std::string> out;
    out.reserve(pieces->size() * 2);
    for (const std::string& piece : *pieces) HONE_RETURN_IF_ERROR(SplitPiece(piece, &out));
    *pieces = std::move(out);
    return Status::Ok();
  }

 protected:
  // Appends the non-empty pieces `piece` becomes.
  virtual Status SplitPiece(const std::string& piece, std::vector<std::string>* out) const = 0;
};

class PredicatePreTokenizer final : public PiecewisePreTokenizer {
 public:
  PredicatePreTokenizer(std::function<bool(char32_t)> pred, SplitBehavior behavior)
      : pred_(std::move(pred)), behavior_(behavior) {}

 protected:
  Status SplitPiece(const std::string& piece, std::vector<std::string>* out) const override {
    SplitSpans(piece, SpansFromPredicate(piece, pred_), behavior_, out);
    return Status::Ok();
  }

 private:
  std::function<bool(char32_t)> pred_;
  SplitBehavior behavior_;
};

class PatternPreTokenizer final : public PiecewisePreTokenizer {
 public:
  PatternPreTokenizer(std::unique_ptr<Pattern> pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}

 protected:
  Status SplitPiece(const std::string& piece, std::vector<std::string>* out) const override {
    std::vector<Pattern::Match> matches;
    HONE_RETURN_IF_ERROR(pattern_->FindAll(piece, &matches));
    SplitSpans(piece, SpansFromMatches(piece, matches, invert_), behavior_, out);
    return Status::Ok();
  }

 private:
  std::unique_ptr<Pattern> pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

// Whitespace ends a word and is dropped; each punctuation character is a word of its own.
class BertPreTokenizer final : public PiecewisePreTokenizer {
 protected:
  Status SplitPiece(const std::string& piece, std::vector<std::string>* out) const override {
    size_t pos = 0, word = 0;
    auto flush = [&](size_t end) {
      if (end > word) out->emplace_back(piece, word, end - word);
    };
    while (pos < piece.size()) {
      const size_t begin = pos;
      const char32_t cp = NextCodePoint(piece, &pos);
      if (IsWhitespace(cp)) {
        flush(begin);
        word = pos;
      } else if (IsBertPunctuation(cp)) {
        flush(begin);
        out->emplace_back(piece, begin, pos - begin);
        word = pos;
      }
    }
    flush(piece.size());
    return Status::Ok();
  }
};

class ByteLevelPreTokenizer final : public PiecewisePreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, std::unique_ptr<Pattern> pattern)
      : add_prefix_space_(add_prefix_space), pattern_(std::move(pattern)) {}

 protected:
  Status SplitPiece(const std::string& piece, std::vector<std::string>* out) const override {
    std::string text;
    if (add_prefix_space_ && !piece.empty() && piece[0] != ' ') text.push_back(' ');
    text.append(piece);
    if (pattern_ == nullptr) {
      Emit(text, out);
      return Status::Ok();
    }
    std::vector<Pattern::Match> matches;
    HONE_RETURN_IF_ERROR(pattern_->FindAll(text, &matches));
    std::vector<std::string> words;
    SplitSpans(text, SpansFromMatches(text, matches, false), SplitBehavior::kIsolated, &words);
    for (const std::string& w : words) Emit(w, out);
    return Status::Ok();
  }

 private:
  static void Emit(std::string_view word, std::vector<std::string>* out) {
    if (word.empty()) return;
    std::string mapped;
    mapped.reserve(word.size() * 2);
    AppendByteLevel(word, &mapped);
    out->push_back(std::move(mapped));
  }

  bool add_prefix_space_;
  std::unique_ptr<Pattern> pattern_;  // null when use_regex is false
};

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  Status PreTokenize(std::vector<std::string>* pieces) const override {
    for (const auto& part : parts_) HONE_RETURN_IF_ERROR(part->PreTokenize(pieces));
    return Status::Ok();
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

Result<SplitBehavior> BehaviorField(const Json& json, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const std::string name, RequiredString(json, "behavior", path));
  return ParseSplitBehavior(name, JsonPath(path, "behavior"));
}

}  // namespace

Result<std::unique_ptr<PreTokenizer>> ParsePreTokenizer(const Json& json, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const std::string type, ComponentType(json, path));
  if (type == "BertPreTokenizer") return std::unique_ptr<PreTokenizer>(new BertPreTokenizer());
  if (type == "ByteLevel") {
    HONE_ASSIGN_OR_RETURN(const bool prefix, OptionalBool(json, "add_prefix_space", path, true));
    HONE_ASSIGN_OR_RETURN(const bool use_regex, OptionalBool(json, "use_regex", path, true));
    std::unique_ptr<Pattern> pattern;
    if (use_regex) {
      HONE_ASSIGN_OR_RETURN(pattern, Pattern::Regex(kGpt2Pattern, path));
    }
    return std::unique_ptr<PreTokenizer>(new ByteLevelPreTokenizer(prefix, std::move(pattern)));
  }
  if (type == "Split") {
    HONE_ASSIGN_OR_RETURN(const Json* pattern_json, RequiredField(json, "pattern", path));
    HONE_ASSIGN_OR_RETURN(auto pattern, ParsePatternJson(*pattern_json, JsonPath(path, "pattern")));
    HONE_ASSIGN_OR_RETURN(const SplitBehavior behavior, BehaviorField(json, path));
    HONE_ASSIGN_OR_RETURN(const bool invert, OptionalBool(json, "invert", path, false));
    return std::unique_ptr<PreTokenizer>(new PatternPreTokenizer(std::move(pattern), behavior, invert));
  }
  if (type == "Digits") {
    HONE_ASSIGN_OR_RETURN(const bool individual, OptionalBool(json, "individual_digits", path, false));
    return std::unique_ptr<PreTokenizer>(new PredicatePreTokenizer(
        IsNumeric, individual ? SplitBehavior::kIsolated : SplitBehavior::kContiguous));
  }
  if (type == "Punctuation") {
    SplitBehavior behavior = SplitBehavior::kIsolated;
    if (json.contains("behavior")) {
      HONE_ASSIGN_OR_RETURN(behavior, BehaviorField(json, path));
    }
    return std::unique_ptr<PreTokenizer>(new PredicatePreTokenizer(IsBertPunctuation, behavior));
  }
  if (type == "WhitespaceSplit") {
    return std::unique_ptr<PreTokenizer>(new PredicatePreTokenizer(IsWhitespace, SplitBehavior::kRemoved));
  }
  if (type == "Whitespace") {
    HONE_ASSIGN_OR_RETURN(auto pattern, Pattern::Regex(R"(\w+|[^\w\s]+)", path));
    return std::unique_ptr<PreTokenizer>(
        new PatternPreTokenizer(std::move(pattern), SplitBehavior::kRemoved, /*invert=*/true));
  }
  if (type == "Sequence") {
    HONE_ASSIGN_OR_RETURN(const Json* list, RequiredArray(json, "pretokenizers", path));
    std::vector<std::unique_ptr<PreTokenizer>> parts;
    for (size_t i = 0; i < list->size(); ++i) {
      HONE_ASSIGN_OR_RETURN(auto part, ParsePreTokenizer((*list)[i], JsonPath(JsonPath(path, "pretokenizers"), i)));
      parts.push_back(std::move(part));
    }
    return std::unique_ptr<PreTokenizer>(new SequencePreTokenizer(std::move(parts)));
  }
  return UnsupportedType(path, type, kSupported);
}

}  // namespace hone::process
