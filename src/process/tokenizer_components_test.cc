// Components one at a time (BPE options, split behaviours, Unicode helpers) and the errors a bad tokenizer.json
// gives. Expected ids were checked against tokenizers 0.22.1.
#include <nlohmann/json.hpp>

#include "process/bpe_model.h"
#include "process/byte_level.h"
#include "process/tokenizer.h"
#include "process/tokenizer_regex.h"
#include "process/tokenizer_split.h"
#include "process/tokenizer_test_util.h"
#include "process/unicode_text.h"

namespace hone::process {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::BertModel;
using testing::MustParse;
using testing::TokenizerJson;

std::string Bpe(const std::string& unk, bool fuse, bool byte_fallback, bool ignore_merges, const std::string& merges) {
  return R"({"type":"BPE","dropout":null,"unk_token":)" + unk + R"(,"continuing_subword_prefix":null,
    "end_of_word_suffix":null,"fuse_unk":)" + (fuse ? "true" : "false") + R"(,"byte_fallback":)" +
         (byte_fallback ? "true" : "false") + R"(,"ignore_merges":)" + (ignore_merges ? "true" : "false") +
         R"(,"vocab":{"a":0,"b":1,"c":2,"ab":3,"abc":4,"bc":5,"<unk>":6,"<0xC3>":7,"<0xA9>":8,"aa":9,"aaa":10},
    "merges":)" + merges + "}";
}

constexpr const char* kListMerges = R"([["a","b"],["ab","c"],["b","c"],["a","a"]])";
constexpr const char* kStringMerges = R"(["a b","ab c","b c","a a"])";
constexpr const char* kWhitespaceSplit = R"({"type":"WhitespaceSplit"})";
constexpr const char* kText = "abc aaaaa xxab é bca";

std::vector<int64_t> Ids(const std::string& json, std::string_view text) {
  auto t = MustParse(json);
  if (t == nullptr) return {};
  auto e = t->Encode(text, false);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? e->ids : std::vector<int64_t>{};
}

TEST(BpeTest, MergesInStringAndListFormAgree) {
  EXPECT_THAT(Ids(TokenizerJson(Bpe("null", false, false, false, kListMerges), "null", kWhitespaceSplit), kText),
              ElementsAre(4, 9, 9, 0, 3, 5, 0));  // no unk_token: unknown characters are dropped
  EXPECT_THAT(Ids(TokenizerJson(Bpe("null", false, false, false, kStringMerges), "null", kWhitespaceSplit), kText),
              ElementsAre(4, 9, 9, 0, 3, 5, 0));
}

TEST(BpeTest, UnknownTokenFusedOrNot) {
  EXPECT_THAT(Ids(TokenizerJson(Bpe("\"<unk>\"", false, false, false, kListMerges), "null", kWhitespaceSplit), kText),
              ElementsAre(4, 9, 9, 0, 6, 6, 3, 6, 5, 0));
  EXPECT_THAT(Ids(TokenizerJson(Bpe("\"<unk>\"", true, false, false, kListMerges), "null", kWhitespaceSplit), kText),
              ElementsAre(4, 9, 9, 0, 6, 3, 6, 5, 0));
}

TEST(BpeTest, ByteFallback) {
  EXPECT_THAT(Ids(TokenizerJson(Bpe("\"<unk>\"", false, true, false, kListMerges), "null", kWhitespaceSplit), kText),
              ElementsAre(4, 9, 9, 0, 6, 6, 3, 7, 8, 5, 0));
}

TEST(BpeTest, IgnoreMergesTakesWholeWordsFromTheVocabulary) {
  const std::string merges = R"([["a","b"],["b","c"]])";
  EXPECT_THAT(Ids(TokenizerJson(Bpe("null", false, false, true, merges)), "abc"), ElementsAre(4));
  EXPECT_THAT(Ids(TokenizerJson(Bpe("null", false, false, false, merges)), "abc"), ElementsAre(3, 2));
}

