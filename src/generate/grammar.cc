#include "generate/grammar.h"

#include <algorithm>

namespace hone::generate {
namespace {

// Expanding a rule reference pushes its alternatives; a grammar that reaches this depth without reading a byte
// recurses on the left (a bug in whoever wrote it): the way is dropped rather than looping.
constexpr int kMaxExpandDepth = 256;

}  // namespace

Grammar::Symbol Grammar::Bytes(uint8_t lo, uint8_t hi) {
  Symbol s;
  s.bytes.AddRange(lo, hi);
  return s;
}

Grammar::Symbol Grammar::Set(const ByteSet& set) {
  Symbol s;
  s.bytes = set;
  return s;
}

Grammar::Symbol Grammar::Ref(RuleId rule) {
  Symbol s;
  s.is_rule = true;
  s.rule = rule;
  return s;
}

Grammar::RuleId Grammar::NewRule() {
  alternatives_.emplace_back();
  return static_cast<RuleId>(alternatives_.size() - 1);
}

void Grammar::AddAlternative(RuleId rule, const std::vector<Symbol>& symbols) {
  alternatives_[rule].push_back(static_cast<uint32_t>(elements_.size()));
  for (const Symbol& s : symbols) {
    if (s.is_rule) {
      elements_.push_back({ElementKind::kRule, s.rule});
      continue;
    }
    auto same = std::find(byte_sets_.begin(), byte_sets_.end(), s.bytes);
    if (same == byte_sets_.end()) same = byte_sets_.insert(byte_sets_.end(), s.bytes);
    elements_.push_back({ElementKind::kBytes, static_cast<uint32_t>(same - byte_sets_.begin())});
  }
  elements_.push_back({ElementKind::kEnd, 0});
}

Grammar::RuleId Grammar::Literal(std::string_view text) {
  std::vector<Symbol> symbols;
  for (char c : text) symbols.push_back(Byte(static_cast<uint8_t>(c)));
  RuleId rule = NewRule();
  AddAlternative(rule, symbols);
  return rule;
}

void GrammarState::Expand(const Grammar& g, Stack stack, std::vector<Stack>* out, int depth) {
  if (stack.empty() || g.elements_[stack.back()].kind == Grammar::ElementKind::kBytes) {
    out->push_back(std::move(stack));
    return;
  }
  if (depth >= kMaxExpandDepth) return;
  const uint32_t at = stack.back();
  stack.pop_back();
  // Where to go on after the rule: the next element of this sequence, unless the sequence ends there (then the
  // caller's continuation is already below, which keeps right recursion from growing the stack).
  if (g.elements_[at + 1].kind != Grammar::ElementKind::kEnd) stack.push_back(at + 1);
  const auto& alternatives = g.alternatives_[g.elements_[at].index];
  for (size_t i = 0; i < alternatives.size(); ++i) {
    const uint32_t start = alternatives[i];
    Stack next = i + 1 == alternatives.size() ? std::move(stack) : stack;
    if (g.elements_[start].kind != Grammar::ElementKind::kEnd) next.push_back(start);
    Expand(g, std::move(next), out, depth + 1);
  }
}

GrammarState GrammarState::Start(const Grammar& g) {
  GrammarState s;
  for (uint32_t start : g.alternatives_[g.root()]) {
    Stack stack;
    if (g.elements_[start].kind != Grammar::ElementKind::kEnd) stack.push_back(start);
    Expand(g, std::move(stack), &s.stacks_, 0);
  }
  std::sort(s.stacks_.begin(), s.stacks_.end());
  s.stacks_.erase(std::unique(s.stacks_.begin(), s.stacks_.end()), s.stacks_.end());
  return s;
}

bool GrammarState::Advance(const Grammar& g, uint8_t byte) {
  std::vector<Stack> next;
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const uint32_t at = stack.back();
    if (!g.byte_sets_[g.elements_[at].index].Has(byte)) continue;
    Stack moved = stack;
    moved.pop_back();
    if (g.elements_[at + 1].kind != Grammar::ElementKind::kEnd) moved.push_back(at + 1);
    Expand(g, std::move(moved), &next, 0);
  }
  if (next.empty()) return false;
  std::sort(next.begin(), next.end());
  next.erase(std::unique(next.begin(), next.end()), next.end());
  stacks_ = std::move(next);
  return true;
}

bool GrammarState::AdvanceAll(const Grammar& g, std::string_view bytes) {
  GrammarState s = *this;
  for (char c : bytes)
    if (!s.Advance(g, static_cast<uint8_t>(c))) return false;
  *this = std::move(s);
  return true;
}

ByteSet GrammarState::NextBytes(const Grammar& g) const {
  ByteSet set;
  for (const Stack& stack : stacks_)
    if (!stack.empty()) set.AddAll(g.byte_sets_[g.elements_[stack.back()].index]);
  return set;
}

bool GrammarState::accepting() const {
  return std::any_of(stacks_.begin(), stacks_.end(), [](const Stack& s) { return s.empty(); });
}

size_t GrammarState::Hash() const {
  size_t h = stacks_.size();
  for (const Stack& stack : stacks_) {
    for (uint32_t p : stack) h = h * 1000003u ^ p;
    h = h * 31u + stack.size();
  }
  return h;
}

}  // namespace hone::generate
