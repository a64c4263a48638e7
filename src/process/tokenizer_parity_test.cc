// hone's tokenizer against the Python `tokenizers` library: testdata/make_parity.py trained six small tokenizers in
// the layouts of real models and recorded what tokenizers 0.22.1 gives for every text of
// tests/data/tokenizer_texts.jsonl (frozen in testdata/parity_texts.json). Every id, type id and mask must match.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process/tokenizer.h"

namespace hone::process {
namespace {

using Json = nlohmann::json;

std::string TestData(const std::string& name) { return std::string(HONE_SOURCE_DIR) + "/src/process/testdata/" + name; }

Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

std::string Show(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) {
    if (!s.empty()) s.push_back(' ');
    s.append(std::to_string(x));
  }
  return s;
}

// Empty when equal; else the first difference, with the text and hone's tokens around it.
std::string Compare(const std::string& what, const std::vector<int64_t>& got, const std::vector<int64_t>& want,
                    const Encoding& e) {
  if (got == want) return "";
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  std::string near;
  for (size_t j = i >= 3 ? i - 3 : 0; j < std::min(e.tokens.size(), i + 4); ++j) near += "'" + e.tokens[j] + "' ";
  return what + " differ at position " + std::to_string(i) + " (hone has " + std::to_string(got.size()) +
         ", tokenizers " + std::to_string(want.size()) + "); hone's tokens there: " + near + "\n  hone:       " +
         Show(got).substr(0, 400) + "\n  tokenizers: " + Show(want).substr(0, 400);
}

// Checks one encoding against a recorded one ({"ids": ..., optional "type_ids", optional "attention_mask"}).
void ExpectSame(const Encoding& e, const Json& want, const std::string& text) {
  const auto ids = want.at("ids").get<std::vector<int64_t>>();
  const auto type_ids = want.contains("type_ids") ? want.at("type_ids").get<std::vector<int64_t>>()
                                                  : std::vector<int64_t>(ids.size(), 0);
  const auto mask = want.contains("attention_mask") ? want.at("attention_mask").get<std::vector<int64_t>>()
                                                    : std::vector<int64_t>(ids.size(), 1);
  std::string problem = Compare("ids", e.ids, ids, e);
  if (problem.empty()) problem = Compare("type_ids", e.type_ids, type_ids, e);
  if (problem.empty()) problem = Compare("attention_mask", e.attention_mask, mask, e);
  EXPECT_EQ(problem, "") << "text: " << Json(text).dump().substr(0, 300);
  EXPECT_EQ(e.tokens.size(), e.ids.size());
}

class TokenizerParityTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto t = Tokenizer::FromFile(TestData(GetParam() + ".tokenizer.json"));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tokenizer_ = std::move(t).value();
    expected_ = ReadJson(TestData(GetParam() + ".expected.json"));
    texts_ = ReadJson(TestData("parity_texts.json")).get<std::vector<std::string>>();
    for (const auto& extra : expected_.at("extra_texts")) texts_.push_back(extra.get<std::string>());
  }

  std::vector<std::string_view> FirstTexts(size_t n) const {
    return std::vector<std::string_view>(texts_.begin(), texts_.begin() + static_cast<std::ptrdiff_t>(n));
  }

  std::unique_ptr<Tokenizer> tokenizer_;
  Json expected_;
  std::vector<std::string> texts_;
};

TEST_P(TokenizerParityTest, EveryTextWithSpecialTokens) {
  const Json& cases = expected_.at("cases");
  ASSERT_EQ(cases.size(), texts_.size()) << "regenerate with testdata/make_parity.py";
  for (size_t i = 0; i < texts_.size(); ++i) {
    auto e = tokenizer_->Encode(texts_[i]);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ExpectSame(*e, cases[i], texts_[i]);
  }
}

TEST_P(TokenizerParityTest, WithoutSpecialTokens) {
  const Json& cases = expected_.at("no_special_tokens");
  for (size_t i = 0; i < cases.size(); ++i) {
    auto e = tokenizer_->Encode(texts_[i], /*add_special_tokens=*/false);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ExpectSame(*e, cases[i], texts_[i]);
  }
}

TEST_P(TokenizerParityTest, BatchPaddedToMultipleOfEight) {
  const Json& batch = expected_.at("padded_batch");
  const Json& o = batch.at("options");
  PaddingOptions padding;
  padding.direction = o.at("direction") == "left" ? Side::kLeft : Side::kRight;
  padding.pad_id = o.at("pad_id").get<int64_t>();
  padding.pad_to_multiple_of = o.at("pad_to_multiple_of").get<size_t>();
  tokenizer_->set_padding(padding);
  const auto texts = FirstTexts(batch.at("first_texts").get<size_t>());
  auto encodings = tokenizer_->EncodeBatch(texts);
  ASSERT_TRUE(encodings.ok()) << encodings.status().ToString();
  ASSERT_EQ(encodings->size(), batch.at("encodings").size());
  for (size_t i = 0; i < texts.size(); ++i) ExpectSame((*encodings)[i], batch.at("encodings")[i], std::string(texts[i]));
}

TEST_P(TokenizerParityTest, BatchFixedLengthTruncatedOnTheLeft) {
  const Json& batch = expected_.at("fixed_24_left_truncated");
  PaddingOptions padding;
  padding.fixed_length = 24;
  padding.pad_id = expected_.at("padded_batch").at("options").at("pad_id").get<int64_t>();
  tokenizer_->set_padding(padding);
  TruncationOptions truncation;
  truncation.max_length = 24;
  truncation.direction = Side::kLeft;
  ASSERT_TRUE(tokenizer_->set_truncation(truncation).ok());
  const auto texts = FirstTexts(batch.at("first_texts").get<size_t>());
  auto encodings = tokenizer_->EncodeBatch(texts);
  ASSERT_TRUE(encodings.ok()) << encodings.status().ToString();
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ((*encodings)[i].size(), 24u);
    ExpectSame((*encodings)[i], batch.at("encodings")[i], std::string(texts[i]));
  }
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, TokenizerParityTest,
                         ::testing::Values("bert", "bert_cased", "gpt2", "llama3", "smollm2", "mixed"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hone::process
