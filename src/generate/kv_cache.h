// The KV cache: one fixed pool of blocks, each holding the keys and values of `block_tokens` consecutive positions
// of one sequence for every layer. The pool is allocated once, at its full size, so the cache never takes more
// memory than its budget; a sequence holds a list of blocks and grows a block at a time.
//
// The decoder takes its past as dense [batch, kv_heads, past, head_size] tensors, so a step gathers each row's
// blocks into them (Gather), and the new positions a step produced are copied back into the blocks (Append). The
// blocks are the truth; the dense tensors are a step's working copy.
//
// Block layout: [layer][key, value][kv_head][token][head_size] floats, so a (layer, kv, head) run of a block is
// contiguous in both the block and the dense tensor. Not thread-safe: the engine's one thread owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "generate/decoder.h"
#include "tensor/tensor.h"

namespace hone::generate {

struct KvSequence {
  std::vector<int32_t> blocks;
  int64_t length = 0;    // positions written
  int64_t reserved = 0;  // positions the blocks can hold (blocks.size() * block_tokens)
};

class KvCache {
 public:
  // `total_blocks` blocks of `block_tokens` positions each, for a decoder of `shape`. ResourceExhausted when the
  // pool cannot be allocated.
  static Result<std::unique_ptr<KvCache>> Create(const DecoderShape& shape, int64_t block_tokens,
                                                 int64_t total_blocks);

  int64_t block_tokens() const { return block_tokens_; }
  int64_t total_blocks() const { return total_blocks_; }
  int64_t free_blocks() const { return static_cast<int64_t>(free_.size()); }
  int64_t used_blocks() const { return total_blocks_ - free_blocks(); }
  int64_t bytes_per_block() const { return floats_per_block_ * int64_t{sizeof(float)}; }
  // Blocks needed to hold `positions`.
  int64_t BlocksFor(int64_t positions) const { return (positions + block_tokens_ - 1) / block_tokens_; }

  // Grows `seq` to hold at least `positions` positions. ResourceExhausted (and `seq` unchanged) when the pool has
  // too few free blocks.
  Status Reserve(KvSequence* seq, int64_t positions);
  // Returns every block of `seq` to the pool and empties it.
  void Release(KvSequence* seq);

  // Fills `past` (2 x layers tensors [rows, kv_heads, width, head_size], allocated here) with each row's positions
  // [0, length) and zeros after them. `width` >= every row's length.
  Result<std::vector<Tensor>> Gather(std::span<const KvSequence* const> rows, int64_t width) const;
  // Copies positions [from, from + count) of row `row` of `present` (2 x layers tensors
  // [rows, kv_heads, slots, head_size]) into `seq` at positions [seq->length, seq->length + count), which must be
  // reserved, and advances seq->length.
  void Append(std::span<const Tensor> present, int64_t row, int64_t from, int64_t count, KvSequence* seq);

 private:
  KvCache() = default;
  float* Run(int32_t block, int cache, int head) const;  // start of a (cache = layer*2+kv, head) run

  DecoderShape shape_;
  int64_t block_tokens_ = 0;
  int64_t total_blocks_ = 0;
  int64_t floats_per_block_ = 0;
  std::unique_ptr<float[]> pool_;
  std::vector<int32_t> free_;  // a stack: the most recently freed block is reused first (still in cache)
};

}  // namespace hone::generate
