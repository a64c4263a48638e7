// Warm-up requests: what every instance runs before the model serves (Triton's model_warmup), as hone tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "serve/config/config_validate.h"
#include "serve/config/model_config.pb.h"
#include "tensor/npz.h"  // NamedTensor

namespace hone::serve {

struct WarmupSample {
  std::string name;
  int64_t batch_size = 1;           // rows; with max_batch_size 0 the tensors have no batch dimension
  uint32_t count = 1;               // times to run the sample on each instance (>= 1)
  std::vector<NamedTensor> inputs;  // request-side shapes (config dims, batch dimension first when batching)
};

// The samples of a completed config (see config_complete.h), in config order; inputs in config input order.
//
// With model_warmup, each sample's inputs must name config inputs and cover every input that is not optional;
// each input's data_type must equal the config's and its dims match the config's dims (same rank, fixed dims
// equal). Data: zero_data zeros; random_data values from a fixed seed (floats uniform in [0, 1) — FP16/BF16 in
// [0.5, 1) — integers in [0, 10], BOOL 0 or 1); input_data_file the raw row-major bytes of one sample, read from
// `<model_dir>/warmup/<file>`, exactly dims' size in bytes. With max_batch_size > 0 the batch dimension
// (batch_size) is prepended and the sample repeated in every row. count 0 means 1.
//
// Without model_warmup: one sample "default", batch 1, zeros, each dynamic (-1) dimension 1.
//
// Errors start with source.where and name the sample and input: InvalidArgument for a mismatch or a file of the
// wrong size, NotFound for a missing data file, Unimplemented for TYPE_STRING inputs (hone tensors hold fixed-size
// elements only).
Result<std::vector<WarmupSample>> BuildWarmupSamples(const inference::ModelConfig& config,
                                                     const std::string& model_dir, const ConfigSource& source);

}  // namespace hone::serve
