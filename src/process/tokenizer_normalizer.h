// Normalizers: the first stage of a tokenizer.json pipeline, applied to each stretch of text between added tokens.
// Supported "type"s: BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace, Prepend, Strip,
// Sequence. Anything else fails to parse, naming the JSON path.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "process/tokenizer_json.h"

namespace hone::process {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Rewrites `text` (valid UTF-8) in place. Thread-safe; fails only when a Replace regex gives up.
  virtual Status Normalize(std::string* text) const = 0;
};

// The normalizer described by `json` (an object with a "type"); `path` names it in errors ("normalizer").
Result<std::unique_ptr<Normalizer>> ParseNormalizer(const Json& json, std::string_view path);

}  // namespace hone::process
