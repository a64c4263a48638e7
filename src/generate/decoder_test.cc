// The paged layout against the dense one: the same tiny weights (build_decoder.py writes both), the same prompt,
// so the logits may differ only by the paged cache's float16 rounding of keys and values.
#include "generate/decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace hone::generate {
namespace {

std::string TinyModel(const char* dir) { return std::string(HONE_BINARY_DIR) + "/testdata/" + dir + "/model.onnx"; }

std::vector<int64_t> Prompt(int64_t n) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(1 + (i * 53) % 800);
  return ids;
}

TEST(DecoderTest, ThePagedLayoutGivesTheDenseLayoutsLogitsInChunksOverScatteredBlocks) {
  auto dense = Decoder::Open(TinyModel("tiny_llm"), {});
  auto paged = Decoder::Open(TinyModel("tiny_llm_paged"), {});
  ASSERT_TRUE(dense.ok()) << dense.status().ToString();
  ASSERT_TRUE(paged.ok()) << paged.status().ToString();
  const DecoderShape& shape = (*paged)->shape();
  EXPECT_EQ(shape.layout, KvLayout::kPaged);
  EXPECT_EQ((*dense)->shape().layout, KvLayout::kDense);
  EXPECT_EQ(shape.layers, (*dense)->shape().layers);
  EXPECT_EQ(shape.vocab, (*dense)->shape().vocab);
  EXPECT_TRUE((*paged)->session().metadata().FindInput("attention_mask") < 0);

  const int64_t n = 21, first = 13, block_tokens = 8;
  const std::vector<int64_t> ids = Prompt(n);
  DecoderStep whole;
  whole.batch = 1;
  whole.sequence = n;
  whole.input_ids = ids;
  whole.attention_mask.assign(n, 1);
  for (int64_t i = 0; i < n; ++i) whole.position_ids.push_back(i);
  whole.logits_to_keep = 0;
  for (int c = 0; c < shape.layers * 2; ++c)
    whole.past_key_values.push_back(*Tensor::Allocate(DataType::kFp32, {1, shape.kv_heads, 0, shape.head_size}));
  auto want = (*dense)->Run(whole);
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  // Blocks 4, 1, 2 of a pool of 5, so the positions follow the table and not the pool; two chunks, 13 then 8.
  Tensor pool = *Tensor::Allocate(DataType::kFp16, {5, shape.layers, 2, shape.kv_heads, block_tokens, shape.head_size});
  std::fill_n(pool.mutable_values<uint16_t>().begin(), pool.mutable_values<uint16_t>().size(), uint16_t{0x7e00});
  std::vector<float> got;
  for (auto [from, count] : {std::pair<int64_t, int64_t>{0, first}, {first, n - first}}) {
    DecoderStep step;
    step.batch = 1;
    step.sequence = count;
    step.input_ids.assign(ids.begin() + from, ids.begin() + from + count);
    for (int64_t i = 0; i < count; ++i) step.position_ids.push_back(from + i);
    step.logits_to_keep = 0;
    step.kv_cache = pool;
    step.table_width = 3;
    step.block_table = {4, 1, 2};
    step.past_lengths = {static_cast<int32_t>(from)};
    auto out = (*paged)->Run(step);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(out->present.empty());
    auto v = out->logits.values<float>();
    got.insert(got.end(), v.begin(), v.end());
  }
  auto expected = want->logits.values<float>();
  ASSERT_EQ(got.size(), expected.size());
  double worst = 0, largest = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    worst = std::max(worst, std::abs(double(got[i]) - expected[i]));
    largest = std::max(largest, std::abs(double(expected[i])));
  }
  // float16 keeps 11 bits: keys and values off by up to 2^-12 of themselves move the logits by about that share
  // of their size. The pool's NaN fill must never be read (it would make every logit NaN).
  EXPECT_LT(worst, 1e-3 * largest) << "largest logit " << largest;
  for (int64_t p = 0; p < n; ++p) {
    auto row = [&](const float* base) {
      return std::max_element(base + p * shape.vocab, base + (p + 1) * shape.vocab) - (base + p * shape.vocab);
    };
    EXPECT_EQ(row(got.data()), row(expected.data())) << "position " << p;
  }
  RecordProperty("max_logit_diff", std::to_string(worst));
  std::printf("paged vs dense: largest logit difference %.3g (largest logit %.3g) over %zu logits\n", worst, largest,
              got.size());
}

TEST(DecoderTest, APagedStepPastItsBlockTableIsRefusedNamingIt) {
  auto paged = Decoder::Open(TinyModel("tiny_llm_paged"), {});
  ASSERT_TRUE(paged.ok());
  const DecoderShape& shape = (*paged)->shape();
  DecoderStep step;
  step.batch = 1;
  step.sequence = 1;
  step.input_ids = {5};
  step.position_ids = {9};
  step.kv_cache = *Tensor::Allocate(DataType::kFp16, {2, shape.layers, 2, shape.kv_heads, 4, shape.head_size});
  step.table_width = 2;
  step.block_table = {0, 1};
  step.past_lengths = {8};  // position 8 needs a third block of 4
  auto out = (*paged)->Run(step);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), ::testing::HasSubstr("9 positions need 3 blocks, block_table holds 2"));
}

}  // namespace
}  // namespace hone::generate