TEST(BpeTest, LongWordStaysFast) {
  // 200,000 characters in one word: the merge queue keeps this O(n log n). The bound is on the work, counted in
  // pair lookups, not on time. With n symbols there are n - 1 lookups at first, at most n - 1 merges, two lookups
  // and two pushes after each, and one lookup a pop (n - 1 + 2 merges pops): at most 7n. A loop that rescanned the
  // word after each of its 100,000 merges would make billions.
  const std::string word(200000, 'a');
  const uint64_t before = BpeModel::PairLookupsOnThisThread();
  const auto ids = Ids(TokenizerJson(Bpe("null", false, false, false, kListMerges)), word);
  const uint64_t lookups = BpeModel::PairLookupsOnThisThread() - before;
  EXPECT_EQ(ids.size(), 100000u);
  EXPECT_GE(lookups, word.size() - 1);  // every adjacent pair once at least
  EXPECT_LE(lookups, 7 * word.size());
}

TEST(SplitTest, Behaviours) {
  const std::string text = "a  b c ";
  std::vector<Pattern::Match> matches;
  ASSERT_TRUE(Pattern::Literal(" ")->FindAll(text, &matches).ok());
  const auto spans = SpansFromMatches(text, matches, false);
  auto split = [&](SplitBehavior b, const std::string& t, const std::vector<Span>& s) {
    std::vector<std::string> out;
    SplitSpans(t, s, b, &out);
    return out;
  };
  EXPECT_THAT(split(SplitBehavior::kMergedWithNext, text, spans), ElementsAre("a", " ", " b", " c", " "));
  EXPECT_THAT(split(SplitBehavior::kContiguous, text, spans), ElementsAre("a", "  ", "b", " ", "c", " "));
  EXPECT_THAT(split(SplitBehavior::kRemoved, text, spans), ElementsAre("a", "b", "c"));
  EXPECT_THAT(split(SplitBehavior::kIsolated, text, spans), ElementsAre("a", " ", " ", "b", " ", "c", " "));
  const std::string text2 = " a  b c ";
  matches.clear();
  ASSERT_TRUE(Pattern::Literal(" ")->FindAll(text2, &matches).ok());
  EXPECT_THAT(split(SplitBehavior::kMergedWithPrevious, text2, SpansFromMatches(text2, matches, false)),
              ElementsAre(" ", "a ", " ", "b ", "c "));
  EXPECT_THAT(split(SplitBehavior::kRemoved, text2, SpansFromMatches(text2, matches, true)),
              ElementsAre(" ", " ", " ", " ", " "));
}

TEST(SplitTest, DigitsAreAnyNumericCharacter) {
  std::vector<std::string> out;
  const std::string text = "a12½3Ⅻ①x²";
  SplitSpans(text, SpansFromPredicate(text, IsNumeric), SplitBehavior::kIsolated, &out);
  EXPECT_THAT(out, ElementsAre("a", "1", "2", "½", "3", "Ⅻ", "①", "x", "²"));
}

TEST(RegexTest, WhitespaceClassIsUnicodeWhiteSpace) {
  auto p = Pattern::Regex(R"(\s+)", "test");
  ASSERT_TRUE(p.ok());
  std::vector<Pattern::Match> matches;
  // U+0085 and U+3000 are White_Space; U+200B and U+180E are not.
  const std::string text = "a\xC2\x85" "b\xE3\x80\x80" "c\xE2\x80\x8B" "d\xE1\xA0\x8E" "e";
  ASSERT_TRUE((*p)->FindAll(text, &matches).ok());
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(matches[0], (Pattern::Match{1, 3}));
  EXPECT_EQ(RewriteWhitespaceClasses(R"([^\s\p{L}]\\s)"),
            R"([^\x{09}-\x{0D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\p{L}]\\s)");
}

