// Pre-tokenizers: cut normalized text into the words the model sees one at a time. Supported "type"s:
// BertPreTokenizer, ByteLevel, Split, Digits, Punctuation, Whitespace, WhitespaceSplit, Sequence. Anything else
// fails to parse, naming the JSON path.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "process/tokenizer_json.h"

namespace hone::process {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits every piece further (ByteLevel also rewrites them into its byte alphabet), keeping their order and
  // dropping empty ones. Thread-safe; fails only when a regex gives up.
  virtual Status PreTokenize(std::vector<std::string>* pieces) const = 0;
};

// The pre-tokenizer described by `json`; `path` names it in errors ("pre_tokenizer").
Result<std::unique_ptr<PreTokenizer>> ParsePreTokenizer(const Json& json, std::string_view path);

}  // namespace hone::process
