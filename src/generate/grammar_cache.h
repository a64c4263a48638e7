// The grammars of the response formats requests asked for, compiled once and shared: requests with the same
// schema share one ConstrainedGrammar and so the token masks it has built (token_constraint.h).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "generate/token_constraint.h"
#include "process/tokenizer.h"

namespace hone::generate {

enum class OutputFormat {
  kText,        // no constraint
  kJsonObject,  // any JSON object (OpenAI's {"type": "json_object"})
  kJsonSchema,  // JSON that validates against a schema (OpenAI's {"type": "json_schema"})
};

class GrammarCache {
 public:
  // `tokenizer` outlives the cache; `vocab` is the model's logits width.
  GrammarCache(const process::Tokenizer& tokenizer, int64_t vocab, std::vector<int64_t> eos_ids)
      : tokenizer_(tokenizer), vocab_(vocab), eos_ids_(std::move(eos_ids)) {}

  // The grammar for `format` (`schema`: the schema's JSON text, for kJsonSchema). InvalidArgument from
  // JsonSchemaGrammar for a schema it cannot enforce. Thread-safe.
  Result<std::shared_ptr<ConstrainedGrammar>> Get(OutputFormat format, const std::string& schema);

 private:
  static constexpr size_t kMaxGrammars = 16;  // the least recently asked for is dropped past this
  const process::Tokenizer& tokenizer_;
  int64_t vocab_;
  std::vector<int64_t> eos_ids_;
  std::mutex mu_;
  std::shared_ptr<const TokenTrie> trie_;  // built at the first constrained request: most servers never need it
  std::list<std::pair<std::string, std::shared_ptr<ConstrainedGrammar>>> grammars_;  // most recent first
};

}  // namespace hone::generate
