#include "runtime/paged_attention.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "tensor/half_convert.h"

namespace hone::runtime {
namespace {

using ::testing::HasSubstr;

float RoundHalf(float x) {
  uint16_t h = 0;
  FloatToHalf(&x, &h, 1);
  float back = 0;
  HalfToFloat(&h, &back, 1);
  return back;
}

// A step over rows of different pasts, its blocks scattered over the pool, checked against plain attention over
// dense keys and values (the past as the cache holds it, the new positions as stored: rounded to float16, or
// quantized to int8 with a float16 scale per 32 elements).
struct Case {
  int64_t batch, sequence, heads, kv_heads, head_size, block_tokens, layers, layer;
  std::vector<int32_t> past;
  KvElement element = KvElement::kFloat16;
};

void CheckAgainstDense(const Case& c) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t d = c.head_size;
  const bool int8 = c.element == KvElement::kInt8;
  int64_t table_width = 0;
  for (int32_t p : c.past)
    table_width = std::max<int64_t>(table_width, (p + c.sequence + c.block_tokens - 1) / c.block_tokens);
  const int64_t blocks = c.batch * table_width + 3;
  // Each row gets distinct blocks in a shuffled order: positions follow the table, not the pool's order.
  std::vector<int32_t> ids(static_cast<size_t>(blocks));
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<int32_t> table(ids.begin(), ids.begin() + c.batch * table_width);

  // The past: whatever the blocks hold.
  const size_t run = static_cast<size_t>(c.block_tokens * d);
  const size_t elements = static_cast<size_t>(blocks * c.layers * 2 * c.kv_heads) * run;
  std::vector<uint16_t> half(int8 ? 0 : elements);
  std::vector<int8_t> q8(int8 ? elements : 0);
  std::vector<uint16_t> scales(int8 ? elements / kKvGroup : 0);
  for (uint16_t& h : half) h = [&] { float x = normal(rng); uint16_t b = 0; FloatToHalf(&x, &b, 1); return b; }();
  for (int8_t& v : q8) v = static_cast<int8_t>(std::uniform_int_distribution<int>(-127, 127)(rng));
  for (uint16_t& h : scales) h = [&] { float x = 0.01f + std::fabs(normal(rng)) * 0.02f; uint16_t b = 0;
                                        FloatToHalf(&x, &b, 1); return b; }();
  const std::vector<uint16_t> half_before = half, scales_before = scales;
  const std::vector<int8_t> q8_before = q8;

  auto fill = [&](int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = normal(rng);
    return v;
  };
  const int64_t width = (c.heads + 2 * c.kv_heads) * d;
  std::vector<float> qkv = fill(c.batch * c.sequence * width);
  // Views of the packed rows: query head h, key or value head g of row b, position s.
  auto q = [&](int64_t b, int64_t h, int64_t s) { return &qkv[static_cast<size_t>((b * c.sequence + s) * width + h * d)]; };
  auto kv = [&](int kind, int64_t b, int64_t g, int64_t s) {
    return &qkv[static_cast<size_t>((b * c.sequence + s) * width + (c.heads + kind * c.kv_heads + g) * d)];
  };
  std::vector<float> out(static_cast<size_t>(c.batch * c.sequence * c.heads * d), -1.0f);

  PagedAttentionArgs a;
  a.batch = c.batch;
  a.sequence = c.sequence;
  a.heads = c.heads;
  a.kv_heads = c.kv_heads;
  a.head_size = d;
  a.layer = c.layer;
  a.layers = c.layers;
  a.blocks = blocks;
  a.block_tokens = c.block_tokens;
  a.table_width = table_width;
  a.scale = 1.0f / std::sqrt(static_cast<float>(d));
  a.qkv = qkv.data();
  a.element = c.element;
  a.cache = int8 ? static_cast<void*>(q8.data()) : static_cast<void*>(half.data());
  a.scales = int8 ? scales.data() : nullptr;
  a.block_table = table.data();
  a.past = c.past.data();
  a.out = out.data();
  ASSERT_TRUE(CheckPagedAttention(a).ok()) << CheckPagedAttention(a).message();
  PagedAttention(a);

