// hone's own ONNX Runtime operators, in the domain "ai.hone", registered with every session hone opens (so serve,
// bench, compare, quantize's checks and the LLM engine all load a model that uses them):
//
//   PagedAttention (opset 1): attention that reads and writes the KV cache in place, in blocks (paged_attention.h),
//   with the rotary embedding applied inside.
//     inputs   qkv FP32 [batch, sequence, (heads + 2 kv_heads) * head_size] (the packed q/k/v projection, before
//              RoPE), position_ids INT64 [batch, sequence], kv_cache FP16 or INT8 [blocks, layers, 2, kv_heads,
//              block_tokens, head_size], block_table INT32 [batch, width], past_lengths INT32 [batch], and with an
//              INT8 cache kv_scales FP16 [blocks, layers, 2, kv_heads, block_tokens, head_size / 32]
//     output   FP32 [batch, sequence, heads * head_size]
//     attributes layer (int), scale (float), rotary_theta (float); kv_heads and head_size come from kv_cache's shape
//   AddBlockOffsets (opset 1): y + (x summed over each block of `block_size` along its last axis) . offsets
//     (block_offsets.h): the correction hone quantize --block-offset adds after MatMulNBits, in one node.
//     inputs   y FP32 [..., N], x FP32 [..., K], offsets FP32 [ceil(K / block_size), N]; output FP32 like y
//     attributes block_size (int)
//
//   PagedAttention writes the new keys and values into kv_cache (and kv_scales), graph inputs: the caller's buffer, which ONNX
//   Runtime passes through without a copy. That is the point (no past/present copies); it also means two runs
//   that share a kv_cache buffer must not overlap in the blocks they write.
#pragma once

struct OrtCustomOpDomain;

namespace hone::runtime {

// The domain's name, for what writes graphs that use these operators (hone quantize).
inline constexpr char kHoneOpDomain[] = "ai.hone";

// The domain with every hone operator; lives for the whole process (sessions refer to it).
OrtCustomOpDomain* HoneOpDomain();

}  // namespace hone::runtime
