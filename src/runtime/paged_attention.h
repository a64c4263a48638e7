// Attention over a paged KV cache: the kernel of hone's ONNX Runtime operator ai.hone.PagedAttention (see
// custom_ops.h), kept free of ONNX Runtime's types so that it is tested on its own.
//
// The step's queries, keys and values come packed as the model's one q/k/v projection writes them, [batch,
// sequence, (heads + 2 kv_heads) x head_size], and the operator applies the rotary embedding itself (ApplyRotary), so
// that a layer's attention is one node instead of some twenty (split, reshapes, transposes, rotate-half): at batch 1
// a decode step is mostly per-node overhead, not arithmetic.
//
// The cache is one pool of blocks, [blocks, layers, 2 (key, value), kv_heads, block_tokens, head_size]: the layout
// of generate::KvCache. Its elements are float16, or int8 with a float16 scale per kKvGroup consecutive elements of
// a position's head ([.., block_tokens, head_size / kKvGroup] beside the pool): x ~ q * scale, scale = max|x| / 127,
// as llama.cpp's Q8_0 cache type stores them, so a token takes 34/64 of its float16 bytes. Row b of a step owns the blocks block_table[b, 0..], in position order, and has
// past[b] positions written already. A step:
//   1. writes the row's `sequence` new keys and values (after RoPE) at positions past[b] .. past[b] + sequence - 1
//      of its blocks (rounded to float16, as llama.cpp's F16 cache stores them);
//   2. gives query i of row b softmax(q . k_j * scale) . v_j over positions j <= past[b] + i, reading the keys and
//      values straight from the blocks.
// So a decode step copies no past: the dense past/present tensors of the standard decoder layout (a Concat per
// layer, a gather of every row's past into them each step) are gone, and so is their memory per request.
// GQA: query head h reads KV head h / (heads / kv_heads).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.h"

namespace hone::runtime {

enum class KvElement { kFloat16, kInt8 };
inline constexpr int64_t kKvGroup = 32;  // int8 elements per scale

struct PagedAttentionArgs {
  int64_t batch = 0;
  int64_t sequence = 0;  // new positions of every row
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_size = 0;
  int64_t layer = 0;
  int64_t layers = 0;
  int64_t blocks = 0;
  int64_t block_tokens = 0;
  int64_t table_width = 0;  // block_table is [batch, table_width]
  float scale = 1.0f;
  // [batch, sequence, (heads + 2 kv_heads) * head_size]: per position the query heads, the key heads, the value
  // heads; queries and keys after the rotary embedding
  const float* qkv = nullptr;
  KvElement element = KvElement::kFloat16;
  void* cache = nullptr;       // the pool above: float16 bits or int8
  uint16_t* scales = nullptr;  // int8 only: float16 bits, [blocks, layers, 2, kv_heads, block_tokens, groups]
  const int32_t* block_table = nullptr;
  const int32_t* past = nullptr;  // [batch]
  float* out = nullptr;           // [batch, sequence, heads * head_size]

  int64_t qkv_width() const { return (heads + 2 * kv_heads) * head_size; }
  int64_t groups() const { return head_size / kKvGroup; }  // scales per position and head (int8)
};

// Hugging Face's rotary embedding (rotate_half) on the query and key heads of `qkv` (laid out as above), in place:
// for i < head_size / 2, with angle = position * theta^(-2i / head_size) in float32,
//   x[i] <- x[i] cos - x[i + half] sin,  x[i + half] <- x[i + half] cos + x[i] sin.
// `positions` [batch, sequence] are the tokens' true positions (not their slots).
void ApplyRotary(const PagedAttentionArgs& a, float theta, const int64_t* positions, float* qkv);

// InvalidArgument naming what does not fit: shapes, a layer outside the pool, a row whose positions need more
// blocks than its table row holds, a block id outside the pool, a negative past, int8 without scales or with a
// head_size that is not a multiple of kKvGroup.
Status CheckPagedAttention(const PagedAttentionArgs& a);

// Step 1: stores the new keys and values in the blocks (rounded to float16, or quantized to int8).
void WritePagedKv(const PagedAttentionArgs& a);

// Step 2 comes in independent units (a row, a KV head and a run of queries), for a parallel loop.
size_t PagedAttentionUnits(const PagedAttentionArgs& a);
void PagedAttentionUnit(const PagedAttentionArgs& a, size_t unit);

// Both steps on the calling thread.
inline void PagedAttention(const PagedAttentionArgs& a) {
  WritePagedKv(a);
  for (size_t u = 0, n = PagedAttentionUnits(a); u < n; ++u) PagedAttentionUnit(a, u);
}

}  // namespace hone::runtime
