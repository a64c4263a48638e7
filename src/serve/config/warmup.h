// Warm-up requests: what every instance runs before the model serves (Triton's model_warmup), as hone tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "serve/config/config_validate.h"
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
// equal), or, for an input with a reshape, the model's own shape (reshape.shape; see reshape.h: a scalar input
// takes dims [ ] as well as [ 1 ]). Data: zero_data zeros; random_data values from a fixed seed (floats uniform
// in [0, 1) — FP16/BF16 in [0.5, 1) — integers in [0, 10], BOOL 0 or 1); input_data_file the raw row-major
// bytes of one sample, read from `<model_dir>/warmup/<file>`, exactly dims' size in bytes. With
// max_batch_size > 0 the batch dimension (batch_size) is prepended and the sample repeated in every row. count 0
// means 1.
//
// Without model_warmup: no samples (the loader tries DefaultWarmupCandidates instead).
//
// Errors start with source.where and name the sample and input: InvalidArgument for a mismatch or a file of the
// wrong size, NotFound for a missing data file, Unimplemented for TYPE_STRING inputs (hone tensors hold fixed-size
// elements only).
Result<std::vector<WarmupSample>> BuildWarmupSamples(const inference::ModelConfig& config,
                                                     const std::string& model_dir, const ConfigSource& source);

// A sample hone makes up itself, from the config alone.
enum class GeneratedFill { kZeros, kOnes, kRandom };

struct GeneratedSampleSpec {
  int64_t dynamic_dim = 1;  // every -1 of an input's dims takes this size
  GeneratedFill fill = GeneratedFill::kZeros;
  uint64_t seed = 0;        // kRandom: the values' seed (values as random_data makes them)
  int64_t batch_size = 1;   // rows when max_batch_size > 0

  // "dynamic dimensions 1, zeros"
  std::string ToString() const;
};

// The sample `spec` describes, named `name`: every config input, request-side shapes (batch dimension first when
// max_batch_size > 0), count 1. Unimplemented naming the input for TYPE_STRING (hone cannot guess strings).
Result<WarmupSample> GenerateSample(const inference::ModelConfig& config, const GeneratedSampleSpec& spec,
                                    const std::string& name, const ConfigSource& source);

// What hone's default warm-up tries, in order, until the model accepts one: dynamic dimensions 1 with zeros
// (the cheapest), then ones (zeros can be out of range, e.g. as indices after an offset), then dimensions 2 (a
// reshape that splits a dimension in two), then 4 with random values.
std::vector<GeneratedSampleSpec> DefaultWarmupCandidates();

}  // namespace hone::serve
