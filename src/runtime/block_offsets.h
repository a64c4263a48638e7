// The block-offset correction of a block-quantized MatMul (hone quantize --block-offset, llama.cpp's Q4_1 layout):
// a weight is scale * (code - mid) + offset, so x . w = MatMulNBits' x . (scale * (code - mid)) plus, per output
// column n, sum over blocks j of (the sum of x over block j) * offsets[j, n]. The kernel of ai.hone.AddBlockOffsets
// (custom_ops.h), which does in one node what the portable form does in three (MatMul by a block-sum matrix,
// MatMul by the offsets, Add): at batch 1 the three nodes' overhead was a fifth of a SmolLM2 decode step.
#pragma once

#include <cstdint>

namespace hone::runtime {

// out[r, n] = y[r, n] + sum_j (sum_{i in block j} x[r, i]) * offsets[j, n], for rows r < `rows`; x is [rows, k],
// y and out [rows, n] (out may be y), offsets [ceil(k / block), n]. A last block shorter than `block` sums what it
// has (the quantizer padded it with zeros).
void AddBlockOffsets(const float* y, const float* x, const float* offsets, int64_t rows, int64_t k, int64_t n,
                     int64_t block, float* out);

}  // namespace hone::runtime
