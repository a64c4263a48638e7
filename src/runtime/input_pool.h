// Ready-made inputs for a model: samples from a dataset or generated from the model's metadata, and requests cut
// from them. How a request is made depends on whether the model's inputs share a batch dimension
// (ModelMetadata::SharedBatchAxis):
//   batched:       dimension 0 of every input is the batch. A sample is one row along it; a request of `batch`
//                  samples stacks that many rows. A model whose dimension 0 is fixed (say 1) only takes batches of
//                  that size. Dataset arrays have the input's rank, samples along their first axis.
//   whole tensors: no shared batch dimension (a scalar input, a state tensor whose dimension 0 is not the batch).
//                  Every input is a whole tensor of its own shape, and one request is one sample. A dataset array
//                  whose rank is the input's rank + 1 is per-sample (sample i is its row i); one whose rank equals
//                  the input's is fixed: the same tensor in every request (a scalar sample rate, an initial state).
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
  // Loads options.data_path (raw samples for a model with one BYTES input: runtime/raw_samples.h; checked against the model: every input has an array of its element type and a rank
  // the mode above allows, fixed dimensions agree, all per-sample arrays have the same number of samples), or
  // generates options.generated_samples samples. Errors name the input, the array or the flag at fault.
  static Result<InputPool> Create(const ModelMetadata& metadata, const InputOptions& options);

  int64_t sample_count() const { return samples_; }
  // Whether requests stack samples along a shared batch dimension (see the file comment).
  bool batched() const { return axis_.shared; }
  const BatchAxis& batch_axis() const { return axis_; }
  // "batched: dimension 0 of every input is the batch" or "whole tensors, one sample per request: the model has
  // no shared batch dimension (input 'sr' is a scalar)". For reports.
  std::string mode_description() const;
  // The batch size of one request unless the user asks for another: the first dimension of a full-rank --shape,
  // a fixed first dimension, or 1. Always 1 for whole tensors.
  int64_t default_batch() const { return default_batch_; }
  // "dataset 'test.npz' (2000 samples)" or "generated (seed 1, 64 samples)".
  const std::string& description() const { return description_; }
  // Dataset arrays that match no model input (labels, say), for the report.
  const std::vector<std::string>& unused_arrays() const { return unused_arrays_; }
  // Whole tensors: the inputs given once for every sample (a dataset array of the input's own rank).
  const std::vector<std::string>& fixed_inputs() const { return fixed_inputs_; }
  // Bytes of input data the pool holds: hone's own memory, apart from the model's.
  size_t byte_size() const;

  // Whether requests of `batch` samples are possible: InvalidArgument naming the input whose first dimension
  // is fixed to another size, or, for whole tensors, any batch but 1 (naming why the model has no batch
  // dimension).
  Status CheckBatch(int64_t batch) const;
  // Samples [first, first + batch) (wrapping round the pool) as new tensors, one per model input in the model's
  // order. Whole tensors: batch is 1 and the tensors have the inputs' own shapes (no batch axis is added).
  Result<std::vector<Tensor>> MakeBatch(int64_t first, int64_t batch) const;

 private:
  InputPool() = default;
  Result<Tensor> BytesRows(const Tensor& column, int64_t first, int64_t batch) const;
  std::vector<std::string> names_;
  std::vector<Shape> declared_;   // the model's shapes, -1 for dynamic
  std::vector<Tensor> columns_;   // per input: [samples, ...one sample's dims], or one fixed tensor
  std::vector<bool> per_sample_;  // per input: columns_ holds one entry per sample (always, when batched)
  BatchAxis axis_;
  int64_t samples_ = 0;
  int64_t default_batch_ = 1;
  std::string description_;
  std::vector<std::string> unused_arrays_;
  std::vector<std::string> fixed_inputs_;

  friend class InputPoolBuilder;
};

}  // namespace hone::runtime
