#include "process/tokenizer_decoder.h"

#include <algorithm>
#include <cstdlib>

#include "process/byte_level.h"
#include "process/tokenizer_regex.h"
#include "process/unicode_text.h"

namespace hone::process {
namespace {

constexpr std::string_view kSupported = "ByteLevel, WordPiece, Sequence, Replace, Strip, Fuse, ByteFallback";

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) {
    s->replace(at, from.size(), to);
  }
}

// Maps the byte alphabet back to bytes and reads them as UTF-8 (invalid sequences become U+FFFD).
class ByteLevelDecoder final : public Decoder {
 public:
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    std::string bytes;
    for (const std::string& token : *tokens) {
      // A token with a character outside the byte alphabet (an added token) is taken as it is, whole.
      const size_t mark = bytes.size();
      size_t pos = 0;
      while (pos < token.size()) {
        auto b = ByteLevelByte(NextCodePoint(token, &pos));
        if (!b) {
          bytes.resize(mark);
          bytes.append(token);
          break;
        }
        bytes.push_back(static_cast<char>(*b));
      }
    }
    *tokens = {Utf8Lossy(bytes)};
    return Status::Ok();
  }
  bool byte_level() const override { return true; }
};

// Joins "##" continuations to their word and puts a space before every other token; with cleanup, removes the
// space BERT's tokenization put before punctuation and contractions (per token, as tokenizers does).
class WordPieceDecoder final : public Decoder {
 public:
  WordPieceDecoder(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& t = (*tokens)[i];
      if (i != 0) {
        if (t.compare(0, prefix_.size(), prefix_) == 0) {
          t.erase(0, prefix_.size());
        } else {
          t = " " + t;
        }
      }
      if (cleanup_) {
        for (auto [from, to] : kCleanup) ReplaceAll(&t, from, to);
      }
    }
    return Status::Ok();
  }

 private:
  static constexpr std::pair<std::string_view, std::string_view> kCleanup[] = {
      {" .", "."},       {" ?", "?"},     {" !", "!"},       {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"},     {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  std::string prefix_;
  bool cleanup_;
};

class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(std::unique_ptr<Pattern> pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& t : *tokens) {
      std::vector<Pattern::Match> matches;
      HONE_RETURN_IF_ERROR(pattern_->FindAll(t, &matches));
      std::string out;
      size_t prev = 0;
      for (const auto& [begin, end] : matches) {
        out.append(t, prev, begin - prev).append(content_);
        prev = end;
      }
      out.append(t, prev);
      t = std::move(out);
    }
    return Status::Ok();
  }

 private:
  std::unique_ptr<Pattern> pattern_;
  std::string content_;
};

// Removes up to `start` copies of `content` from the start of each token and `stop` from its end.
class StripDecoder final : public Decoder {
 public:
  StripDecoder(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    if (content_.empty()) return Status::Ok();
    for (std::string& t : *tokens) {
      for (size_t i = 0; i < start_ && t.compare(0, content_.size(), content_) == 0; ++i) t.erase(0, content_.size());
      for (size_t i = 0; i < stop_ && t.size() >= content_.size() &&
                         t.compare(t.size() - content_.size(), content_.size(), content_) == 0;
           ++i) {
        t.resize(t.size() - content_.size());
      }
    }
    return Status::Ok();
  }

 private:
  std::string content_;
  size_t start_, stop_;
};

class FuseDecoder final : public Decoder {
 public:
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    std::string all;
    for (const std::string& t : *tokens) all += t;
    *tokens = {std::move(all)};
    return Status::Ok();
  }
};

// Tokens "<0xE2>" "<0x82>" "<0xAC>" become the text their bytes spell (U+FFFD per token when they spell none).
class ByteFallbackDecoder final : public Decoder {
 public:
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    std::string bytes;
    size_t byte_tokens = 0;
    auto flush = [&] {
      if (byte_tokens == 0) return;
      if (ValidateUtf8(bytes).ok()) {
        out.push_back(bytes);
      } else {
        for (size_t i = 0; i < byte_tokens; ++i) out.push_back("\xEF\xBF\xBD");
      }
      bytes.clear();
      byte_tokens = 0;
    };
    for (std::string& t : *tokens) {
      if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>') {
        char* end = nullptr;
        const long b = std::strtol(t.substr(3, 2).c_str(), &end, 16);
        if (end != nullptr && *end == '\0') {
          bytes.push_back(static_cast<char>(b));
          ++byte_tokens;
          continue;
        }
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    *tokens = std::move(out);
    return Status::Ok();
  }
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (const auto& p : parts_) HONE_RETURN_IF_ERROR(p->DecodeChain(tokens));
    return Status::Ok();
  }
  bool byte_level() const override {
    return std::any_of(parts_.begin(), parts_.end(), [](const auto& p) { return p->byte_level(); });
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

}  // namespace

Result<std::unique_ptr<Decoder>> ParseDecoder(const Json& json, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const std::string type, ComponentType(json, path));
  if (type == "ByteLevel") return std::unique_ptr<Decoder>(new ByteLevelDecoder());
  if (type == "WordPiece") {
    HONE_ASSIGN_OR_RETURN(auto prefix, OptionalString(json, "prefix", path));
    HONE_ASSIGN_OR_RETURN(const bool cleanup, OptionalBool(json, "cleanup", path, true));
    return std::unique_ptr<Decoder>(new WordPieceDecoder(prefix.value_or("##"), cleanup));
  }
  if (type == "Replace") {
    HONE_ASSIGN_OR_RETURN(const Json* pattern_json, RequiredField(json, "pattern", path));
    HONE_ASSIGN_OR_RETURN(auto pattern, ParsePatternJson(*pattern_json, JsonPath(path, "pattern")));
    HONE_ASSIGN_OR_RETURN(std::string content, RequiredString(json, "content", path));
    return std::unique_ptr<Decoder>(new ReplaceDecoder(std::move(pattern), std::move(content)));
  }
  if (type == "Strip") {
    HONE_ASSIGN_OR_RETURN(std::string content, RequiredString(json, "content", path));
    HONE_ASSIGN_OR_RETURN(auto start, OptionalInt(json, "start", path));
    HONE_ASSIGN_OR_RETURN(auto stop, OptionalInt(json, "stop", path));
    return std::unique_ptr<Decoder>(new StripDecoder(std::move(content), static_cast<size_t>(std::max<int64_t>(0, start.value_or(0))),
                                                     static_cast<size_t>(std::max<int64_t>(0, stop.value_or(0)))));
  }
  if (type == "Fuse") return std::unique_ptr<Decoder>(new FuseDecoder());
  if (type == "ByteFallback") return std::unique_ptr<Decoder>(new ByteFallbackDecoder());
  if (type == "Sequence") {
    HONE_ASSIGN_OR_RETURN(const Json* list, RequiredArray(json, "decoders", path));
    std::vector<std::unique_ptr<Decoder>> parts;
    for (size_t i = 0; i < list->size(); ++i) {
      HONE_ASSIGN_OR_RETURN(auto part, ParseDecoder((*list)[i], JsonPath(JsonPath(path, "decoders"), i)));
      parts.push_back(std::move(part));
    }
    return std::unique_ptr<Decoder>(new SequenceDecoder(std::move(parts)));
  }
  return UnsupportedType(path, type, kSupported);
}

}  // namespace hone::process
