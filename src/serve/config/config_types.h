// Conversions between the config's vocabulary (inference::DataType, dims with -1) and hone's (DataType, Shape).
#pragma once

#include <string>
#include <string_view>

#include "client/model_config.pb.h"
#include "tensor/data_type.h"
#include "tensor/shape.h"

namespace hone::serve {

// TYPE_FP32 -> kFp32, TYPE_STRING -> kBytes, ...; kInvalid for TYPE_INVALID and values the enum does not name.
DataType FromConfigDataType(inference::DataType type);
// kFp32 -> TYPE_FP32, kBytes -> TYPE_STRING, ...; TYPE_INVALID for kInvalid.
inference::DataType ToConfigDataType(DataType type);
// "TYPE_FP32"; "TYPE_<number>" for a value the enum does not name.
std::string ConfigDataTypeName(inference::DataType type);

// A repeated int64 field (dims, reshape.shape) as a Shape.
template <typename RepeatedInt64>
Shape ToShape(const RepeatedInt64& dims) {
  return Shape(dims.begin(), dims.end());
}
// "[-1, 28, 28]", as the config writes dims.
std::string DimsToString(const Shape& dims);

// The shape the model itself takes for an input or output, without the batch dimension: reshape.shape when the
// config has a reshape, else dims.
Shape ModelSideShape(const inference::ModelInput& input);
Shape ModelSideShape(const inference::ModelOutput& output);

}  // namespace hone::serve
