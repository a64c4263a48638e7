#include "process/tokenizer_split.h"

#include <algorithm>

#include "process/unicode_text.h"

namespace hone::process {

Result<SplitBehavior> ParseSplitBehavior(std::string_view name, std::string_view where) {
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  return Status::InvalidArgument(std::string(where) + " '" + std::string(name) +
                                 "' is not supported (Removed, Isolated, MergedWithPrevious, MergedWithNext, "
                                 "Contiguous)");
}

std::vector<Span> SpansFromMatches(std::string_view text, const std::vector<Pattern::Match>& matches, bool invert) {
  std::vector<Span> spans;
  if (text.empty()) return {{0, 0, invert}};
  size_t prev = 0;
  for (const auto& [begin, end] : matches) {
    if (prev != begin) spans.push_back({prev, begin, invert});
    spans.push_back({begin, end, !invert});
    prev = end;
  }
  if (prev != text.size()) spans.push_back({prev, text.size(), invert});
  return spans;
}

std::vector<Span> SpansFromPredicate(std::string_view text, const std::function<bool(char32_t)>& pred) {
  std::vector<Span> spans;
  if (text.empty()) return {{0, 0, false}};
  size_t last = 0, pos = 0;
  while (pos < text.size()) {
    const size_t begin = pos;
    const char32_t cp = NextCodePoint(text, &pos);
    if (!pred(cp)) continue;
    if (last < begin) spans.push_back({last, begin, false});
    spans.push_back({begin, pos, true});
    last = pos;
  }
  if (last < text.size()) spans.push_back({last, text.size(), false});
  return spans;
}

void SplitSpans(std::string_view text, const std::vector<Span>& spans, SplitBehavior behavior,
                std::vector<std::string>* pieces) {
  // First the spans to keep (begin, end, removed), then the pieces.
  std::vector<Span> keep;
  keep.reserve(spans.size());
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (const Span& s : spans) keep.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::kRemoved:
      keep = spans;  // is_match now means "drop"
      break;
    case SplitBehavior::kContiguous:
      for (const Span& s : spans) {
        if (s.is_match == previous_match && !keep.empty()) {
          keep.back().end = s.end;
        } else {
          keep.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::kMergedWithPrevious:
      for (const Span& s : spans) {
        if (s.is_match && !previous_match && !keep.empty()) {
          keep.back().end = s.end;
        } else {
          keep.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !keep.empty()) {
          keep.back().begin = it->begin;
        } else {
          keep.push_back({it->begin, it->end, false});
        }
        previous_match = it->is_match;
      }
      std::reverse(keep.begin(), keep.end());
      break;
  }
  for (const Span& s : keep) {
    if (!s.is_match && s.end > s.begin) pieces->emplace_back(text.substr(s.begin, s.end - s.begin));
  }
}

}  // namespace hone::process
