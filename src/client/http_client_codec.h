// The client's half of the KServe v2 HTTP protocol, for HttpInferClient (hone bench --url) and tests: encoding an
// inference request (JSON, or JSON plus the binary tensor data extension) and decoding the server's replies
// (inference responses, errors, statistics, model metadata). Pure functions over bytes; no sockets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "client/inference_response.h"
#include "client/model_metadata.h"
#include "client/model_stats.h"

namespace hone::client {

struct ClientInferOptions {
  bool binary_inputs = true;         // send inputs as binary data (else as JSON arrays)
  bool binary_outputs = true;        // ask for outputs as binary data (else as JSON arrays)
  std::vector<std::string> outputs;  // outputs to return, in this order; empty: every output
  std::string id;                    // echoed back by the server; empty: none sent
};

// Writes the JSON part into `json` (cleared first; its capacity is kept, so a worker's buffer stops growing) and
// the binary sections into `binary` (views into `inputs`' tensors, in input order). InvalidArgument for an empty
// (typeless) or BYTES tensor.
Status EncodeInferRequest(std::span<const NamedTensor> inputs, const ClientInferOptions& options, std::string& json,
                          std::vector<std::span<const std::byte>>& binary);

// Decodes a 200 reply to an inference. `readable`: the bytes readable from body.data() (>= body.size(), as a
// BodyBuffer's readable()); with enough beyond the JSON header, simdjson parses it in place, otherwise it is copied.
// Outputs own their bytes (copied out of `body`, so the caller may reuse it). InvalidArgument for a reply that
// does not follow the protocol.
Result<InferenceResponse> DecodeInferResponse(std::span<const std::byte> body, size_t readable,
                                              std::optional<uint64_t> header_length);

// The Status for a non-200 reply: the code from the HTTP status (StatusCodeForHttp), the message from its
// {"error": ...} body (or the body itself, or the status, when it has none).
Status ErrorFromReply(int http_status, std::string_view body);

// Parses Triton's statistics extension JSON ({"model_stats":[...]}).
Result<std::vector<ModelStatsSnapshot>> ParseStatisticsJson(std::string_view json);

// Parses KServe v2 model metadata JSON.
Result<ModelMetadataInfo> ParseModelMetadataJson(std::string_view json);

// Percent-encodes everything but RFC 3986's unreserved characters, for a model name in a path.
std::string PercentEncode(std::string_view s);

}  // namespace hone::client
