// Bulk conversion between IEEE half precision (as uint16_t bits) and float: with the CPU's F16C instructions where
// it has them (every x86-64 CPU with AVX2 does), else one element at a time through the compiler's _Float16.
// Round to nearest even, as the hardware does; NaN and infinities are kept.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hone {

void HalfToFloat(const uint16_t* in, float* out, size_t n);
void FloatToHalf(const float* in, uint16_t* out, size_t n);

}  // namespace hone
