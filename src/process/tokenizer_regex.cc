#include "process/tokenizer_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "process/unicode_text.h"

namespace hone::process {
namespace {

// Unicode White_Space, as a character class body.
constexpr std::string_view kWhiteSpace =
    R"(\x{09}-\x{0D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";

std::string PcreErrorText(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof(buffer)) < 0) return "error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

}  // namespace

std::string RewriteWhitespaceClasses(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size() + 64);
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char next = pattern[i + 1];
      if (next == 's') {
        if (in_class) {
          out.append(kWhiteSpace);
        } else {
          out.append("[").append(kWhiteSpace).append("]");
        }
      } else if (next == 'S' && !in_class) {
        out.append("[^").append(kWhiteSpace).append("]");
      } else {
        out.push_back(c);
        out.push_back(next);
      }
      ++i;
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out.push_back(c);
      // A ']' right after '[' or '[^' is a literal member, not the end of the class.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out.push_back(pattern[++i]);
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out.push_back(pattern[++i]);
      continue;
    }
    if (in_class && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {  // [:alpha:] inside a class
      const size_t end = pattern.find(":]", i + 2);
      if (end != std::string_view::npos) {
        out.append(pattern.substr(i, end + 2 - i));
        i = end + 1;
        continue;
      }
    }
    if (in_class && c == ']') in_class = false;
    out.push_back(c);
  }
  return out;
}

Result<std::unique_ptr<Pattern>> Pattern::Regex(std::string_view pattern, std::string_view where) {
  const std::string rewritten = RewriteWhitespaceClasses(pattern);
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(rewritten.data()), rewritten.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &error_offset, nullptr);
  if (code == nullptr) {
    return Status::InvalidArgument(std::string(where) + ": cannot compile regex '" + std::string(pattern) +
                                   "': " + PcreErrorText(error));
  }
  // JIT makes matching several times faster; where the platform has no JIT, the interpreter gives the same matches.
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  std::unique_ptr<Pattern> p(new Pattern());
  p->source_ = std::string(pattern);
  p->code_ = code;
  return p;
}

std::unique_ptr<Pattern> Pattern::Literal(std::string_view text) {
  std::unique_ptr<Pattern> p(new Pattern());
  p->source_ = std::string(text);
  p->literal_ = std::string(text);
  return p;
}

Pattern::~Pattern() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

Status Pattern::FindAll(std::string_view text, std::vector<Match>* matches) const {
  if (code_ == nullptr) {
    if (literal_.empty()) return Status::Ok();
    for (size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at)) {
      matches->emplace_back(at, at + literal_.size());
      at += literal_.size();
    }
    return Status::Ok();
  }
  auto* code = static_cast<pcre2_code*>(code_);
  // Match data per call keeps FindAll thread-safe; it is one small allocation next to the matching itself.
  std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), &pcre2_match_data_free);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  while (start <= text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, data.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      return Status::ResourceExhausted("regex '" + source_ + "' gave up on a text of " +
                                       std::to_string(text.size()) + " bytes: " + PcreErrorText(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data.get());
    const size_t begin = ovector[0], end = ovector[1];
    matches->emplace_back(begin, end);
    if (end > begin) {
      start = end;
    } else {
      if (end >= text.size()) break;
      start = end + Utf8SequenceLength(static_cast<unsigned char>(text[end]));
    }
  }
  return Status::Ok();
}

}  // namespace hone::process
