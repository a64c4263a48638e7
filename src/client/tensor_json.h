// Tensor elements as JSON: reading a request input's "data" array into a buffer, and writing a tensor's elements as
// a response output's "data" array. Row-major; the array may be flat or nested to any depth (KServe v2 allows both;
// like Triton, only the element count is checked against the shape, not the nesting). BOOL is true/false;
// integers must be JSON integers within the type's range; FP16/BF16/FP32 accept any JSON number that is finite in
// the type (rounded to nearest even), and NaN, Infinity and -Infinity as Triton writes them (json_nonfinite.h); BYTES elements are JSON strings (written with invalid UTF-8 replaced by
// U+FFFD, since a JSON document cannot carry raw bytes: binary data belongs in the binary tensor extension).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "tensor/data_type.h"
#include "tensor/tensor.h"

namespace simdjson::dom {
class element;
}

namespace hone::client {

class JsonWriter;

// Fills `out`, which holds exactly `count` elements of `type` (not BYTES), from `data`. InvalidArgument naming
// `input_name`, the flat element index and what was expected when an element has the wrong JSON type or is out of
// range, or when the array holds more or fewer than `count` elements.
Status ReadJsonTensorData(const simdjson::dom::element& data, DataType type, int64_t count, std::byte* out,
                          std::string_view input_name);

// A BYTES tensor of `shape` (which holds `count` elements) from `data`, an array of strings nested to any depth, or
// one string. InvalidArgument naming `input_name` and the element index when an element is not a string or the
// count differs.
Result<Tensor> ReadJsonBytesTensor(const simdjson::dom::element& data, const Shape& shape, int64_t count,
                                   std::string_view input_name);

// The number of leaf values in `data` (an array nested to any depth; 1 for a non-array), so that a request's
// element count is checked before a buffer for its shape is allocated.
int64_t CountJsonElements(const simdjson::dom::element& data);

// Appends `tensor`'s elements as one flat JSON array (FP16/BF16 widened to float). Reads through memcpy, so the
// tensor's buffer need not be aligned.
void WriteJsonTensorData(JsonWriter& w, const Tensor& tensor);

}  // namespace hone::client
