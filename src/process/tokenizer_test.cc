// The Tokenizer pipeline on hand-written tokenizer.json files: WordPiece/BERT, byte-level BPE, added tokens,
// truncation, padding, decoding, errors, and concurrent use.
#include "process/tokenizer.h"

#include <thread>

#include "process/tokenizer_test_util.h"

namespace hone::process {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::BertModel;
using testing::BertSpecials;
using testing::BertTemplate;
using testing::MustParse;
using testing::TokenizerJson;

constexpr const char* kBertNormalizer =
    R"({"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true})";

std::unique_ptr<Tokenizer> Bert() {
  return MustParse(TokenizerJson(BertModel(), kBertNormalizer, R"({"type":"BertPreTokenizer"})", BertTemplate(),
                                 BertSpecials(), R"({"type":"WordPiece","prefix":"##","cleanup":true})"));
}

TEST(TokenizerTest, BertWordPiece) {
  auto t = Bert();
  auto e = t->Encode("Hello, UNAFFABLE world! Café\t中文 xyz");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_THAT(e->ids, ElementsAre(2, 4, 9, 6, 7, 8, 5, 10, 11, 12, 13, 1, 3));
  EXPECT_THAT(e->tokens, ElementsAre("[CLS]", "hello", ",", "un", "##aff", "##able", "world", "!", "cafe", "中", "文",
                                     "[UNK]", "[SEP]"));
  EXPECT_EQ(e->type_ids, std::vector<int64_t>(13, 0));
  EXPECT_EQ(e->attention_mask, std::vector<int64_t>(13, 1));
}

TEST(TokenizerTest, WordPieceLongWordAndUnmatchedPieceAreOneUnknown) {
  auto t = Bert();
  auto e = t->Encode("unaffableunaffable abx", /*add_special_tokens=*/false);  // 18 characters > 10
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(e->ids, ElementsAre(1, 1));
}

TEST(TokenizerTest, EmptyAndWhitespaceOnlyTextsGiveOnlySpecialTokens) {
  auto t = Bert();
  for (const char* text : {"", "   ", "\t\n"}) {
    auto e = t->Encode(text);
    ASSERT_TRUE(e.ok());
    EXPECT_THAT(e->ids, ElementsAre(2, 3)) << "'" << text << "'";
    auto bare = t->Encode(text, false);
    ASSERT_TRUE(bare.ok());
    EXPECT_TRUE(bare->ids.empty());
  }
}

TEST(TokenizerTest, SpecialTokensInTheTextAreMatchedBeforeNormalization) {
  auto t = Bert();
  auto e = t->Encode("[CLS]hello[SEP] [cls]", false);
  ASSERT_TRUE(e.ok());
  // "[cls]" is not the special token (matching is case-sensitive, on the raw text).
  EXPECT_THAT(e->ids, ElementsAre(2, 4, 3, 1, 1, 1));
}

TEST(TokenizerTest, InvalidUtf8NamesTheByteOffset) {
  auto t = Bert();
  for (auto [text, offset] : {std::pair{std::string("ab\xC3"), 2}, {std::string("hello \xED\xA0\x80"), 6},
                              {std::string("\xC0\xAF"), 0}, {std::string("ok \xF4\x90\x80\x80"), 3}}) {
    auto e = t->Encode(text);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.status().message(), HasSubstr("invalid UTF-8 at byte offset " + std::to_string(offset)));
  }
}

TEST(TokenizerTest, TruncationFromTheFileLeavesRoomForSpecialTokens) {
  auto t = MustParse(TokenizerJson(BertModel(), kBertNormalizer, R"({"type":"BertPreTokenizer"})", BertTemplate(),
                                   BertSpecials(), "null",
                                   R"({"max_length":5,"strategy":"LongestFirst","stride":0,"direction":"Right"})"));
  std::string long_text;
  for (int i = 0; i < 5000; ++i) long_text += "hello world ";
  auto e = t->Encode(long_text);
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(e->ids, ElementsAre(2, 4, 5, 4, 3));
  auto bare = t->Encode(long_text, false);
  ASSERT_TRUE(bare.ok());
  EXPECT_THAT(bare->ids, ElementsAre(4, 5, 4, 5, 4));

  TruncationOptions left;
  left.max_length = 4;
  left.direction = Side::kLeft;
  ASSERT_TRUE(t->set_truncation(left).ok());
  e = t->Encode("hello world , !");
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(e->ids, ElementsAre(2, 9, 10, 3));

  left.max_length = 1;  // smaller than [CLS] + [SEP]
  const Status s = t->set_truncation(left);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("special tokens take 2"));
}

