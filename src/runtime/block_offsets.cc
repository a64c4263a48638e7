#include "runtime/block_offsets.h"

#include <algorithm>
#include <vector>

namespace hone::runtime {

namespace {

// The body, compiled once per instruction set below (always_inline: each copy vectorizes for its target).
__attribute__((always_inline)) inline void AddBlockOffsetsBody(const float* y, const float* x, const float* offsets,
                                                               int64_t rows, int64_t k, int64_t n, int64_t block,
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

#define HONE_BLOCK_OFFSETS_VARIANT(name, attributes)                                                            \
  attributes void name(const float* y, const float* x, const float* offsets, int64_t rows, int64_t k, int64_t n, \
                       int64_t block, float* out) {                                                              \
    AddBlockOffsetsBody(y, x, offsets, rows, k, n, block, out);                                                  \
  }
HONE_BLOCK_OFFSETS_VARIANT(AddBlockOffsetsPortable, )
#if defined(__x86_64__)
HONE_BLOCK_OFFSETS_VARIANT(AddBlockOffsetsAvx2, __attribute__((target("avx2,fma"))))
HONE_BLOCK_OFFSETS_VARIANT(AddBlockOffsetsAvx512, __attribute__((target("avx512f,fma"))))
#endif
#undef HONE_BLOCK_OFFSETS_VARIANT

}  // namespace

// Chosen by a plain CPU check rather than target_clones: GCC's ifunc resolvers run before ThreadSanitizer's runtime
// is up, and the TSan build's test binaries crashed at start with them.
void AddBlockOffsets(const float* y, const float* x, const float* offsets, int64_t rows, int64_t k, int64_t n,
                     int64_t block, float* out) {
#if defined(__x86_64__)
  static const auto variant = __builtin_cpu_supports("avx512f")                                   ? AddBlockOffsetsAvx512
                              : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? AddBlockOffsetsAvx2
                                                                                                : AddBlockOffsetsPortable;
  return variant(y, x, offsets, rows, k, n, block, out);
#else
  return AddBlockOffsetsPortable(y, x, offsets, rows, k, n, block, out);
#endif
}

}  // namespace hone::runtime
