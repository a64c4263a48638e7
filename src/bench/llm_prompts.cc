#include "bench/llm_prompts.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "process/tokenizer.h"

namespace hone::bench {
namespace {

// Common English words: synthetic prompts read like text, so byte-level BPE tokenizes them at a natural rate.
constexpr const char* kWords[] = {
    "the", "of", "and", "to", "in", "is", "was", "that", "for", "on", "with", "as", "by", "at", "from", "his",
    "her", "they", "which", "or", "an", "were", "are", "this", "had", "not", "but", "be", "have", "one", "all",
    "their", "there", "been", "when", "who", "will", "more", "would", "time", "into", "other", "some", "could",
    "people", "first", "water", "after", "where", "through", "years", "between", "city", "world", "during",
    "house", "river", "history", "music", "science", "garden", "system", "language", "market", "winter", "light",
    "question", "morning", "history", "mountain", "village", "reason", "number", "family", "country", "station",
    "library", "morning", "letter", "engine", "forest", "window", "summer", "teacher", "animal", "journey",
    "problem", "answer", "machine", "island", "bridge", "doctor", "story", "paper", "school", "ocean", "market",
};

std::string Words(std::mt19937_64& rng, int64_t count) {
  std::string out;
  std::uniform_int_distribution<size_t> pick(0, std::size(kWords) - 1);
  for (int64_t i = 0; i < count; ++i) {
    if (i) out += ' ';
    out += kWords[pick(rng)];
  }
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

}  // namespace

LlmPrompts::~LlmPrompts() = default;

Result<std::unique_ptr<LlmPrompts>> LlmPrompts::Create(const std::string& prompts_path,
                                                      const std::string& tokenizer_path, int64_t input_tokens,
                                                      uint64_t seed) {
  std::unique_ptr<LlmPrompts> p(new LlmPrompts());
  p->input_tokens_ = input_tokens;
  p->seed_ = seed;
  if (!prompts_path.empty()) {
    std::ifstream in(prompts_path);
    if (!in) return Status::NotFound(fmt::format("--prompts '{}': cannot be read", prompts_path));
    const bool jsonl = prompts_path.ends_with(".jsonl");
    std::string line;
    for (int64_t n = 1; std::getline(in, line); ++n) {
      if (line.empty()) continue;
      if (jsonl) {
        auto v = nlohmann::json::parse(line, nullptr, false);
        if (v.is_discarded() || !v.is_string())
          return Status::InvalidArgument(fmt::format("--prompts '{}' line {}: expected a JSON string", prompts_path, n));
        p->file_.push_back(v.get<std::string>());
      } else {
        p->file_.push_back(line);
      }
    }
    if (p->file_.empty()) return Status::InvalidArgument(fmt::format("--prompts '{}' holds no prompt", prompts_path));
    p->description_ = fmt::format("file {} ({} prompts, used in turn)", prompts_path, p->file_.size());
    return p;
  }
  if (!tokenizer_path.empty()) {
    HONE_ASSIGN_OR_RETURN(p->tokenizer_, process::Tokenizer::FromFile(tokenizer_path));
    p->tokenizer_->set_padding(std::nullopt);
    HONE_RETURN_IF_ERROR(p->tokenizer_->set_truncation(std::nullopt));
    p->description_ = fmt::format("synthetic English words, {} tokens each (counted with {}; the server may add "
                                  "special tokens)",
                                  input_tokens, tokenizer_path);
  } else {
    p->description_ = fmt::format("synthetic English words, about {} tokens each ({} words; give --tokenizer for "
                                  "exact lengths)",
                                  input_tokens, input_tokens * 3 / 4);
  }
  return p;
}

std::string LlmPrompts::Get(int64_t i) const {
  if (!file_.empty()) return file_[static_cast<size_t>(i) % file_.size()];
  std::mt19937_64 rng(seed_ * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i));
  if (!tokenizer_) return Words(rng, std::max<int64_t>(1, input_tokens_ * 3 / 4));
  // Grow word by word until the text has input_tokens tokens; a word that overshoots is cut to the tokens that fit.
  std::string text;
  std::mt19937_64 words_rng = rng;
  for (int64_t words = std::max<int64_t>(1, input_tokens_ * 3 / 5);; ++words) {
    std::mt19937_64 again = words_rng;
    std::string next = Words(again, words);
    auto e = tokenizer_->Encode(next, /*add_special_tokens=*/false);
    if (!e.ok()) return text;
    if (static_cast<int64_t>(e->ids.size()) == input_tokens_) return next;
    if (static_cast<int64_t>(e->ids.size()) > input_tokens_) {
      std::vector<int64_t> ids(e->ids.begin(), e->ids.begin() + input_tokens_);
      auto cut = tokenizer_->Decode(ids);
      return cut.ok() ? *cut : text;
    }
    text = std::move(next);
  }
}

}  // namespace hone::bench