  // The dense reference: element i of position j of row b, KV head g, as the blocks hold it (before or after).
  auto cached = [&](bool after, int64_t b, int kind, int64_t g, int64_t j, int64_t i) {
    const int64_t block = table[b * table_width + j / c.block_tokens];
    const size_t at = static_cast<size_t>((((block * c.layers + c.layer) * 2 + kind) * c.kv_heads + g)) * run +
                      static_cast<size_t>((j % c.block_tokens) * d + i);
    float x = 0;
    if (!int8) {
      HalfToFloat(&(after ? half : half_before)[at], &x, 1);
      return x;
    }
    HalfToFloat(&(after ? scales : scales_before)[at / kKvGroup], &x, 1);
    return x * static_cast<float>((after ? q8 : q8_before)[at]);
  };
  const int64_t group = c.heads / c.kv_heads;
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t past = c.past[b];
    for (int64_t g = 0; g < c.kv_heads; ++g)
      for (int64_t s = 0; s < c.sequence; ++s)
        for (int kind = 0; kind < 2; ++kind)
          for (int64_t i = 0; i < d; ++i) {
            const float x = kv(kind, b, g, s)[i];
            if (!int8) {  // stored: the new key and value, rounded to float16
              EXPECT_EQ(cached(true, b, kind, g, past + s, i), RoundHalf(x));
              continue;
            }
            // quantized: within half a step of its group's scale, max|x| / 127 (rounded to float16)
            float amax = 0;
            for (int64_t k = i / kKvGroup * kKvGroup; k < (i / kKvGroup + 1) * kKvGroup; ++k)
              amax = std::max(amax, std::fabs(kv(kind, b, g, s)[k]));
            EXPECT_NEAR(cached(true, b, kind, g, past + s, i), x, RoundHalf(amax / 127.0f) * 0.5f + 1e-3f * amax)
                << "row " << b << " position " << past + s << " element " << i;
          }
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t s = 0; s < c.sequence; ++s) {
        const int64_t g = h / group;
        const int64_t n = past + s + 1;
        std::vector<double> score(static_cast<size_t>(n));
        double top = -1e300;
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t i = 0; i < d; ++i) dot += double(q(b, h, s)[i]) * cached(j >= past, b, 0, g, j, i);
          score[j] = dot * a.scale;
          top = std::max(top, score[j]);
        }
        double sum = 0;
        for (double& x : score) sum += (x = std::exp(x - top));
        for (int64_t i = 0; i < d; ++i) {
          double want = 0;
          for (int64_t j = 0; j < n; ++j) want += score[j] / sum * cached(j >= past, b, 1, g, j, i);
          EXPECT_NEAR(out[static_cast<size_t>(((b * c.sequence + s) * c.heads + h) * d + i)], want, 2e-5)
              << "row " << b << " head " << h << " query " << s << " element " << i;
        }
      }
  }
  // Nothing outside the new positions changed: other layers, other rows' blocks, the past.
  size_t changed = 0;
  for (size_t i = 0; i < half.size(); ++i) changed += half[i] != half_before[i];
  for (size_t i = 0; i < q8.size(); ++i) changed += q8[i] != q8_before[i];
  EXPECT_LE(changed, static_cast<size_t>(c.batch * c.sequence * 2 * c.kv_heads * d));
  size_t scales_changed = 0;
  for (size_t i = 0; i < scales.size(); ++i) scales_changed += scales[i] != scales_before[i];
  EXPECT_LE(scales_changed, static_cast<size_t>(c.batch * c.sequence * 2 * c.kv_heads * d / kKvGroup));
}

TEST(PagedAttentionTest, DecodeRowsOfDifferentPastsMatchDenseAttention) {
  CheckAgainstDense({.batch = 3, .sequence = 1, .heads = 4, .kv_heads = 2, .head_size = 16, .block_tokens = 4,
                     .layers = 3, .layer = 1, .past = {0, 5, 12}});
}

TEST(PagedAttentionTest, PromptChunkAfterAPastMatchesDenseAttention) {
  // 70 queries: three units of up to 32 along the sequence; the past ends inside a block.
  CheckAgainstDense({.batch = 1, .sequence = 70, .heads = 6, .kv_heads = 2, .head_size = 24, .block_tokens = 16,
                     .layers = 2, .layer = 0, .past = {9}});
}

TEST(PagedAttentionTest, OneHeadPerKvHeadAndOneTokenBlocks) {
  CheckAgainstDense({.batch = 2, .sequence = 3, .heads = 2, .kv_heads = 2, .head_size = 8, .block_tokens = 1,
                     .layers = 1, .layer = 0, .past = {2, 0}});
}

TEST(PagedAttentionTest, Int8CacheDecodeRowsOfDifferentPastsMatchDenseAttention) {
  CheckAgainstDense({.batch = 3, .sequence = 1, .heads = 4, .kv_heads = 2, .head_size = 64, .block_tokens = 4,
                     .layers = 3, .layer = 1, .past = {0, 5, 12}, .element = KvElement::kInt8});
}

TEST(PagedAttentionTest, Int8CachePromptChunkAfterAPastMatchesDenseAttention) {
  CheckAgainstDense({.batch = 1, .sequence = 70, .heads = 6, .kv_heads = 2, .head_size = 32, .block_tokens = 16,
                     .layers = 2, .layer = 0, .past = {9}, .element = KvElement::kInt8});
}

// One row's first position in a one-block int8 pool: one query head, one KV head of 32, the pool's values 5 and its
// scales 1.0 before the step, so what the step writes shows.
struct OnePositionInt8 {
  std::vector<float> qkv = std::vector<float>(3 * 32, 0.0f);  // query, key, value heads
  std::vector<int8_t> cache = std::vector<int8_t>(2 * 32, 5);
  std::vector<uint16_t> scales = std::vector<uint16_t>(2, 0x3c00);
  std::vector<int32_t> table = {0}, past = {0};
  std::vector<float> out = std::vector<float>(32, -1.0f);

