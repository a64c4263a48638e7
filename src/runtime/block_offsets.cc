#include "runtime/block_offsets.h"

#include <algorithm>
#include <vector>

namespace hone::runtime {

__attribute__((target_clones("avx512f", "avx2", "default"))) void AddBlockOffsets(
    const float* y, const float* x, const float* offsets, int64_t rows, int64_t k, int64_t n, int64_t block,
    float* out) {
  const int64_t blocks = (k + block - 1) / block;
  std::vector<float> sums(static_cast<size_t>(blocks));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * k;
    for (int64_t j = 0; j < blocks; ++j) {
      float s = 0;
      for (int64_t i = j * block, end = std::min(k, (j + 1) * block); i < end; ++i) s += xr[i];
      sums[j] = s;
    }
    float* o = out + r * n;
    if (o != y + r * n) std::copy(y + r * n, y + (r + 1) * n, o);
    for (int64_t j = 0; j < blocks; ++j) {  // a row of offsets at a time: contiguous, vectorized over n
      const float s = sums[j];
      const float* off = offsets + j * n;
      for (int64_t c = 0; c < n; ++c) o[c] += s * off[c];
    }
  }
}

}  // namespace hone::runtime
