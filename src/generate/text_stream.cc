#include "generate/text_stream.h"

#include <algorithm>
#include <span>

namespace hone::generate {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

TextStream::TextStream(const process::Tokenizer& tokenizer, std::vector<std::string> stop)
    : tokenizer_(tokenizer), stop_(std::move(stop)) {
  std::erase_if(stop_, [](const std::string& s) { return s.empty(); });
}

Result<std::string> TextStream::Push(int64_t id) {
  if (stopped_) return std::string();
  ids_.push_back(id);
  std::span<const int64_t> all(ids_);
  HONE_ASSIGN_OR_RETURN(std::string known, tokenizer_.Decode(all.subspan(prefix_, read_ - prefix_)));
  HONE_ASSIGN_OR_RETURN(std::string now, tokenizer_.Decode(all.subspan(prefix_)));
  if (now.size() > known.size() && !std::string_view(now).ends_with(kReplacement) && now.starts_with(known)) {
    text_.append(now, known.size());
    prefix_ = read_;
    read_ = ids_.size();
  }
  return TakeSafe();
}

std::string TextStream::TakeSafe() {
  // The earliest stop sequence that now appears ends the text.
  size_t stop_at = std::string::npos;
  for (const std::string& s : stop_) {
    const size_t from = emitted_.size() >= s.size() ? emitted_.size() - s.size() + 1 : 0;
    stop_at = std::min(stop_at, text_.find(s, from));
  }
  if (stop_at != std::string::npos) {
    stopped_ = true;
    std::string out = text_.substr(emitted_.size(), stop_at - std::min(stop_at, emitted_.size()));
    emitted_ += out;
    return out;
  }
  // Hold back the longest end of the text that could still grow into a stop sequence.
  size_t held = 0;
  for (const std::string& s : stop_)
    for (size_t n = std::min(s.size() - 1, text_.size() - emitted_.size()); n > held; --n)
      if (std::string_view(text_).ends_with(std::string_view(s).substr(0, n))) {
        held = n;
        break;
      }
  std::string out = text_.substr(emitted_.size(), text_.size() - held - emitted_.size());
  emitted_ += out;
  return out;
}

std::string TextStream::Finish() {
  if (stopped_) return std::string();
  // Tokens still undecided (an unfinished character): decode them as they are, U+FFFD included.
  if (read_ < ids_.size()) {
    std::span<const int64_t> all(ids_);
    auto known = tokenizer_.Decode(all.subspan(prefix_, read_ - prefix_));
    auto now = tokenizer_.Decode(all.subspan(prefix_));
    if (known.ok() && now.ok() && now->size() > known->size()) text_.append(*now, known->size());
    prefix_ = read_ = ids_.size();
  }
  std::string out = text_.substr(emitted_.size());
  emitted_ += out;
  return out;
}

}  // namespace hone::generate
