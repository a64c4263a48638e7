#include "generate/grammar_cache.h"

#include "generate/json_schema_grammar.h"

namespace hone::generate {

Result<std::shared_ptr<ConstrainedGrammar>> GrammarCache::Get(OutputFormat format, const std::string& schema) {
  const std::string key = format == OutputFormat::kJsonObject ? std::string("json_object") : "json_schema:" + schema;
  std::lock_guard lock(mu_);
  for (auto it = grammars_.begin(); it != grammars_.end(); ++it) {
    if (it->first != key) continue;
    grammars_.splice(grammars_.begin(), grammars_, it);
    return grammars_.front().second;
  }
  Grammar grammar;
  if (format == OutputFormat::kJsonObject) {
    grammar = JsonObjectGrammar();
  } else {
    HONE_ASSIGN_OR_RETURN(grammar, JsonSchemaGrammar(schema));
  }
  if (!trie_) trie_ = std::make_shared<const TokenTrie>(tokenizer_, vocab_, eos_ids_);
  auto compiled = std::make_shared<ConstrainedGrammar>(std::move(grammar), trie_);
  grammars_.emplace_front(key, compiled);
  if (grammars_.size() > kMaxGrammars) grammars_.pop_back();
  return compiled;
}

}  // namespace hone::generate
