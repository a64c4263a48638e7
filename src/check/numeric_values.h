// Any numeric tensor's elements widened to double, for comparing outputs and measuring quality. Metrics in this
// part work on doubles so that FP16, BF16, FP32, FP64, integer and BOOL outputs all go through one code path.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tensor/tensor.h"

namespace hone::check {

// The elements of `tensor` in row-major order. FP16 and BF16 are widened exactly (NaN and Inf kept); integers and
// BOOL become their values. InvalidArgument naming `what` for an empty tensor or a type without numbers (BYTES).
Result<std::vector<double>> ToDoubles(const Tensor& tensor, std::string_view what);

// IEEE 754 half precision and bfloat16 bit patterns as doubles.
double HalfToDouble(uint16_t bits);
double Bf16ToDouble(uint16_t bits);

}  // namespace hone::check
