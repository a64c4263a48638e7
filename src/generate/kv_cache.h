// The KV cache: one fixed pool of blocks, each holding the keys and values of `block_tokens` consecutive positions
// of one sequence for every layer. The pool is allocated once, at its full size, so the cache never takes more
// memory than its budget; a sequence holds a list of blocks and grows a block at a time.
//
// A decoder of the dense layout takes its past as dense [batch, kv_heads, past, head_size] tensors, so a step
// gathers each row's blocks into them (Gather), and the new positions a step produced are copied back into the
// blocks (Append). The blocks are the truth; the dense tensors are a step's working copy. A paged decoder reads and
// writes the blocks themselves (Pool, Advance): no copies.
//
// Block layout: [layer][key, value][kv_head][token][head_size] elements, so a (layer, kv, head) run of a block is
// contiguous in both the block and the dense tensor. Not thread-safe: the engine's one thread owns it.
//
// The blocks hold float32, or float16 (KvDtype::kFloat16: half the memory per token, as llama.cpp's default F16
// cache; the decoder still sees float32, converted on Gather and Append), or, for a paged decoder only, int8 with a
// float16 scale per 32 elements of a position's head (KvDtype::kInt8: 34/64 of float16's bytes, as llama.cpp's
// Q8_0 cache type; the scales are a second pool of the same layout, Scales()). With float16 a step that keeps the last
// step's present tensors as its past rounds their new positions as the blocks would (RoundLikeBlocks), so that a
// row's decode does not depend on whether its batch changed.
//
// Prefix caching: a full block of prompt positions, once written, can be registered under its tokens and its
// parent (the block before it in the same sequence), so that a later prompt that starts with the same tokens takes
// the block as it is instead of computing it again (a shared system prompt is prefilled once). Shared blocks are
// counted by reference and never written: a sequence only appends after its last full block. When no sequence
// holds a registered block it stays cached, least recently used first out: Reserve takes free blocks first and
// evicts cached ones only when none is left, so caching never refuses a request the pool could hold.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "generate/decoder.h"
#include "runtime/paged_attention.h"
#include "tensor/tensor.h"

namespace hone::generate {

enum class KvDtype { kFloat32, kFloat16, kInt8 };
std::string_view KvDtypeName(KvDtype dtype);  // "float32", "float16", "int8"

struct KvSequence {
  std::vector<int32_t> blocks;
  int64_t length = 0;      // positions written
  int64_t reserved = 0;    // positions the blocks can hold (blocks.size() * block_tokens)
  int64_t registered = 0;  // leading blocks in the prefix table: taken from it, or registered by this sequence
};

class KvCache {
 public:
  // `total_blocks` blocks of `block_tokens` positions each, for a decoder of `shape`. ResourceExhausted when the
  // pool cannot be allocated; InvalidArgument for int8 blocks with a dense decoder or a head_size that is not a
  // multiple of 32.
  static Result<std::unique_ptr<KvCache>> Create(const DecoderShape& shape, int64_t block_tokens,
                                                 int64_t total_blocks, KvDtype dtype = KvDtype::kFloat32);
  // Bytes a block takes for `shape` in `dtype`.
  static int64_t BlockBytes(const DecoderShape& shape, int64_t block_tokens, KvDtype dtype);

  int64_t block_tokens() const { return block_tokens_; }
  int64_t total_blocks() const { return total_blocks_; }
  // Blocks a Reserve can take: the free ones and the cached ones no sequence holds.
  int64_t free_blocks() const { return static_cast<int64_t>(free_.size() + lru_.size()); }
  int64_t cached_blocks() const { return cached_; }  // registered in the prefix table, held or not
  int64_t used_blocks() const { return total_blocks_ - free_blocks(); }
  int64_t bytes_per_block() const { return BlockBytes(shape_, block_tokens_, dtype_); }
  KvDtype dtype() const { return dtype_; }
  // Blocks needed to hold `positions`.
  int64_t BlocksFor(int64_t positions) const { return (positions + block_tokens_ - 1) / block_tokens_; }

  // Grows `seq` to hold at least `positions` positions. ResourceExhausted (and `seq` unchanged) when the pool has
  // too few free blocks.
  Status Reserve(KvSequence* seq, int64_t positions);
  // Returns every block of `seq` to the pool (a registered block no other sequence holds stays cached) and empties
  // it.
  void Release(KvSequence* seq);

