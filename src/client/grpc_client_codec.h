// The client's side of the gRPC messages (what `hone bench --url` sends and reads): hone tensors into a ModelInfer
// request with raw_input_contents, a response's outputs back into tensors, and a model's statistics back into a
// snapshot. Pure functions, unit-tested on their own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/grpc_service.pb.h"
#include "client/model_stats.h"
#include "tensor/npz.h"  // NamedTensor

namespace hone::client {

// Rebuilds `message` for one request: model, version (0: ""), each input's name, datatype and shape, its bytes in
// raw_input_contents, and the requested outputs (empty: all). Clearing a protobuf message keeps the storage of its
// repeated fields and strings, so a message reused for same-shaped requests allocates nothing after the first.
// InvalidArgument for an empty or duplicate input name or an empty input tensor.
Status FillModelInferRequest(const std::string& model, int64_t version, std::span<const NamedTensor> inputs,
                             std::span<const std::string> outputs, inference::ModelInferRequest* message);

// The response's outputs as tensors that own their bytes, in response order, from raw_output_contents (one per
// output) or, when there are none, from each output's typed contents. Internal, naming the output, for a response
// that does not add up (sizes, counts, unknown datatype); Unimplemented for BYTES outputs.
Result<std::vector<NamedTensor>> OutputsFromResponse(const inference::ModelInferResponse& message);

// One model version's statistics (Triton's statistics extension) as a snapshot; the server's side is
// serve/grpc/metadata_codec.h. InvalidArgument, naming the model, for a version that is not a number.
Result<ModelStatsSnapshot> StatsFromProto(const inference::ModelStatistics& message);

}  // namespace hone::client
