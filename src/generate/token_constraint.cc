#include "generate/token_constraint.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hone::generate {

TokenTrie::TokenTrie(const process::Tokenizer& tokenizer, int64_t vocab, std::vector<int64_t> eos_ids)
    : vocab_(vocab), eos_ids_(std::move(eos_ids)) {
  bytes_.resize(static_cast<size_t>(vocab));
  // Built with maps, then laid out flat: children of a node side by side, in byte order.
  struct Building {
    std::map<uint8_t, uint32_t> children;
    std::vector<int32_t> tokens;
  };
  std::vector<Building> building(1);
  for (int64_t id = 0; id < vocab; ++id) {
    if (IsEos(id)) continue;
    std::optional<std::string> bytes = tokenizer.TokenBytes(id);
    if (!bytes || bytes->empty()) continue;  // a token that spells nothing would let the output stall
    uint32_t node = 0;
    for (char c : *bytes) {
      auto [it, added] = building[node].children.emplace(static_cast<uint8_t>(c), 0);
      if (added) {
        it->second = static_cast<uint32_t>(building.size());
        building.emplace_back();
      }
      node = it->second;
    }
    building[node].tokens.push_back(static_cast<int32_t>(id));
    bytes_[static_cast<size_t>(id)] = std::move(*bytes);
  }
  nodes_.resize(building.size());
  for (size_t n = 0; n < building.size(); ++n) {
    nodes_[n].children_begin = static_cast<uint32_t>(children_.size());
    for (auto [byte, child] : building[n].children) children_.push_back({byte, child});
    nodes_[n].children_end = static_cast<uint32_t>(children_.size());
    nodes_[n].tokens_begin = static_cast<uint32_t>(tokens_.size());
    tokens_.insert(tokens_.end(), building[n].tokens.begin(), building[n].tokens.end());
    nodes_[n].tokens_end = static_cast<uint32_t>(tokens_.size());
  }
}

const std::string* TokenTrie::Bytes(int64_t id) const {
  if (id < 0 || id >= vocab_ || bytes_[static_cast<size_t>(id)].empty()) return nullptr;
  return &bytes_[static_cast<size_t>(id)];
}

void ConstrainedGrammar::Walk(uint32_t node, const GrammarState& state, TokenMask* mask) const {
  const TokenTrie& t = *trie_;
  const ByteSet next = state.NextBytes(grammar_);
  for (uint32_t c = t.nodes_[node].children_begin; c < t.nodes_[node].children_end; ++c) {
    const TokenTrie::Child child = t.children_[c];
    if (!next.Has(child.byte)) continue;
    const TokenTrie::Node& n = t.nodes_[child.node];
    for (uint32_t k = n.tokens_begin; k < n.tokens_end; ++k) {
      mask->bits[static_cast<size_t>(t.tokens_[k]) >> 6] |= uint64_t{1} << (t.tokens_[k] & 63);
      ++mask->count;
    }
    if (n.children_begin == n.children_end) continue;  // a leaf: its tokens were all it held
    GrammarState after = state;
    after.Advance(grammar_, child.byte);
    Walk(child.node, after, mask);
  }
}

const TokenMask& ConstrainedGrammar::Mask(const GrammarState& state) {
  if (auto it = masks_.find(state); it != masks_.end()) return it->second;
  if (masks_.size() >= kMaxCachedMasks) masks_.clear();
  TokenMask mask;
  mask.bits.assign(static_cast<size_t>((trie_->vocab() + 63) / 64), 0);
  Walk(0, state, &mask);
  if (state.accepting()) {
    for (int64_t id : trie_->eos_ids())
      if (id >= 0 && id < trie_->vocab() && !mask.Has(id)) {
        mask.bits[static_cast<size_t>(id) >> 6] |= uint64_t{1} << (id & 63);
        ++mask.count;
      }
  }
  return masks_.emplace(state, std::move(mask)).first->second;
}

bool ConstrainedGrammar::Allows(const GrammarState& state, int64_t id) const {
  if (trie_->IsEos(id)) return state.accepting();
  const std::string* bytes = trie_->Bytes(id);
  if (bytes == nullptr) return false;
  GrammarState s = state;
  return s.AdvanceAll(grammar_, *bytes);
}

OutputConstraint::OutputConstraint(std::shared_ptr<ConstrainedGrammar> grammar)
    : grammar_(std::move(grammar)), state_(GrammarState::Start(grammar_->grammar())) {}

Result<int64_t> OutputConstraint::Choose(std::span<const float> logits, Sampler& sampler) {
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(logits.size()), grammar_->trie().vocab());
  if (sampler.greedy()) {
    // The model's own choice first: when the grammar allows it, it is the masked argmax too.
    const int64_t best = std::max_element(logits.begin(), logits.begin() + n) - logits.begin();
    if (grammar_->Allows(state_, best)) return best;
  }
  const TokenMask& mask = grammar_->Mask(state_);
  if (mask.count == 0)
    return Status::FailedPrecondition("constrained decoding: no token of the vocabulary can continue the output");
  if (sampler.greedy()) {
    int64_t best = -1;
    for (int64_t id = 0; id < n; ++id)
      if (mask.Has(id) && (best < 0 || logits[id] > logits[best])) best = id;
    return best;
  }
  masked_.assign(logits.begin(), logits.end());
  for (int64_t id = 0; id < static_cast<int64_t>(masked_.size()); ++id)
    if (id >= n || !mask.Has(id)) masked_[id] = -std::numeric_limits<float>::infinity();
  return sampler.Next(masked_);
}

void OutputConstraint::Accept(int64_t id) {
  if (grammar_->trie().IsEos(id)) return;
  if (const std::string* bytes = grammar_->trie().Bytes(id)) state_.AdvanceAll(grammar_->grammar(), *bytes);
}

}  // namespace hone::generate