  void Run() {
    PagedAttentionArgs a;
    a.batch = a.sequence = a.heads = a.kv_heads = a.layers = a.blocks = a.block_tokens = a.table_width = 1;
    a.head_size = 32;
    a.element = KvElement::kInt8;
    a.qkv = qkv.data();
    a.cache = cache.data();
    a.scales = scales.data();
    a.block_table = table.data();
    a.past = past.data();
    a.out = out.data();
    ASSERT_TRUE(CheckPagedAttention(a).ok());
    PagedAttention(a);
  }
};

TEST(PagedAttentionTest, Int8QuantizesAnAllZeroGroupToZero) {
  // A zero group has scale 0: stored as zeros, read back as zeros (no division by zero, no NaN).
  OnePositionInt8 step;
  step.qkv[0] = 1.0f;
  step.Run();
  for (int8_t v : step.cache) EXPECT_EQ(v, 0);
  EXPECT_EQ(step.scales[0], 0);
  for (float v : step.out) EXPECT_EQ(v, 0.0f);
}

TEST(PagedAttentionTest, Int8KeepsANaNVisibleInsteadOfStoringANumber) {
  OnePositionInt8 step;
  std::fill(step.qkv.begin(), step.qkv.end(), 0.5f);
  step.qkv[32 + 3] = std::nanf("");  // one key element
  step.Run();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(step.cache[i], 0);  // the key group: zeros beside a NaN scale
  float key_scale = 0;
  HalfToFloat(&step.scales[0], &key_scale, 1);
  EXPECT_TRUE(std::isnan(key_scale));
  EXPECT_TRUE(std::isnan(step.out[0]));  // the score is NaN, so is the output
}

TEST(PagedAttentionTest, RotaryTurnsQueryAndKeyPairsByPositionTimesFrequencyAndLeavesValues) {
  PagedAttentionArgs a;
  a.batch = 1;
  a.sequence = 2;
  a.heads = 1;
  a.kv_heads = 1;
  a.head_size = 4;
  std::vector<float> qkv = {1, 2, 3, 4, /*key*/ 5, 6, 7, 8, /*value*/ 9, 10, 11, 12,   // position 0: unchanged
                            1, 0, 0, 0, /*key*/ 0, 1, 0, 0, /*value*/ 1, 1, 1, 1};   // position 3
  const std::vector<float> before = qkv;
  const std::vector<int64_t> positions = {0, 3};
  ApplyRotary(a, 100.0f, positions.data(), qkv.data());
  for (size_t i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(qkv[i], before[i]) << i;
  // frequencies 1 and 100^(-1/2) = 0.1; pairs (0, 2) and (1, 3)
  EXPECT_FLOAT_EQ(qkv[12], std::cos(3.0f));   // query (1, 0) in pair (0, 2) turned by 3
  EXPECT_FLOAT_EQ(qkv[14], std::sin(3.0f));
  EXPECT_FLOAT_EQ(qkv[13], 0.0f);
  EXPECT_FLOAT_EQ(qkv[17], std::cos(0.3f));  // key (1, 0) in pair (1, 3) turned by 0.3
  EXPECT_FLOAT_EQ(qkv[19], std::sin(0.3f));
  for (size_t i = 20; i < 24; ++i) EXPECT_EQ(qkv[i], 1.0f);  // values are not rotated
}

TEST(PagedAttentionTest, RefusesWhatDoesNotFit) {
  std::vector<int32_t> table = {0, 1};
  std::vector<int32_t> past = {4};
  PagedAttentionArgs a;
  a.batch = 1;
  a.sequence = 1;
  a.heads = 2;
  a.kv_heads = 1;
  a.head_size = 4;
  a.layers = 1;
  a.blocks = 2;
  a.block_tokens = 2;
  a.table_width = 2;
  a.block_table = table.data();
  a.past = past.data();
  EXPECT_THAT(CheckPagedAttention(a).message(), HasSubstr("5 positions need 3 blocks, block_table holds 2"));
  past[0] = 1;
  table[0] = 2;
  EXPECT_THAT(CheckPagedAttention(a).message(), HasSubstr("block_table[0] = 2 outside the pool of 2 blocks"));
  table[0] = 0;
  a.layer = 1;
  EXPECT_THAT(CheckPagedAttention(a).message(), HasSubstr("layer 1 outside the cache's 1 layers"));
  a.layer = 0;
  a.heads = 3;
  a.kv_heads = 2;
  EXPECT_THAT(CheckPagedAttention(a).message(), HasSubstr("must be a multiple"));
  a.heads = 2;
  a.kv_heads = 1;
  past[0] = -1;
  EXPECT_THAT(CheckPagedAttention(a).message(), HasSubstr("negative"));
  past[0] = 1;
  EXPECT_TRUE(CheckPagedAttention(a).ok());
  a.element = KvElement::kInt8;  // no scales, and head_size 4 is not a multiple of 32
  EXPECT_THAT(CheckPagedAttention(a).message(), HasSubstr("int8 cache needs its scales"));
}

}  // namespace
}  // namespace hone::runtime
