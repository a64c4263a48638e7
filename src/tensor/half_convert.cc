#include "tensor/half_convert.h"

#include <bit>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hone {
namespace {

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void HalfToFloatF16c(const uint16_t* in, float* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  for (; i < n; ++i) out[i] = static_cast<float>(std::bit_cast<_Float16>(in[i]));
}

__attribute__((target("avx,f16c"))) void FloatToHalfF16c(const float* in, uint16_t* out, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) out[i] = std::bit_cast<uint16_t>(static_cast<_Float16>(in[i]));
}

bool HasF16c() {
  static const bool has = __builtin_cpu_supports("f16c");
  return has;
}
#endif

}  // namespace

void HalfToFloat(const uint16_t* in, float* out, size_t n) {
#if defined(__x86_64__)
  if (HasF16c()) return HalfToFloatF16c(in, out, n);
#endif
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(std::bit_cast<_Float16>(in[i]));
}

void FloatToHalf(const float* in, uint16_t* out, size_t n) {
#if defined(__x86_64__)
  if (HasF16c()) return FloatToHalfF16c(in, out, n);
#endif
  for (size_t i = 0; i < n; ++i) out[i] = std::bit_cast<uint16_t>(static_cast<_Float16>(in[i]));
}

}  // namespace hone
