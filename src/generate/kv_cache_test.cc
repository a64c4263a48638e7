// The KV cache's block accounting and its prefix table: what a later prompt takes from the cache, what it must
// compute, what stays cached, and that caching never refuses a request the pool could hold.
#include "generate/kv_cache.h"

#include <gtest/gtest.h>

namespace hone::generate {
namespace {

// 4 blocks of 2 positions.
std::unique_ptr<KvCache> Small() {
  DecoderShape shape;
  shape.layers = 1;
  shape.kv_heads = 1;
  shape.head_size = 4;
  auto cache = KvCache::Create(shape, 2, 4);
  EXPECT_TRUE(cache.ok()) << cache.status().ToString();
  return cache.ok() ? std::move(*cache) : nullptr;
}

// A sequence that reserved and "wrote" the first `written` positions of `tokens` (the test sets the length that
// Append would have advanced) and registered its full blocks.
KvSequence Written(KvCache& cache, const std::vector<int64_t>& tokens, int64_t written) {
  KvSequence seq;
  EXPECT_TRUE(cache.Reserve(&seq, static_cast<int64_t>(tokens.size())).ok());
  seq.length = written;
  cache.Register(tokens, written, &seq);
  return seq;
}

TEST(KvCachePrefix, AReleasedPromptsFullBlocksServeTheNextPromptThatStartsTheSame) {
  auto cache = Small();
  KvSequence a = Written(*cache, {10, 11, 12, 13, 14}, 5);  // two full blocks and one position
  EXPECT_EQ(a.registered, 2);
  EXPECT_EQ(cache->cached_blocks(), 2);
  cache->Release(&a);
  EXPECT_EQ(cache->free_blocks(), 4);  // cached blocks no one holds count as free
  EXPECT_EQ(cache->cached_blocks(), 2);

  KvSequence b;
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{10, 11, 12, 13, 99, 98}, &b), 4);
  EXPECT_EQ(b.length, 4);
  EXPECT_EQ(b.reserved, 4);
  EXPECT_EQ(b.registered, 2);
  EXPECT_EQ(cache->free_blocks(), 2);
  cache->Release(&b);

  KvSequence c;  // the same first block, another second one
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{10, 11, 7, 7, 7}, &c), 2);
  cache->Release(&c);
  KvSequence d;  // another first block: nothing, whatever follows
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{9, 11, 12, 13, 14}, &d), 0);
  EXPECT_TRUE(d.blocks.empty());
}

TEST(KvCachePrefix, AtLeastOneTokenIsLeftToComputeForTheNextTokensLogits) {
  auto cache = Small();
  KvSequence a = Written(*cache, {1, 2, 3, 4}, 4);
  cache->Release(&a);
  KvSequence b;
  // The same four tokens: two cached blocks, but only the first is taken, so that a token remains to run.
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1, 2, 3, 4}, &b), 2);
  cache->Release(&b);
  KvSequence c;
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1}, &c), 0);
}

TEST(KvCachePrefix, OnlyWrittenFullBlocksAreRegisteredAndADuplicateStaysPrivate) {
  auto cache = Small();
  KvSequence a = Written(*cache, {1, 2, 3, 4, 5, 6}, 3);  // one full block written of three reserved
  EXPECT_EQ(a.registered, 1);
  a.length = 6;
  cache->Register(std::vector<int64_t>{1, 2, 3, 4, 5, 6}, 6, &a);
  EXPECT_EQ(a.registered, 3);
  // A second sequence that computed the same first block while `a` held it: its copy is not registered again.
  KvSequence b;
  ASSERT_TRUE(cache->Reserve(&b, 1).ok());
  b.length = 2;
  cache->Register(std::vector<int64_t>{1, 2}, 2, &b);
  EXPECT_EQ(b.registered, 0);
  EXPECT_EQ(cache->cached_blocks(), 3);
  cache->Release(&b);
  EXPECT_EQ(cache->free_blocks(), 1);  // b's private block is free again; a holds three
  cache->Release(&a);
}

