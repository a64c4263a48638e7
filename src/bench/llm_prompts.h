// The prompts an LLM benchmark sends: from a file (used in turn), or synthetic text of a set length in tokens,
// different for every request (a server that caches prompt prefixes must not get repeated prompts for free).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/result.h"

namespace hone::process {
class Tokenizer;
}

namespace hone::bench {

class LlmPrompts {
 public:
  // From `prompts_path` (.txt: one prompt per line; .jsonl: one JSON string per line) when given; else synthetic
  // prompts of `input_tokens` tokens, exact with `tokenizer_path` (the model's tokenizer.json), else about that
  // long (0.75 words a token, English text's usual rate).
  static Result<std::unique_ptr<LlmPrompts>> Create(const std::string& prompts_path,
                                                    const std::string& tokenizer_path, int64_t input_tokens,
                                                    uint64_t seed);
  ~LlmPrompts();

  // The i-th prompt (deterministic for a seed).
  std::string Get(int64_t i) const;
  // "synthetic, 128 tokens (exact: tokenizer.json)", "file prompts.txt (200 prompts)".
  const std::string& description() const { return description_; }

 private:
  LlmPrompts() = default;
  std::vector<std::string> file_;
  std::unique_ptr<process::Tokenizer> tokenizer_;
  int64_t input_tokens_ = 0;
  uint64_t seed_ = 1;
  std::string description_;
};

}  // namespace hone::bench
