// One loaded model: an ONNX Runtime session with its options and metadata.
//
//   auto session = Session::Open("model.onnx", options);   // Result<std::unique_ptr<Session>>
//   auto outputs = (*session)->Run(inputs);                 // Result<std::vector<Tensor>>
//
// Thread safety: Run may be called concurrently from any number of threads (ONNX Runtime's Run is thread-safe;
// concurrent calls share the session's intra-op thread pool).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "runtime/session_options.h"
#include "tensor/tensor.h"

namespace hone::runtime {

class Session {
 public:
  // Loads `model_path` with `options`. NotFound for a missing file, InvalidArgument for a file that is not a valid
  // ONNX model; the message names the path.
  static Result<std::unique_ptr<Session>> Open(const std::string& model_path, const SessionOptions& options);

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  const ModelMetadata& metadata() const;
  const SessionOptions& options() const;
  const std::string& model_path() const;

  // Runs the model on `inputs`, one per model input in metadata().inputs order, and returns every output in
  // metadata().outputs order. Outputs own their buffers (ONNX Runtime's, adopted without a copy). Inputs are
  // checked first: count, element type, rank and fixed dimensions; a mismatch is InvalidArgument naming the input.
  Result<std::vector<Tensor>> Run(std::span<const Tensor> inputs) const;

  // Stops ONNX Runtime's profiler and returns the path of the trace it wrote (Chrome trace JSON, see
  // SessionOptions::profile_prefix); runs after this are not profiled. FailedPrecondition when profiling is off.
  // Not to be called while a Run is in progress.
  Result<std::string> EndProfiling() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Checks `inputs` against the model's inputs (count, type, rank, fixed dimensions); the rules Run applies.
Status ValidateInputs(const ModelMetadata& metadata, std::span<const Tensor> inputs);

// "1.30.0": the version of the ONNX Runtime library loaded at run time (not the headers').
std::string OrtVersion();

}  // namespace hone::runtime
