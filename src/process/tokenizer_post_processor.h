// Post-processors: add the special tokens a model expects around a text ([CLS] ... [SEP], <|begin_of_text|> ...)
// and set the type ids. Supported "type"s: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel (which
// only adjusts offsets, so changes no id), Sequence. hone encodes single texts, so only the "single" template is
// used; the "pair" template is read and checked.
#pragma once

#include <memory>
#include <string_view>

#include "base/result.h"
#include "process/tokenizer_encoding.h"
#include "process/tokenizer_json.h"

namespace hone::process {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // How many tokens Process adds to a single text when add_special_tokens is true (truncation leaves room).
  virtual size_t AddedTokens() const = 0;
  // Adds the special tokens (when add_special_tokens) and sets the type ids. Thread-safe.
  virtual void Process(Encoding* encoding, bool add_special_tokens) const = 0;
};

// The post-processor described by `json`; `path` names it in errors ("post_processor").
Result<std::unique_ptr<PostProcessor>> ParsePostProcessor(const Json& json, std::string_view path);

}  // namespace hone::process
