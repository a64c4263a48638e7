// Splitting one piece of text into several at the places a pattern or a character predicate matches, with the
// five delimiter behaviours of tokenizers' SplitDelimiterBehavior. Empty pieces are dropped, as tokenizers drops
// them before the model sees them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "process/tokenizer_regex.h"

namespace hone::process {

enum class SplitBehavior {
  kRemoved,             // "a, b" on "," -> "a", " b"
  kIsolated,            // -> "a", ",", " b"
  kMergedWithPrevious,  // -> "a,", " b"
  kMergedWithNext,      // -> "a", ", b"
  kContiguous,          // like kIsolated, but adjacent matches form one piece
};

// Reads the JSON spelling ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"); `where`
// names the JSON path in the error.
Result<SplitBehavior> ParseSplitBehavior(std::string_view name, std::string_view where);

// A stretch of the text, and whether the pattern matched it.
struct Span {
  size_t begin;
  size_t end;
  bool is_match;
};

// The text cut into matched and unmatched spans that cover it, in order. Matches come from Pattern::FindAll;
// `invert` swaps matched and unmatched.
std::vector<Span> SpansFromMatches(std::string_view text, const std::vector<Pattern::Match>& matches, bool invert);
// Every character for which `pred` holds is a match of its own.
std::vector<Span> SpansFromPredicate(std::string_view text, const std::function<bool(char32_t)>& pred);

// Appends the non-empty pieces of `text` that `behavior` makes of `spans`.
void SplitSpans(std::string_view text, const std::vector<Span>& spans, SplitBehavior behavior,
                std::vector<std::string>* pieces);

}  // namespace hone::process
