#include "generate/grammar_cache.h"

#include "generate/json_schema_grammar.h"

namespace hone::generate {

Result<std::shared_ptr<ConstrainedGrammar>> GrammarCache::Get(OutputFormat format, const std::string& schema) {
  if (!tokenizer_.byte_level())
    return Status::InvalidArgument(
        "response_format: structured output needs a byte-level BPE tokenizer (as GPT-2's, Llama 3's, SmolLM2's), "
        "whose tokens spell the same bytes wherever they stand; this model's decoder rewrites tokens in context");
  const std::string key = format == OutputFormat::kJsonObject ? std::string("json_object") : "json_schema:" + schema;
  {
    std::lock_guard lock(mu_);
    for (auto it = grammars_.begin(); it != grammars_.end(); ++it) {
      if (it->first != key) continue;
      grammars_.splice(grammars_.begin(), grammars_, it);
      return grammars_.front().second;
    }
  }
  // Compiled outside the lock: a large schema must not hold up requests for the others.
  Grammar grammar;
  if (format == OutputFormat::kJsonObject) {
    grammar = JsonObjectGrammar();
  } else {
    HONE_ASSIGN_OR_RETURN(grammar, JsonSchemaGrammar(schema));
  }
  std::lock_guard lock(mu_);
  if (!trie_) trie_ = std::make_shared<const TokenTrie>(tokenizer_, vocab_, eos_ids_);
  auto compiled = std::make_shared<ConstrainedGrammar>(std::move(grammar), trie_);
  grammars_.emplace_front(key, compiled);
  if (grammars_.size() > kMaxGrammars) grammars_.pop_back();
  return compiled;
}

}  // namespace hone::generate