TEST(KvCachePrefix, SharedBlocksAreCountedByReference) {
  auto cache = Small();
  KvSequence a = Written(*cache, {1, 2, 3}, 3);
  cache->Release(&a);
  KvSequence b, c;
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1, 2, 3}, &b), 2);
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1, 2, 5}, &c), 2);
  EXPECT_EQ(b.blocks, c.blocks);
  EXPECT_EQ(cache->free_blocks(), 3);
  cache->Release(&b);
  EXPECT_EQ(cache->free_blocks(), 3);  // c still holds it
  cache->Release(&c);
  EXPECT_EQ(cache->free_blocks(), 4);
  EXPECT_EQ(cache->cached_blocks(), 1);
}

TEST(KvCachePrefix, ARequestTheWholePoolHoldsEvictsTheCachedBlocks) {
  auto cache = Small();
  KvSequence a = Written(*cache, {1, 2, 3, 4, 5}, 5);
  cache->Release(&a);
  ASSERT_EQ(cache->cached_blocks(), 2);
  KvSequence big;
  ASSERT_TRUE(cache->Reserve(&big, 8).ok());  // every block: the two cached ones are evicted
  EXPECT_EQ(cache->cached_blocks(), 0);
  EXPECT_EQ(cache->free_blocks(), 0);
  KvSequence more;
  EXPECT_FALSE(cache->Reserve(&more, 1).ok());
  cache->Release(&big);
  KvSequence b;
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1, 2, 3, 4, 5}, &b), 0);  // gone with the eviction
}

TEST(KvCachePrefix, TheLeastRecentlyUsedCachedBlockIsEvictedFirst) {
  auto cache = Small();
  KvSequence a = Written(*cache, {1, 2, 3}, 3);  // block {1, 2}
  cache->Release(&a);
  KvSequence b = Written(*cache, {5, 6, 7}, 3);  // block {5, 6}
  cache->Release(&b);
  KvSequence use;  // {1, 2} used again: {5, 6} is now the least recently used
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1, 2, 9}, &use), 2);
  cache->Release(&use);
  KvSequence fill;
  ASSERT_TRUE(cache->Reserve(&fill, 6).ok());  // two free blocks and one cached: {5, 6} goes
  EXPECT_EQ(cache->cached_blocks(), 1);
  cache->Release(&fill);
  KvSequence x, y;
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{1, 2, 9}, &x), 2);
  EXPECT_EQ(cache->MatchPrefix(std::vector<int64_t>{5, 6, 9}, &y), 0);
}

TEST(KvCacheTest, Float16BlocksGiveBackTheValuesRoundedToHalf) {
  DecoderShape shape;
  shape.layers = 1;
  shape.kv_heads = 1;
  shape.head_size = 4;
  auto cache = KvCache::Create(shape, 2, 4, KvDtype::kFloat16);
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ((*cache)->bytes_per_block(), 1 * 2 * 1 * 4 * 2 * 2);  // layers x (k, v) x heads x head x tokens x 2 B
  KvSequence seq;
  ASSERT_TRUE((*cache)->Reserve(&seq, 3).ok());
  // present: 2 tensors (key, value) [rows 1, heads 1, slots 3, head 4].
  std::vector<Tensor> present;
  for (int t = 0; t < 2; ++t) {
    auto p = Tensor::Allocate(DataType::kFp32, {1, 1, 3, 4});
    ASSERT_TRUE(p.ok());
    auto v = p->mutable_values<float>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0f + static_cast<float>(i) / 3000.0f + t;
    present.push_back(std::move(*p));
  }
  (*cache)->Append(present, 0, 0, 3, &seq);
  const KvSequence* rows[] = {&seq};
  auto past = (*cache)->Gather(rows, 3);
  ASSERT_TRUE(past.ok());
  std::vector<Tensor> rounded = {present[0].Clone(), present[1].Clone()};
  for (int64_t slot = 0; slot < 3; ++slot) (*cache)->RoundLikeBlocks(rounded, slot);
  for (int t = 0; t < 2; ++t) {
    auto got = (*past)[t].values<float>();
    auto want = rounded[t].values<float>();
    auto raw = present[t].values<float>();
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << "gather equals the rounding the engine applies to kept present tensors";
      EXPECT_NEAR(got[i], raw[i], 1e-3f * std::abs(raw[i]));
    }
    EXPECT_NE(std::vector<float>(got.begin(), got.end()), std::vector<float>(raw.begin(), raw.end()))
        << "some values are not halves: rounding must show";
  }
}

}  // namespace
}  // namespace hone::generate
