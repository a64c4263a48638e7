// A model's metadata as KServe v2 carries it (HTTP GET /v2/models/{model}, gRPC ModelMetadata): what serve's
// Server::ModelMetadata answers and what the clients parse back.
#pragma once

#include <string>
#include <vector>

#include "tensor/data_type.h"
#include "tensor/shape.h"

namespace hone::client {

struct TensorMetadata {
  std::string name;
  DataType type = DataType::kInvalid;
  Shape shape;  // -1 for a dynamic dimension; with max_batch_size > 0 the first dimension is the batch (-1)
};

struct ModelMetadataInfo {
  std::string name;
  std::vector<std::string> versions;  // the ready versions, ascending
  std::string platform;               // "onnxruntime_onnx"
  std::vector<TensorMetadata> inputs;
  std::vector<TensorMetadata> outputs;
};

}  // namespace hone::client
