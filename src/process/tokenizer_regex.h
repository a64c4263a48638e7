// The patterns of a tokenizer.json (Split and Replace take {"Regex": ...} or {"String": ...}), compiled once with
// PCRE2 and matched from any number of threads.
//
// tokenizers compiles its regexes with Oniguruma; PCRE2 (UTF + UCP mode) reads the same syntax for everything the
// published tokenizers use (\p{L}, \p{N}, (?i:...), lookahead, possessive quantifiers). One difference is patched:
// Oniguruma's \s is the White_Space property while PCRE2's also matches U+180E, so \s (outside and inside
// character classes) and \S (outside classes) are rewritten to the White_Space set before compiling.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace hone::process {

class Pattern {
 public:
  using Match = std::pair<size_t, size_t>;  // [begin, end) byte offsets

  // A regular expression. `where` names the JSON path in errors: "pre_tokenizer.pattern.Regex: ... at offset 3".
  static Result<std::unique_ptr<Pattern>> Regex(std::string_view pattern, std::string_view where);
  // A literal string, matched as is.
  static std::unique_ptr<Pattern> Literal(std::string_view text);

  ~Pattern();
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;

  // Appends the non-overlapping matches in `text` (valid UTF-8), left to right; an empty match moves the search on
  // by one character. Thread-safe. Fails only when PCRE2 gives up (its match or depth limit), naming the pattern.
  Status FindAll(std::string_view text, std::vector<Match>* matches) const;

 private:
  Pattern() = default;
  std::string source_;
  std::string literal_;
  void* code_ = nullptr;  // pcre2_code_8*, null for a literal
};

// The pattern with \s and \S rewritten as described above (exposed for tests).
std::string RewriteWhitespaceClasses(std::string_view pattern);

}  // namespace hone::process
