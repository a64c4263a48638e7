// Constrained decoding over a real byte-level BPE vocabulary (SmolLM2's tokenizer, cut to 900 tokens): the trie
// walk allows exactly the tokens a byte-by-byte check allows, the end token only at the end, and choosing from any
// logits, greedy or sampled, always yields JSON that the grammar accepts.
#include "generate/token_constraint.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "generate/json_schema_grammar.h"

namespace hone::generate {
namespace {

constexpr int64_t kEos = 2;  // <|im_end|> in SmolLM2's vocabulary

const process::Tokenizer& Vocabulary() {
  static const std::unique_ptr<process::Tokenizer> t = [] {
    auto r = process::Tokenizer::FromFile(std::string(HONE_SOURCE_DIR) + "/src/process/testdata/smollm2.tokenizer.json");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return std::move(r).value();
  }();
  return *t;
}

std::shared_ptr<const TokenTrie> Trie() {
  static const auto trie = std::make_shared<const TokenTrie>(Vocabulary(), 900, std::vector<int64_t>{kEos});
  return trie;
}

std::shared_ptr<ConstrainedGrammar> Constrained(std::string_view schema) {
  Result<Grammar> g = JsonSchemaGrammar(schema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return std::make_shared<ConstrainedGrammar>(std::move(g).value(), Trie());
}

constexpr std::string_view kRecord = R"({
  "type": "object",
  "properties": {
    "title": {"type": "string", "maxLength": 6},
    "done": {"type": "boolean"},
    "scores": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
    "level": {"enum": ["low", "high"]}
  },
  "required": ["title", "done", "scores", "level"],
  "additionalProperties": false
})";

TEST(TokenTrie, ByteLevelTokensSpellTheirBytesEvenInsideACharacter) {
  const process::Tokenizer& t = Vocabulary();
  EXPECT_EQ(t.TokenBytes(*t.TokenToId("\xC4\xA0")), " ");        // "Ġ" is the space byte
  EXPECT_EQ(t.TokenBytes(*t.TokenToId("\xC3\x83")), "\xC3");     // "Ã" is byte 0xC3 alone: half of a character
  EXPECT_EQ(t.TokenBytes(kEos), std::nullopt) << "a special token spells nothing";
  EXPECT_EQ(Trie()->Bytes(kEos), nullptr);
  EXPECT_EQ(Trie()->Bytes(100000), nullptr);
}

TEST(ConstrainedGrammar, TheMaskIsExactlyTheTokensWhoseBytesTheGrammarReads) {
  auto g = Constrained(kRecord);
  GrammarState s = GrammarState::Start(g->grammar());
  // The start, inside a string, after a key, inside a number, and at the end.
  for (std::string_view step : {"", R"({"title":"a)", R"(bc", "done":)", R"( true, "scores": [1)", R"(2], "level": "high"})"}) {
    ASSERT_TRUE(s.AdvanceAll(g->grammar(), step)) << step;
    const TokenMask& mask = g->Mask(s);
    int64_t allowed = 0;
    for (int64_t id = 0; id < 900; ++id) {
      EXPECT_EQ(mask.Has(id), g->Allows(s, id)) << "after '" << step << "', id " << id;
      allowed += mask.Has(id);
    }
    EXPECT_EQ(allowed, mask.count);
    EXPECT_GT(allowed, 0);
    EXPECT_EQ(mask.Has(kEos), s.accepting());
  }
  EXPECT_TRUE(s.accepting());
  EXPECT_EQ(g->Mask(s).count, 1) << "at the end only the end token";
}

// Drives a constraint with random logits until it ends, as a random-weight model would.
std::string Generate(std::shared_ptr<ConstrainedGrammar> g, SamplingParams params, uint64_t seed) {
  OutputConstraint c(g);
  Sampler sampler(params);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0, 3);
  std::vector<float> logits(900);
  std::string text;
  for (int step = 0; step < 400; ++step) {
    for (float& l : logits) l = noise(rng);
    Result<int64_t> id = c.Choose(logits, sampler);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    if (!id.ok() || *id == kEos) {
      EXPECT_TRUE(c.complete()) << "the end token came before the end: " << text;
      return text;
    }
    c.Accept(*id);
    text += *g->trie().Bytes(*id);
  }
  ADD_FAILURE() << "no end after 400 tokens: " << text;
  return text;
}

TEST(OutputConstraint, AnyLogitsGiveJsonThatValidates) {
  auto g = Constrained(kRecord);
  SamplingParams greedy;
  greedy.temperature = 0;
  SamplingParams sampled;
  sampled.temperature = 1.0;
  sampled.top_p = 0.9;
  sampled.seed = 7;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    for (const SamplingParams& p : {greedy, sampled}) {
      const std::string text = Generate(g, p, seed);
      const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << text;
      const std::string title = doc["title"].get<std::string>();
      EXPECT_LE(std::count_if(title.begin(), title.end(), [](char c) { return (c & 0xC0) != 0x80; }), 6) << text;
      EXPECT_TRUE(doc["done"].is_boolean()) << text;
      EXPECT_LE(doc["scores"].size(), 3u) << text;
      EXPECT_TRUE(doc["level"] == "low" || doc["level"] == "high") << text;
    }
  }
}

TEST(OutputConstraint, GreedyTakesTheBestAllowedToken) {
  auto g = Constrained(R"({"type": "boolean"})");
  OutputConstraint c(g);
  SamplingParams greedy;
  greedy.temperature = 0;
  Sampler sampler(greedy);
  std::vector<float> logits(900, 0.0f);
  const int64_t t = *Vocabulary().TokenToId("t");
  const int64_t f = *Vocabulary().TokenToId("f");
  logits[*Vocabulary().TokenToId("x")] = 10;  // the model's favourite is not allowed
  logits[t] = 2;
  logits[f] = 3;
  EXPECT_EQ(*c.Choose(logits, sampler), f);
  logits[kEos] = 50;
  EXPECT_EQ(*c.Choose(logits, sampler), f) << "the end token only at the end";
}

}  // namespace
}  // namespace hone::generate