TEST(TokenizerTest, PaddingToLongestFixedAndLeft) {
  auto t = Bert();
  PaddingOptions p;
  t->set_padding(p);
  std::vector<std::string_view> texts{"hello", "hello world !"};
  auto batch = t->EncodeBatch(texts);
  ASSERT_TRUE(batch.ok());
  EXPECT_THAT((*batch)[0].ids, ElementsAre(2, 4, 3, 0, 0));
  EXPECT_THAT((*batch)[0].attention_mask, ElementsAre(1, 1, 1, 0, 0));
  EXPECT_THAT((*batch)[0].tokens.back(), "[PAD]");
  EXPECT_THAT((*batch)[1].ids, ElementsAre(2, 4, 5, 10, 3));

  p.fixed_length = 6;
  p.direction = Side::kLeft;
  p.pad_id = 99;
  p.pad_type_id = 1;
  t->set_padding(p);
  auto e = t->Encode("hello");
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(e->ids, ElementsAre(99, 99, 99, 2, 4, 3));
  EXPECT_THAT(e->type_ids, ElementsAre(1, 1, 1, 0, 0, 0));
  EXPECT_THAT(e->attention_mask, ElementsAre(0, 0, 0, 1, 1, 1));
}

TEST(TokenizerTest, PaddingSectionOfTheFile) {
  auto t = MustParse(TokenizerJson(BertModel(), kBertNormalizer, R"({"type":"BertPreTokenizer"})", BertTemplate(),
                                   BertSpecials(), "null", "null",
                                   R"({"strategy":{"Fixed":4},"direction":"Right","pad_to_multiple_of":null,
                                       "pad_id":0,"pad_type_id":0,"pad_token":"[PAD]"})"));
  ASSERT_TRUE(t->padding().has_value());
  EXPECT_EQ(t->padding()->fixed_length, 4u);
  auto e = t->Encode("hello");
  ASSERT_TRUE(e.ok());
  EXPECT_THAT(e->ids, ElementsAre(2, 4, 3, 0));
}

TEST(TokenizerTest, DecodeWordPiece) {
  auto t = Bert();
  const std::vector<int64_t> ids{2, 4, 9, 6, 7, 8, 10, 3};
  auto text = t->Decode(ids);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "hello, unaffable!");
  text = t->Decode(ids, /*skip_special_tokens=*/false);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "[CLS] hello, unaffable! [SEP]");
  const std::vector<int64_t> bad{4, 12345};
  auto err = t->Decode(bad);
  ASSERT_FALSE(err.ok());
  EXPECT_THAT(err.status().message(), HasSubstr("id 12345"));
}

TEST(TokenizerTest, TokenToIdPrefersAddedTokens) {
  auto t = Bert();
  EXPECT_EQ(t->TokenToId("hello"), 4);
  EXPECT_EQ(t->TokenToId("[SEP]"), 3);
  EXPECT_EQ(t->TokenToId("nope"), std::nullopt);
  EXPECT_EQ(t->IdToToken(7), "##aff");
  EXPECT_EQ(t->VocabSize(), 16u);
}

TEST(TokenizerTest, ConcurrentEncodesAgree) {
  auto t = Bert();
  auto want = t->Encode("Hello, UNAFFABLE world! Café");
  ASSERT_TRUE(want.ok());
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 300; ++j) {
        auto e = t->Encode("Hello, UNAFFABLE world! Café");
        if (!e.ok() || e->ids != want->ids) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(TokenizerTest, FromFileNamesTheMissingPath) {
  auto t = Tokenizer::FromFile("/nonexistent/tokenizer.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(t.status().message(), HasSubstr("/nonexistent/tokenizer.json"));
}

}  // namespace
}  // namespace hone::process
