// `hone compare` as a library call: get both sides' outputs (running models on the same inputs, or reading saved
// outputs), optionally save them, and compare.
#pragma once

#include <string>

#include "base/result.h"
#include "check/compare.h"
#include "runtime/input_options.h"
#include "runtime/session_options.h"

namespace hone::check {

struct CompareJob {
  // Each a model (.onnx) or saved outputs (.npz with an array per output, or .npy for a single output).
  std::string reference_path, candidate_path;
  // The inputs both models run on (--data, or generated with --shape/--range/--seed). With a saved side, they must
  // be the inputs its outputs were made from: the same dataset, or the same generation flags and seed.
  runtime::InputOptions inputs;
  runtime::SessionOptions session;
  int64_t batch = 0;  // samples per Run; 0: the inputs' default
  CompareSettings settings;
  // When set, that side's outputs are written here (.npz, or .npy for one output), to serve as a saved side later.
  std::string save_reference_outputs, save_candidate_outputs;
};

// Runs the comparison. Errors (bad paths, models, datasets, flags, a saved side whose row count differs from the
// inputs') name what is at fault; a mismatch is not an error but a report that has not passed().
Result<CompareReport> RunCompare(const CompareJob& job);

}  // namespace hone::check