TEST(UnicodeTest, LossyDecodingAndLowercase) {
  EXPECT_EQ(Utf8Lossy("a\xE2\x82" "b\x80"), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
  EXPECT_EQ(Lowercase("İΣΑΣ"), "i\xCC\x87σασ");
  EXPECT_EQ(Normalize("ﬁ①Ｆ", NormalForm::kNfkc), "fi1F");
  EXPECT_EQ(Normalize("é", NormalForm::kNfd), "e\xCC\x81");
  EXPECT_EQ(ByteLevelChar(' '), "Ġ");
  EXPECT_EQ(ByteLevelByte(U'Ġ'), ' ');
  EXPECT_EQ(ByteLevelChar('a'), "a");
}

// Errors: each names the JSON path at fault and what was expected, behind the source name.
Status ParseError(const std::string& json) {
  auto t = Tokenizer::FromJson(json, "tokenizer.json");
  return t.ok() ? Status::Ok() : t.status();
}

TEST(TokenizerErrorsTest, UnsupportedComponentsNameTheirPathAndTheSupportedTypes) {
  const std::string bert = BertModel();
  EXPECT_EQ(ParseError(TokenizerJson(R"({"type":"Unigram","vocab":[]})")).message(),
            "tokenizer.json: model.type 'Unigram' is not supported (BPE, WordPiece)");
  EXPECT_EQ(ParseError(TokenizerJson(bert, "null", R"({"type":"Sequence","pretokenizers":[
              {"type":"WhitespaceSplit"},{"type":"Metaspace","replacement":"_"}]})")).message(),
            "tokenizer.json: pre_tokenizer.pretokenizers[1].type 'Metaspace' is not supported (BertPreTokenizer, "
            "ByteLevel, Split, Digits, Punctuation, Whitespace, WhitespaceSplit, Sequence)");
  EXPECT_THAT(ParseError(TokenizerJson(bert, R"({"type":"Precompiled","precompiled_charsmap":""})")).message(),
              HasSubstr("normalizer.type 'Precompiled' is not supported (BertNormalizer, NFC"));
  EXPECT_THAT(ParseError(TokenizerJson(bert, "null", "null", R"({"type":"Whatever"})")).message(),
              HasSubstr("post_processor.type 'Whatever' is not supported"));
  EXPECT_THAT(ParseError(TokenizerJson(bert, "null", "null", "null", "[]", R"({"type":"CTC"})")).message(),
              HasSubstr("decoder.type 'CTC' is not supported"));
  const Status s = ParseError(TokenizerJson(bert, "null", R"({"type":"Split","pattern":{"String":" "},
                                                            "behavior":"Sideways","invert":false})"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("pre_tokenizer.behavior 'Sideways' is not supported (Removed, Isolated"));
}

TEST(TokenizerErrorsTest, MalformedFiles) {
  EXPECT_THAT(ParseError("{\"model\": ").message(), HasSubstr("tokenizer.json: [json.exception.parse_error"));
  EXPECT_EQ(ParseError("[1, 2]").message(), "tokenizer.json: expected a JSON object, got array");
  EXPECT_EQ(ParseError(R"({"normalizer":null})").message(), "tokenizer.json: model: missing");
  EXPECT_THAT(ParseError(TokenizerJson(R"({"type":"WordPiece","vocab":{"a":"x"}})")).message(),
              HasSubstr("model.vocab.a: expected an id in [0, 2^31), got \"x\""));
  EXPECT_THAT(ParseError(TokenizerJson(Bpe("null", false, false, false, R"([["a","z"]])"))).message(),
              HasSubstr("model.merges[0]: token 'z' is not in model.vocab"));
  EXPECT_THAT(ParseError(TokenizerJson(Bpe("null", false, false, false, R"(["a b c"])"))).message(),
              HasSubstr("model.merges[0]: expected \"left right\" with one space"));
  std::string dropout = Bpe("null", false, false, false, "[]");
  dropout.replace(dropout.find("\"dropout\":null"), 14, "\"dropout\":0.1");
  EXPECT_THAT(ParseError(TokenizerJson(dropout)).message(), HasSubstr("model.dropout 0.1 is not supported"));
  EXPECT_THAT(ParseError(TokenizerJson(BertModel(), "null", R"({"type":"Split","pattern":{"Regex":"(unclosed"},
                                                                "behavior":"Isolated"})")).message(),
              HasSubstr("pre_tokenizer.pattern.Regex: cannot compile regex '(unclosed'"));
  EXPECT_THAT(ParseError(TokenizerJson(BertModel(), "null", "null", R"({"type":"TemplateProcessing",
                "single":[{"SpecialToken":{"id":"[CLS]","type_id":0}}],"special_tokens":{}})")).message(),
              HasSubstr("post_processor.special_tokens: the template uses '[CLS]', which it does not define"));
  EXPECT_THAT(ParseError(TokenizerJson(BertModel(), "null", "null", "null", "[]", "null",
                                       R"({"max_length":8,"strategy":"Sideways"})")).message(),
              HasSubstr("truncation.strategy 'Sideways' is not supported (LongestFirst, OnlyFirst, OnlySecond)"));
}

}  // namespace
}  // namespace hone::process