  // Takes into the empty `seq` the longest run of registered blocks that holds the first positions of `tokens`,
  // leaving at least one token of `tokens` to compute (its logits give the next token). Returns the positions
  // taken (a multiple of block_tokens; 0 when nothing matched).
  int64_t MatchPrefix(std::span<const int64_t> tokens, KvSequence* seq);
  // Registers the full blocks of `seq` that hold positions [0, written) of `tokens` and are not registered yet,
  // in order; stops at a block whose tokens and parent are registered already (another sequence wrote the same).
  void Register(std::span<const int64_t> tokens, int64_t written, KvSequence* seq);

  // Fills `past` (2 x layers tensors [rows, kv_heads, width, head_size], allocated here) with each row's positions
  // [0, length) and zeros after them. `width` >= every row's length.
  Result<std::vector<Tensor>> Gather(std::span<const KvSequence* const> rows, int64_t width) const;
  // Copies positions [from, from + count) of row `row` of `present` (2 x layers tensors
  // [rows, kv_heads, slots, head_size]) into `seq` at positions [seq->length, seq->length + count), which must be
  // reserved, and advances seq->length.
  void Append(std::span<const Tensor> present, int64_t row, int64_t from, int64_t count, KvSequence* seq);
  // Paged decoders (decoder.h) write a step's positions into the blocks themselves: this advances seq->length by
  // `count` positions, which must be reserved.
  void Advance(KvSequence* seq, int64_t count) const;
  // The whole pool as one tensor over the blocks' memory (no copy), [total_blocks, layers, 2, kv_heads,
  // block_tokens, head_size], for a paged decoder to read and write: FP16 or INT8 as the blocks. FailedPrecondition
  // for float32 blocks (no paged layout takes them).
  Result<Tensor> Pool() const;
  // The int8 blocks' scales, FP16 [total_blocks, layers, 2, kv_heads, block_tokens, head_size / 32], also borrowed.
  // FailedPrecondition unless the blocks are int8.
  Result<Tensor> Scales() const;
  // With float16 blocks, rounds slot `slot` of every row of `present` to float16 precision in place (what Append
  // then Gather would give); nothing with float32 blocks.
  void RoundLikeBlocks(std::span<Tensor> present, int64_t slot) const;

 private:
  KvCache() = default;
  std::byte* Run(int32_t block, int cache, int head) const;  // start of a (cache = layer*2+kv, head) run
  int64_t scales_per_block() const {  // float16 scales a block's int8 elements need (0 for other types)
    return dtype_ == KvDtype::kInt8 ? floats_per_block_ / runtime::kKvGroup : 0;
  }

  DecoderShape shape_;
  int64_t block_tokens_ = 0;
  int64_t total_blocks_ = 0;
  int64_t floats_per_block_ = 0;
  KvDtype dtype_ = KvDtype::kFloat32;
  int64_t element_bytes_ = 4;
  std::unique_ptr<std::byte[]> pool_;
  std::unique_ptr<uint16_t[]> scales_;  // int8 blocks only
  std::vector<int32_t> free_;  // a stack: the most recently freed block is reused first (still in cache)

  // The prefix table. A registered block's key is its tokens and its parent's (block, serial): a block that is
  // evicted and written again gets a new serial, so an entry that named it as parent no longer matches anything.
  struct BlockInfo {
    int32_t refs = 0;  // sequences holding it
    bool registered = false;
    uint64_t serial = 0;  // set when registered
    int32_t parent = -1;  // -1: the sequence's first block
    uint64_t parent_serial = 0;
    std::vector<int64_t> tokens;
    std::list<int32_t>::iterator lru;  // valid while registered and refs == 0
  };
  static uint64_t Key(int32_t parent, uint64_t parent_serial, std::span<const int64_t> tokens);
  int32_t Find(int32_t parent, uint64_t parent_serial, std::span<const int64_t> tokens) const;  // -1: none
  int32_t TakeBlock();  // a free block, else the least recently used cached one (unregistered); refs set to 1
  std::vector<BlockInfo> info_;
  std::unordered_multimap<uint64_t, int32_t> table_;
  std::list<int32_t> lru_;  // registered, held by no sequence: front = least recently used
  int64_t cached_ = 0;
  uint64_t next_serial_ = 1;
};

}  // namespace hone::generate
