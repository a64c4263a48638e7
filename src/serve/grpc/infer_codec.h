// ModelInfer's messages <-> hone's InferenceRequest / InferenceResponse, on the server side. Pure functions: no
// gRPC calls, no server; unit-tested on their own.
//
// Request rules (each violation is InvalidArgument naming the input, output or parameter at fault):
// - model_name non-empty; model_version "" (or "-1") or a positive integer.
// - inputs: non-empty unique names; a KServe datatype name (BYTES is refused: hone's tensors hold fixed-size
//   elements and hone serves ONNX models with numeric inputs); non-negative dimensions.
// - data: either raw_input_contents for every input (one entry per input, in order) or typed contents for every
//   input, never both; sizes must match shape x element size (see tensor_contents.h for the typed fields).
// - parameters: "priority" and "timeout" (microseconds) as non-negative integers (int64_param or uint64_param);
//   a non-zero "sequence_id" is refused (hone has no sequence batcher); other parameters are ignored, as Triton
//   passes them to backends that ONNX Runtime models do not have.
// - outputs: unique non-empty names; the "classification" output parameter is refused (not supported).
#pragma once

#include <memory>

#include "base/result.h"
#include "client/grpc_service.pb.h"
#include "serve/core/inference.h"

namespace hone::serve::grpc_front {

// The InferenceRequest for `message`. Its input tensors borrow `message`'s bytes (raw inputs are never copied), so
// `keep_alive` must own `message`; it becomes the request's keep_alive.
Result<InferenceRequest> ToInferenceRequest(const inference::ModelInferRequest& message,
                                            std::shared_ptr<const void> keep_alive);

// Fills `message` (cleared first) with `response`: model_name, model_version, id, one output entry (name,
// datatype, shape) per tensor and its bytes in raw_output_contents, in the same order. Internal if an output
// tensor is empty or of a type that has no fixed size (a server bug, not the client's).
Status ToModelInferResponse(const InferenceResponse& response, inference::ModelInferResponse* message);

}  // namespace hone::serve::grpc_front
