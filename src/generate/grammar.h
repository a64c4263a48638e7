// A context-free grammar over bytes and a recognizer that reads it one byte at a time, for constrained decoding:
// the engine asks which bytes may come next and which tokens spell them (token_constraint.h).
//
// Rules are alternatives of sequences of symbols; a symbol is a set of bytes or a reference to a rule. The
// recognizer keeps every way the bytes read so far can continue as a stack of grammar positions (a pushdown
// automaton run on all alternatives at once, as GBNF recognizers do), so ambiguity costs stacks, never a wrong
// answer. Grammars must not be left-recursive; json_schema_grammar.h writes only right recursion.
//
//   Grammar g;
//   Grammar::RuleId digits = g.NewRule();
//   g.AddAlternative(digits, {Grammar::Bytes('0', '9'), Grammar::Ref(digits)});
//   g.AddAlternative(digits, {Grammar::Bytes('0', '9')});
//   g.set_root(digits);
//   GrammarState s = GrammarState::Start(g);
//   s.Advance(g, '4');   // true; s.accepting() is true
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace hone::generate {

// A set of byte values.
struct ByteSet {
  std::array<uint64_t, 4> bits{};
  bool Has(uint8_t b) const { return (bits[b >> 6] >> (b & 63)) & 1; }
  void Add(uint8_t b) { bits[b >> 6] |= uint64_t{1} << (b & 63); }
  void AddRange(uint8_t lo, uint8_t hi) {
    for (int b = lo; b <= hi; ++b) Add(static_cast<uint8_t>(b));
  }
  void Remove(uint8_t b) { bits[b >> 6] &= ~(uint64_t{1} << (b & 63)); }
  void AddAll(const ByteSet& o) {
    for (size_t i = 0; i < 4; ++i) bits[i] |= o.bits[i];
  }
  bool empty() const { return (bits[0] | bits[1] | bits[2] | bits[3]) == 0; }
  bool operator==(const ByteSet&) const = default;
};

class Grammar {
 public:
  using RuleId = uint32_t;
  struct Symbol {
    bool is_rule = false;
    ByteSet bytes;    // when !is_rule
    RuleId rule = 0;  // when is_rule
  };
  static Symbol Bytes(uint8_t lo, uint8_t hi);
  static Symbol Byte(uint8_t b) { return Bytes(b, b); }
  static Symbol Set(const ByteSet& set);
  static Symbol Ref(RuleId rule);

  // A rule with no alternatives yet (add them later: rules may refer to each other before they are complete).
  RuleId NewRule();
  // An empty `symbols` is the empty alternative: the rule may match nothing.
  void AddAlternative(RuleId rule, const std::vector<Symbol>& symbols);
  // A rule matching exactly `text`.
  RuleId Literal(std::string_view text);
  void set_root(RuleId rule) { root_ = rule; }
  RuleId root() const { return root_; }
  size_t rule_count() const { return alternatives_.size(); }
  // InvalidArgument when some rule can reach itself before reading a byte (left recursion: the recognizer would
  // expand it forever), or refers to a rule with no alternative.
  Status Check() const;

 private:
  friend class GrammarState;
  enum class ElementKind : uint8_t { kBytes, kRule, kEnd };
  struct Element {
    ElementKind kind;
    uint32_t index;  // kBytes: into byte_sets_; kRule: the rule
  };
  std::vector<Element> elements_;                   // every alternative, each closed by kEnd
  std::vector<ByteSet> byte_sets_;
  std::vector<std::vector<uint32_t>> alternatives_;  // per rule: where its alternatives start in elements_
  RuleId root_ = 0;
};

// Where a recognizer stands: every stack of positions that can still continue. Value type: copy it to try bytes.
// An ambiguous grammar can multiply the ways; past kMaxStacks (or a bounded amount of expansion work for one byte)
// the extra ones are dropped, which can only make the recognizer refuse more, never accept what the grammar does
// not.
class GrammarState {
 public:
  static GrammarState Start(const Grammar& grammar);

  // Reads one byte. False, and the state unchanged, when no way continues with it.
  bool Advance(const Grammar& grammar, uint8_t byte);
  // Reads every byte of `bytes`; false (and the state unchanged) unless all of them can be read.
  bool AdvanceAll(const Grammar& grammar, std::string_view bytes);
  // The bytes that may come next.
  ByteSet NextBytes(const Grammar& grammar) const;
  // The bytes read so far are a whole sentence of the grammar (it may still go on).
  bool accepting() const;
  // Nothing can follow and nothing was accepted (only after a failed start: Advance never leaves a dead state).
  bool dead() const { return stacks_.empty(); }

  bool operator==(const GrammarState&) const = default;
  size_t Hash() const;

 private:
  using Stack = std::vector<uint32_t>;  // positions in Grammar::elements_, the next to match on top
  static constexpr size_t kMaxStacks = 1024;
  static void Expand(const Grammar& grammar, Stack stack, std::vector<Stack>* out, int depth, int64_t* budget);
  void Keep(std::vector<Stack> stacks);  // sorts, dedupes and caps
  std::vector<Stack> stacks_;  // sorted and unique, so that equal states compare equal
};

}  // namespace hone::generate
