// Running a float model over a dataset with some of its intermediate values exposed as extra graph outputs, for the
// passes that learn from activations: static quantization's calibration (ranges) and pruning (second moments).
// ONNX Runtime keeps graph outputs through its graph optimizations, so each exposed value can be read after a run.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "runtime/input_options.h"
#include "tensor/tensor.h"

namespace onnx {
class ModelProto;
}  // namespace onnx

namespace hone::onnx {

// The model with each of `tensors` that is not already a graph output added as one (FLOAT, shape left to ONNX
// Runtime).
::onnx::ModelProto ExposeTensors(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors);

struct ExposedRun {
  runtime::InputOptions data;  // the dataset (InputPool's rules)
  int64_t samples = 0;         // the first this many samples; 0: all
  int64_t batch = 16;          // samples a run (the pool's default when the model's batch dimension is fixed)
  int threads = 0;             // ONNX Runtime's intra-op threads; 0: its default
  Progress* progress = nullptr;  // batches as they run (Start/StepDone called here); null: quiet
  std::string progress_note;     // appended to each step's label; empty: none
};

struct ExposedRunInfo {
  int64_t samples = 0;      // samples run
  std::string description;  // the pool's description of the dataset
};

// Per batch: the model's inputs as fed, and the exposed values in `tensors` order (each FP32).
using ExposedVisitor =
    std::function<Status(const std::vector<std::string>& input_names, std::span<const Tensor> inputs,
                         std::span<const Tensor* const> exposed)>;

// Writes the augmented model to a private temporary directory, opens it, and runs every batch through `visit`.
// Errors: the model not loading is Internal; the data not fitting the model (InputPool's message) or having no
// samples is InvalidArgument; an exposed value that is not FP32 when run is InvalidArgument naming it; visit's own
// error stops the runs and is returned.
Result<ExposedRunInfo> RunExposed(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors,
                                  const ExposedRun& run, const ExposedVisitor& visit);

}  // namespace hone::onnx
