// Where a model's inputs come from: a dataset, or data generated from the model's metadata. Shared by every
// subcommand that runs a model (bench, compare, evaluate, quantize's calibration), so the flags mean the same
// everywhere: --data, --shape, --range, --seed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/result.h"
#include "tensor/shape.h"

namespace hone::runtime {

// Values for a generated input: floats uniform in [low, high), integers uniform in [low, high) (token ids in
// [0, n) are low=0, high=n), booleans fair coin flips.
struct ValueRange {
  double low = 0.0;
  double high = 1.0;
};

struct InputOptions {
  // A .npz whose arrays are named like the model's inputs, or a .npy for a model with one input. Rows along the
  // first axis are samples; numpy string arrays (<U, |S) are BYTES. For a model whose one input is BYTES: a .txt (a
  // sample a line), a .jsonl (a JSON string a line) or a folder (a file a sample): raw_samples.h. Empty: generate
  // inputs.
  std::string data_path;
  // Per input, its shape: either the full shape (its first dimension then is the batch size of one request) or
  // the shape without the batch dimension. Fixes dynamic dimensions; must agree with fixed ones.
  std::map<std::string, Shape> shapes;
  // Per input, the range generated values come from. Defaults: floats [0, 1), integers [0, 100).
  std::map<std::string, ValueRange> ranges;
  // Seed for generated values; the same seed gives the same inputs.
  uint64_t seed = 1;
  // How many distinct samples to generate.
  int64_t generated_samples = 64;
};

// Parses "name:8x128" (or "name:8,128") into shapes; InvalidArgument naming the flag's text.
Status ParseShapeFlag(const std::string& text, InputOptions& options);
// Parses "name:low:high" into ranges; InvalidArgument unless low < high and both are finite numbers.
Status ParseRangeFlag(const std::string& text, InputOptions& options);

}  // namespace hone::runtime
