// IEEE 754 half precision (FP16) and bfloat16 (BF16) conversions for tensors written as JSON numbers. Narrowing
// rounds to nearest, ties to even; overflow gives infinity; NaN stays NaN. (The tensor part has no conversions yet;
// if another part needs them, they belong there.)
#pragma once

#include <bit>
#include <cstdint>

namespace hone::client {

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1F;
  const uint32_t mant = h & 0x3FF;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));  // inf, NaN
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
  // Zero or subnormal: mant * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mant) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}

inline uint16_t FloatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t abs = bits & 0x7FFFFFFF;
  if (abs > 0x7F800000) return sign | 0x7E00;  // NaN (quiet)
  if (abs >= 0x477FF000) return sign | 0x7C00;  // rounds to or above 65520: infinity
  if (abs < 0x38800000) {
    // Result is subnormal or zero: add the magic number that aligns the half subnormal unit (2^-24) with float's
    // last mantissa bit; the FPU rounds to nearest even for us.
    const float shifted = std::bit_cast<float>(abs) + 0.5f;
    return sign | static_cast<uint16_t>(std::bit_cast<uint32_t>(shifted) - 0x3F000000u);
  }
  // Normal: rebias the exponent and round the 13 dropped mantissa bits to nearest even.
  const uint32_t odd = (abs >> 13) & 1;
  const uint32_t rounded = abs + 0xFFF + odd - (112u << 23);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

inline float Bf16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBf16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7FFFFFFF) > 0x7F800000) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  const uint32_t odd = (bits >> 16) & 1;
  return static_cast<uint16_t>((bits + 0x7FFF + odd) >> 16);
}

}  // namespace hone::client
