// Parsing a KServe v2 inference request body (JSON, with Triton's binary tensor data extension) into an
// InferenceRequest whose input tensors borrow the body: no copy for binary inputs that are aligned for their
// element type (the HTTP layer's BodyBuffer aligns the binary section), one copy for the rare one that is not;
// JSON inputs are converted into buffers of their own.
//
// Body layout: a JSON object of Inference-Header-Content-Length bytes (the whole body without that header), then
// the raw bytes of every input that has parameters.binary_data_size, in input order, back to back.
//
// Accepted: "id" (string); "parameters": binary_data_output (bool), priority (uint32), timeout (uint64, µs), other
// keys ignored as KServe allows, sequence_* rejected (no sequence batching); "inputs": [{name, shape, datatype,
// parameters{binary_data_size}, data}] with data flat or nested; "outputs": [{name, parameters{binary_data}}].
// Rejected with InvalidArgument and a message naming the input or output: malformed JSON, missing or mistyped
// fields, unknown datatypes, negative or overflowing dimensions, duplicate names, data whose element count is not
// the shape's product, binary sizes that are not shape x element size or do not add up to the body, a header
// length beyond the body, shared memory, the classification extension, and BYTES inputs (hone's tensors hold
// fixed-size elements and its models take none; a BYTES input's length prefixes are still checked so that a
// malformed one is reported as such).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "base/result.h"
#include "serve/core/inference.h"
#include "serve/http/infer_response_codec.h"

namespace hone::serve::http {

struct InferBody {
  std::span<const std::byte> bytes;
  // Bytes readable from bytes.data() (>= bytes.size()). With at least 64 more than the JSON header, simdjson
  // parses it in place; otherwise the header is copied once.
  size_t readable = 0;
  std::optional<uint64_t> header_length;  // Inference-Header-Content-Length, when the request had it
  std::shared_ptr<const void> owner;      // keeps `bytes` alive; becomes the request's keep_alive
};

struct DecodedInferRequest {
  InferenceRequest request;  // model_name and model_version are left for the caller (they come from the path)
  ResponseFormat format;
};

Result<DecodedInferRequest> DecodeInferRequest(const InferBody& body);

}  // namespace hone::serve::http
