// Streaming text from token ids: the pieces put together are the whole decoded text, nothing is taken back, a
// character split across tokens waits for its last byte, and stop sequences end the text before them.
#include "generate/text_stream.h"

namespace hone::generate {
namespace {

class TextStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = process::Tokenizer::FromFile(std::string(HONE_SOURCE_DIR) + "/src/process/testdata/smollm2.tokenizer.json");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tokenizer_ = std::move(*t);
  }
  std::vector<int64_t> Ids(const std::string& text) {
    auto e = tokenizer_->Encode(text, false);
    EXPECT_TRUE(e.ok());
    return e->ids;
  }
  // Pushes every id; returns the pieces, the Finish() text last.
  std::vector<std::string> Stream(const std::vector<int64_t>& ids, std::vector<std::string> stop, bool* stopped) {
    TextStream s(*tokenizer_, std::move(stop));
    std::vector<std::string> pieces;
    for (int64_t id : ids) {
      auto piece = s.Push(id);
      EXPECT_TRUE(piece.ok());
      pieces.push_back(*piece);
    }
    pieces.push_back(s.Finish());
    *stopped = s.stopped();
    return pieces;
  }
  std::unique_ptr<process::Tokenizer> tokenizer_;
};

std::string Join(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

TEST_F(TextStreamTest, PiecesMakeTheDecodedTextAndNeverSplitACharacter) {
  for (const std::string text : {"Hello, world! 12345", "naïve café — 日本語 👍🏽 done", "  spaces\tand\nlines  "}) {
    const auto ids = Ids(text);
    bool stopped = false;
    auto pieces = Stream(ids, {}, &stopped);
    EXPECT_FALSE(stopped);
    EXPECT_EQ(Join(pieces), *tokenizer_->Decode(ids)) << text;
    for (const auto& p : pieces) EXPECT_EQ(p.find("\xEF\xBF\xBD"), std::string::npos) << text;
  }
}

TEST_F(TextStreamTest, AStopSequenceEndsTheTextBeforeIt) {
  bool stopped = false;
  auto pieces = Stream(Ids("The answer is 42. Next question: why?"), {"Next", "never"}, &stopped);
  EXPECT_TRUE(stopped);
  EXPECT_EQ(Join(pieces), "The answer is 42. ");
}

TEST_F(TextStreamTest, TextThatMightStartAStopIsHeldBackThenReleased) {
  TextStream s(*tokenizer_, {"<|im_end|>"});
  std::string out;
  for (int64_t id : Ids("a <|im")) out += *s.Push(id);
  EXPECT_EQ(out, "a ");  // "<|im" could still become <|im_end|>
  out += s.Finish();
  EXPECT_EQ(out, "a <|im");
  TextStream t(*tokenizer_, {"<|im_end|>"});
  out.clear();
  for (int64_t id : Ids("a <|in b")) out += *t.Push(id);
  EXPECT_EQ(out, "a <|in b");  // released as soon as it cannot
}

TEST_F(TextStreamTest, TheEarliestOfSeveralStopsWins) {
  bool stopped = false;
  auto pieces = Stream(Ids("one two three four"), {"four", "two"}, &stopped);
  EXPECT_TRUE(stopped);
  EXPECT_EQ(Join(pieces), "one ");
}

}  // namespace
}  // namespace hone::generate
