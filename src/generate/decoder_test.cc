// The paged layout against the dense one: the same tiny weights (build_decoder.py writes both), the same prompt,
// so the logits may differ only by the paged cache's rounding of keys and values (float16, or int8).
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

// Runs a 21-token prompt through `dense_dir` whole and through `paged_dir` in two chunks over blocks 4, 1, 2 of a
// pool of 5 (so positions follow the table, not the pool), and compares the logits: the largest difference must stay
// under `tolerance` times the largest logit, and every position's argmax must agree.
void ExpectPagedMatchesDense(const char* dense_dir, const char* paged_dir, DataType element, double tolerance) {
  auto dense = Decoder::Open(TinyModel(dense_dir), {});
  auto paged = Decoder::Open(TinyModel(paged_dir), {});
  ASSERT_TRUE(dense.ok()) << dense.status().ToString();
  ASSERT_TRUE(paged.ok()) << paged.status().ToString();
  const DecoderShape& shape = (*paged)->shape();
  EXPECT_EQ(shape.layout, KvLayout::kPaged);
  EXPECT_EQ(shape.kv_element, element);
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

  Tensor pool = *Tensor::Allocate(element, {5, shape.layers, 2, shape.kv_heads, block_tokens, shape.head_size});
  Tensor scales;
  if (element == DataType::kFp16) {  // NaN: a position read before it is written makes every logit NaN
    std::fill_n(pool.mutable_values<uint16_t>().begin(), pool.mutable_values<uint16_t>().size(), uint16_t{0x7e00});
  } else {
    std::fill_n(pool.mutable_values<int8_t>().begin(), pool.mutable_values<int8_t>().size(), int8_t{1});
    scales = *Tensor::Allocate(DataType::kFp16,
                               {5, shape.layers, 2, shape.kv_heads, block_tokens, shape.head_size / 32});
    std::fill_n(scales.mutable_values<uint16_t>().begin(), scales.mutable_values<uint16_t>().size(), uint16_t{0x7e00});
  }
  std::vector<float> got;
  for (auto [from, count] : {std::pair<int64_t, int64_t>{0, first}, {first, n - first}}) {
    DecoderStep step;
    step.batch = 1;
    step.sequence = count;
    step.input_ids.assign(ids.begin() + from, ids.begin() + from + count);
    for (int64_t i = 0; i < count; ++i) step.position_ids.push_back(from + i);
    step.logits_to_keep = 0;
    step.kv_cache = pool;
    step.kv_scales = scales;
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
  EXPECT_LT(worst, tolerance * largest) << "largest logit " << largest;
  for (int64_t p = 0; p < n; ++p) {
    auto row = [&](const float* base) {
      return std::max_element(base + p * shape.vocab, base + (p + 1) * shape.vocab) - (base + p * shape.vocab);
    };
    EXPECT_EQ(row(got.data()), row(expected.data())) << "position " << p;
  }
  ::testing::Test::RecordProperty("max_logit_diff", std::to_string(worst));
  std::printf("%s vs %s: largest logit difference %.3g (largest logit %.3g) over %zu logits\n", paged_dir, dense_dir,
              worst, largest, got.size());
}

TEST(DecoderTest, ThePagedLayoutGivesTheDenseLayoutsLogitsInChunksOverScatteredBlocks) {
  // float16 keeps 11 bits: keys and values off by up to 2^-12 of themselves move the logits by about that share of
  // their size.
  ExpectPagedMatchesDense("tiny_llm", "tiny_llm_paged", DataType::kFp16, 1e-3);
}

TEST(DecoderTest, AnInt8PagedCacheGivesTheDenseLayoutsLogitsWithinItsRounding) {
  // int8 with a scale per 32 elements: each key and value within max|x| / 254 of its group; the pool's NaN scales
  // must never be read.
  ExpectPagedMatchesDense("tiny_llm_hs32", "tiny_llm_hs32_int8", DataType::kInt8, 1e-2);
}

// One row's token 5 at position `past` (its true position too), the row's blocks `table` of `pool`.
DecoderStep OneToken(int32_t past, Tensor pool, std::vector<int32_t> table) {
  DecoderStep step;
  step.batch = 1;
  step.sequence = 1;
  step.input_ids = {5};
  step.position_ids = {past};
  step.kv_cache = std::move(pool);
  step.table_width = static_cast<int64_t>(table.size());
  step.block_table = std::move(table);
  step.past_lengths = {past};
  return step;
}

TEST(DecoderTest, AnInt8PagedDecoderNeedsItsScales) {
  auto paged = Decoder::Open(TinyModel("tiny_llm_hs32_int8"), {});
  ASSERT_TRUE(paged.ok()) << paged.status().ToString();
  const DecoderShape& shape = (*paged)->shape();
  const DecoderStep step = OneToken(
      0, *Tensor::Allocate(DataType::kInt8, {1, shape.layers, 2, shape.kv_heads, 4, shape.head_size}), {0});
  EXPECT_FALSE((*paged)->Run(step).ok());  // no kv_scales
}

TEST(DecoderTest, APagedStepPastItsBlockTableIsRefusedNamingIt) {
  auto paged = Decoder::Open(TinyModel("tiny_llm_paged"), {});
  ASSERT_TRUE(paged.ok());
  const DecoderShape& shape = (*paged)->shape();
  // position 8 needs a third block of 4
  const DecoderStep step = OneToken(
      8, *Tensor::Allocate(DataType::kFp16, {2, shape.layers, 2, shape.kv_heads, 4, shape.head_size}), {0, 1});
  auto out = (*paged)->Run(step);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), ::testing::HasSubstr("9 positions need 3 blocks, block_table holds 2"));
}

}  // namespace
}  // namespace hone::generate
