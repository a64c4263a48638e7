#include "process/tokenizer_added_vocabulary.h"

#include <algorithm>

#include "process/tokenizer_normalizer.h"
#include "process/unicode_text.h"

namespace hone::process {
namespace {

void AddPattern(std::string pattern, size_t index, std::vector<std::vector<std::pair<std::string, size_t>>>* table) {
  if (pattern.empty()) return;
  if (table->empty()) table->resize(256);
  (*table)[static_cast<unsigned char>(pattern[0])].emplace_back(std::move(pattern), index);
}

// The last character of `text` is a letter, digit or spacing mark.
bool EndsWithWord(std::string_view text) {
  if (text.empty()) return false;
  size_t at = text.size() - 1;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return IsAlphanumeric(NextCodePoint(text, &at));
}

bool StartsWithWord(std::string_view text) {
  size_t pos = 0;
  return !text.empty() && IsAlphanumeric(NextCodePoint(text, &pos));
}

// Where the whitespace at the end of `text` begins.
size_t TrailingSpaceStart(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    size_t at = end - 1;
    while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
    size_t pos = at;
    if (!IsWhitespace(NextCodePoint(text, &pos))) break;
    end = at;
  }
  return end;
}

// Bytes of whitespace at the start of `text`.
size_t LeadingSpaceLength(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = pos;
    if (!IsWhitespace(NextCodePoint(text, &next))) break;
    pos = next;
  }
  return pos;
}

}  // namespace

Result<AddedVocabulary> AddedVocabulary::FromJson(const Json* list, std::string_view path,
                                                  const Normalizer* normalizer) {
  AddedVocabulary v;
  if (list == nullptr || list->is_null()) return v;
  if (!list->is_array()) {
    return Status::InvalidArgument(std::string(path) + ": expected an array, got " + JsonTypeName(*list));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& entry = (*list)[i];
    const std::string at = JsonPath(path, i);
    AddedToken t;
    HONE_ASSIGN_OR_RETURN(t.id, RequiredInt(entry, "id", at));
    HONE_ASSIGN_OR_RETURN(t.content, RequiredString(entry, "content", at));
    HONE_ASSIGN_OR_RETURN(t.single_word, OptionalBool(entry, "single_word", at, false));
    HONE_ASSIGN_OR_RETURN(t.lstrip, OptionalBool(entry, "lstrip", at, false));
    HONE_ASSIGN_OR_RETURN(t.rstrip, OptionalBool(entry, "rstrip", at, false));
    HONE_ASSIGN_OR_RETURN(t.special, OptionalBool(entry, "special", at, false));
    HONE_ASSIGN_OR_RETURN(t.normalized, OptionalBool(entry, "normalized", at, !t.special));
    if (Status s = ValidateUtf8(t.content); !s.ok()) return s.WithContext(JsonPath(at, "content"));
    if (t.content.empty()) continue;  // tokenizers ignores empty tokens
    const size_t index = v.tokens_.size();
    v.by_content_[t.content] = index;
    v.by_id_[t.id] = index;
    if (t.normalized && normalizer != nullptr) {
      std::string pattern = t.content;
      HONE_RETURN_IF_ERROR(normalizer->Normalize(&pattern));
      AddPattern(std::move(pattern), index, &v.normalized_.by_first_byte);
      v.normalized_.empty = false;
    } else if (t.normalized) {
      AddPattern(t.content, index, &v.normalized_.by_first_byte);
      v.normalized_.empty = false;
    } else {
      AddPattern(t.content, index, &v.raw_.by_first_byte);
      v.raw_.empty = false;
    }
    v.tokens_.push_back(std::move(t));
  }
  for (Matcher* m : {&v.raw_, &v.normalized_}) {
    for (auto& bucket : m->by_first_byte) {
      std::stable_sort(bucket.begin(), bucket.end(),
                       [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    }
  }
  return v;
}

std::optional<int64_t> AddedVocabulary::TokenToId(std::string_view content) const {
  auto it = by_content_.find(std::string(content));
  if (it == by_content_.end()) return std::nullopt;
  return tokens_[it->second].id;
}

const AddedToken* AddedVocabulary::FindById(int64_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

void AddedVocabulary::Split(const Matcher& matcher, std::string_view text, std::vector<TextSegment>* out) const {
  if (text.empty()) return;
  if (matcher.empty) {
    out->push_back({std::string(text), std::nullopt});
    return;
  }
  size_t done = 0;  // end of the last segment emitted
  size_t pos = 0;
  while (pos < text.size()) {
    const auto& bucket = matcher.by_first_byte[static_cast<unsigned char>(text[pos])];
    const std::pair<std::string, size_t>* hit = nullptr;
    for (const auto& candidate : bucket) {
      if (text.compare(pos, candidate.first.size(), candidate.first) == 0) {
        hit = &candidate;
        break;
      }
    }
    if (hit == nullptr) {
      ++pos;
      continue;
    }
    size_t begin = pos, end = pos + hit->first.size();
    pos = end;  // a rejected match still consumes its text, as in a leftmost-longest automaton
    const AddedToken& token = tokens_[hit->second];
    if (token.single_word && (EndsWithWord(text.substr(0, begin)) || StartsWithWord(text.substr(end)))) continue;
    if (token.lstrip) begin = std::max(TrailingSpaceStart(text.substr(0, begin)), done);
    if (token.rstrip) end += LeadingSpaceLength(text.substr(end));
    if (done < begin) out->push_back({std::string(text.substr(done, begin - done)), std::nullopt});
    out->push_back({std::string(text.substr(begin, end - begin)), token.id});
    done = end;
    pos = end;
  }
  if (done < text.size()) out->push_back({std::string(text.substr(done)), std::nullopt});
}

}  // namespace hone::process
