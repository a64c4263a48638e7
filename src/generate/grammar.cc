#include "generate/grammar.h"

#include <algorithm>
#include <string>

namespace hone::generate {
namespace {

// Expanding a rule reference pushes its alternatives; Check refuses left recursion, so the depth is the length of
// a chain of references read before a byte (long for an object of many optional properties). Past it, or past the
// work budget of one byte, a way is dropped rather than looping.
constexpr int kMaxExpandDepth = 4096;
constexpr int64_t kExpandBudget = 1 << 16;

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

Status Grammar::Check() const {
  const size_t n = alternatives_.size();
  for (size_t r = 0; r < n; ++r)
    if (alternatives_[r].empty()) return Status::InvalidArgument("grammar: rule " + std::to_string(r) + " has no alternative");
  // Which rules can match nothing (to a fixpoint), then which rules each can reach before reading a byte.
  std::vector<bool> nullable(n, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < n; ++r) {
      if (nullable[r]) continue;
      for (uint32_t start : alternatives_[r]) {
        uint32_t at = start;
        while (elements_[at].kind == ElementKind::kRule && nullable[elements_[at].index]) ++at;
        if (elements_[at].kind == ElementKind::kEnd) {
          nullable[r] = changed = true;
          break;
        }
      }
    }
  }
  std::vector<std::vector<uint32_t>> left(n);
  for (size_t r = 0; r < n; ++r)
    for (uint32_t start : alternatives_[r])
      for (uint32_t at = start; elements_[at].kind == ElementKind::kRule; ++at) {
        left[r].push_back(elements_[at].index);
        if (!nullable[elements_[at].index]) break;
      }
  // A cycle in `left` is left recursion: depth-first search with colours, iteratively.
  std::vector<uint8_t> colour(n, 0);  // 0 new, 1 on the path, 2 done
  for (size_t root = 0; root < n; ++root) {
    if (colour[root]) continue;
    std::vector<std::pair<uint32_t, size_t>> path = {{static_cast<uint32_t>(root), 0}};
    colour[root] = 1;
    while (!path.empty()) {
      auto& [r, next] = path.back();
      if (next == left[r].size()) {
        colour[r] = 2;
        path.pop_back();
        continue;
      }
      const uint32_t to = left[r][next++];
      if (colour[to] == 1) return Status::InvalidArgument("grammar: a rule refers to itself before reading anything");
      if (colour[to] == 0) {
        colour[to] = 1;
        path.emplace_back(to, 0);
      }
    }
  }
  return Status::Ok();
}

void GrammarState::Expand(const Grammar& g, Stack stack, std::vector<Stack>* out, int depth, int64_t* budget) {
  if (stack.empty() || g.elements_[stack.back()].kind == Grammar::ElementKind::kBytes) {
    out->push_back(std::move(stack));
    return;
  }
  if (depth >= kMaxExpandDepth || --*budget < 0) return;
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
    Expand(g, std::move(next), out, depth + 1, budget);
  }
}

void GrammarState::Keep(std::vector<Stack> stacks) {
  std::sort(stacks.begin(), stacks.end());
  stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
  if (stacks.size() > kMaxStacks) stacks.resize(kMaxStacks);
  stacks_ = std::move(stacks);
}

GrammarState GrammarState::Start(const Grammar& g) {
  GrammarState s;
  std::vector<Stack> stacks;
  int64_t budget = kExpandBudget;
  for (uint32_t start : g.alternatives_[g.root()]) {
    Stack stack;
    if (g.elements_[start].kind != Grammar::ElementKind::kEnd) stack.push_back(start);
    Expand(g, std::move(stack), &stacks, 0, &budget);
  }
  s.Keep(std::move(stacks));
  return s;
}

bool GrammarState::Advance(const Grammar& g, uint8_t byte) {
  std::vector<Stack> next;
  int64_t budget = kExpandBudget;
  for (const Stack& stack : stacks_) {
    if (stack.empty()) continue;
    const uint32_t at = stack.back();
    if (!g.byte_sets_[g.elements_[at].index].Has(byte)) continue;
    Stack moved = stack;
    moved.pop_back();
    if (g.elements_[at + 1].kind != Grammar::ElementKind::kEnd) moved.push_back(at + 1);
    Expand(g, std::move(moved), &next, 0, &budget);
  }
  if (next.empty()) return false;
  Keep(std::move(next));
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
