// Constrained decoding: choosing each token among those that keep the output a prefix of a grammar's sentence
// (grammar.h), so that a JSON schema's output always parses and validates once it ends.
//
// TokenTrie holds what every token spells, as a byte trie, so that the tokens a grammar state allows are found by
// walking the trie and the grammar together, dropping a whole subtree at the first byte the grammar refuses.
// ConstrainedGrammar is one compiled grammar with the token masks its states needed, kept for the next request
// with the same response format (a schema's states recur: every request starts at the same state, and an
// unbounded string stays in one). OutputConstraint is one sequence's place in it.
//
// Choosing: a greedy request first tries the model's own best token, which is allowed far more often than not
// (no mask needed); otherwise, and for sampling, the disallowed logits are set to -inf before the sampler sees
// them, so temperature, top-k and top-p apply to the allowed tokens only. An end-of-sequence token is allowed
// exactly when the output so far is a whole sentence; when nothing else can follow, it is the only choice.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "generate/grammar.h"
#include "generate/sampler.h"
#include "process/tokenizer.h"

namespace hone::generate {

class TokenTrie {
 public:
  // Every id below `vocab` (the model's logits width) that the tokenizer can spell alone (Tokenizer::TokenBytes),
  // and the end-of-sequence ids apart.
  TokenTrie(const process::Tokenizer& tokenizer, int64_t vocab, std::vector<int64_t> eos_ids);

  int64_t vocab() const { return vocab_; }
  const std::vector<int64_t>& eos_ids() const { return eos_ids_; }
  bool IsEos(int64_t id) const { return std::find(eos_ids_.begin(), eos_ids_.end(), id) != eos_ids_.end(); }
  // The bytes of `id`; nullptr for ids that spell nothing alone (special tokens, ids the tokenizer lacks).
  const std::string* Bytes(int64_t id) const;

 private:
  friend class ConstrainedGrammar;
  struct Node {
    uint32_t children_begin = 0, children_end = 0;  // into children_
    uint32_t tokens_begin = 0, tokens_end = 0;      // into tokens_: the ids whose bytes end here
  };
  struct Child {
    uint8_t byte;
    uint32_t node;
  };
  int64_t vocab_;
  std::vector<int64_t> eos_ids_;
  std::vector<std::string> bytes_;  // per id; empty for an id that spells nothing alone (tokens never spell "")
  std::vector<Node> nodes_;  // nodes_[0] is the root (the empty prefix)
  std::vector<Child> children_;
  std::vector<int32_t> tokens_;
};

// The allowed ids of one state, a bit per id.
struct TokenMask {
  std::vector<uint64_t> bits;
  bool Has(int64_t id) const { return (bits[static_cast<size_t>(id) >> 6] >> (id & 63)) & 1; }
  int64_t count = 0;
};

class ConstrainedGrammar {
 public:
  ConstrainedGrammar(Grammar grammar, std::shared_ptr<const TokenTrie> trie)
      : grammar_(std::move(grammar)), trie_(std::move(trie)) {}

  const Grammar& grammar() const { return grammar_; }
  const TokenTrie& trie() const { return *trie_; }
  // The tokens `state` allows (computed once per state, then cached). Not thread-safe: the engine thread only.
  const TokenMask& Mask(const GrammarState& state);
  // Whether `state` allows `id`, without building a mask.
  bool Allows(const GrammarState& state, int64_t id) const;

 private:
  struct StateHash {
    size_t operator()(const GrammarState& s) const { return s.Hash(); }
  };
  void Walk(uint32_t node, const GrammarState& state, TokenMask* mask) const;

  static constexpr size_t kMaxCachedMasks = 512;  // a mask is vocab / 8 bytes (6 KiB for 49,152 tokens)
  Grammar grammar_;
  std::shared_ptr<const TokenTrie> trie_;
  std::unordered_map<GrammarState, TokenMask, StateHash> masks_;
};

// One sequence's constraint.
class OutputConstraint {
 public:
  explicit OutputConstraint(std::shared_ptr<ConstrainedGrammar> grammar);

  // The next token under the constraint, chosen by `sampler` from `logits` (one row of the vocabulary).
  // FailedPrecondition when the grammar allows no token at all (a tokenizer that cannot spell what comes next).
  Result<int64_t> Choose(std::span<const float> logits, Sampler& sampler);
  // Moves past `id` (one Choose returned).
  void Accept(int64_t id);
  // The output so far is a whole sentence.
  bool complete() const { return state_.accepting(); }

 private:
  std::shared_ptr<ConstrainedGrammar> grammar_;
  GrammarState state_;
  std::vector<float> masked_;  // the logits with disallowed ones at -inf, reused between calls
};

}  // namespace hone::generate
