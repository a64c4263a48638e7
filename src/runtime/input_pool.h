// Ready-made inputs for a model: samples (rows along each input's first axis) from a dataset or generated from
// the model's metadata, and batches cut from them. The first axis of every input is its batch axis; a model whose
// first dimension is fixed (say 1) only takes batches of that size.
//
// Thread safety: const methods may be called concurrently.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/input_options.h"
#include "runtime/model_metadata.h"
#include "tensor/tensor.h"

namespace hone::runtime {

class InputPool {
 public:
  // Loads options.data_path (checked against the model: every input has an array of its element type and rank,
  // fixed dimensions agree, all arrays have the same number of rows), or generates options.generated_samples
  // samples. Errors name the input, the array or the flag at fault.
  static Result<InputPool> Create(const ModelMetadata& metadata, const InputOptions& options);

  int64_t sample_count() const { return samples_; }
  // The batch size of one request unless the user asks for another: the first dimension of a full-rank --shape,
  // a fixed first dimension, or 1.
  int64_t default_batch() const { return default_batch_; }
  // "dataset 'test.npz' (2000 samples)" or "generated (seed 1, 64 samples)".
  const std::string& description() const { return description_; }
  // Dataset arrays that match no model input (labels, say), for the report.
  const std::vector<std::string>& unused_arrays() const { return unused_arrays_; }

  // Whether requests of `batch` samples are possible: InvalidArgument naming the input whose first dimension
  // is fixed to another size.
  Status CheckBatch(int64_t batch) const;
  // Samples [first, first + batch) (wrapping round the pool) as new tensors, one per model input.
  Result<std::vector<Tensor>> MakeBatch(int64_t first, int64_t batch) const;

 private:
  InputPool() = default;
  std::vector<std::string> names_;
  std::vector<Shape> declared_;   // the model's shapes, -1 for dynamic
  std::vector<Tensor> columns_;   // per input: [samples, ...one sample's dims]
  int64_t samples_ = 0;
  int64_t default_batch_ = 1;
  std::string description_;
  std::vector<std::string> unused_arrays_;

  friend class InputPoolBuilder;
};

}  // namespace hone::runtime
