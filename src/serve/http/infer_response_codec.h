// Serializing an InferenceResponse per KServe v2 with Triton's binary tensor data extension:
//   {"id":..., "model_name":..., "model_version":"1", "outputs":[{"name","datatype","shape",
//    "data":[...] | "parameters":{"binary_data_size":N}}]}
// followed, for outputs sent as binary, by their raw bytes in output order. The binary sections are not copied:
// they are views into the response's tensors, which the encoded response keeps alive until it has been written.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "serve/core/inference.h"

namespace hone::serve::http {

// How the client asked for outputs: the request parameter "binary_data_output" and each requested output's
// "binary_data" (which overrides it).
struct ResponseFormat {
  bool binary_default = false;
  std::vector<std::pair<std::string, bool>> binary_by_output;

  bool BinaryFor(std::string_view output_name) const;
};

struct EncodedInferResponse {
  std::string json;                                // the JSON object (the whole body when nothing is binary)
  std::vector<std::span<const std::byte>> binary;  // what follows it, in output order (empty sections left out)
  bool has_binary = false;  // some output went as binary: send Inference-Header-Content-Length = json.size()
  std::shared_ptr<const InferenceResponse> keep_alive;  // owns the bytes `binary` points into

  size_t body_size() const;
};

// Internal when an output is BYTES or has no type (the server never produces those).
Result<EncodedInferResponse> EncodeInferResponse(InferenceResponse response, const ResponseFormat& format);

}  // namespace hone::serve::http
