// Where one side's outputs come from: a model run on every sample of a dataset (or of generated inputs), or a
// file of saved outputs (.npz with an array per output, or a .npy holding one output, such as PyTorch's logits).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/input_pool.h"
#include "runtime/session.h"
#include "tensor/npz.h"

namespace hone::check {

// The inputs every model of a comparison or evaluation runs on: a pool and the inputs it was built for, in its
// order.
struct InputSet {
  runtime::InputPool pool;
  std::vector<runtime::IoSpec> specs;
};

// Builds the pool for a model with `metadata` (see InputPool::Create for the errors).
Result<InputSet> LoadInputs(const runtime::ModelMetadata& metadata, const runtime::InputOptions& options);

// Changes a batch before it runs (a perturbation): `batch[i]` is inputs.specs[i]; its rows are samples
// first_sample, first_sample + 1, ...
using InputTransform = std::function<void(std::vector<Tensor>& batch, int64_t first_sample)>;

struct RunOptions {
  int64_t batch = 0;         // samples per Run; 0: the pool's default batch
  InputTransform transform;  // null: run the samples as they are
};

// Runs `session` once on every sample of `inputs`, batch by batch, and returns each output with the batches
// stacked along the first axis (so [samples, ...]), in the model's output order. The session's inputs are found in
// `inputs` by name (InvalidArgument naming a missing one); an output whose first dimension is not the batch size,
// or whose other dimensions change between batches, is InvalidArgument.
Result<std::vector<NamedTensor>> RunOnAllSamples(const runtime::Session& session, const InputSet& inputs,
                                                 const RunOptions& options);

// Whether `path` names saved outputs (.npz or .npy) rather than a model.
bool IsSavedOutputs(const std::string& path);
// Reads saved outputs: a .npz's arrays by name, or a .npy's one array with an empty name (the caller names it
// after the other side's only output). Errors name the file.
Result<std::vector<NamedTensor>> ReadSavedOutputs(const std::string& path);
// Writes outputs to `path`: .npy for exactly one output, otherwise a compressed .npz (an error names the path).
Status WriteSavedOutputs(const std::string& path, const std::vector<NamedTensor>& outputs);

}  // namespace hone::check
