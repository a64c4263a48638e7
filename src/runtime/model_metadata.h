// What a loaded model takes and gives, as ONNX Runtime reports it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/data_type.h"
#include "tensor/shape.h"

namespace hone::runtime {

struct IoSpec {
  std::string name;
  DataType type = DataType::kInvalid;
  std::string onnx_type;  // ONNX Runtime's element type name, for types hone does not handle ("string", ...)
  Shape shape;            // -1 for a dynamic dimension
  std::vector<std::string> symbols;  // per dimension: its symbolic name ("batch"), or "" (fixed or unnamed)

  bool IsDynamic(size_t dim) const { return shape[dim] < 0; }
  // "image: FP32 [batch, 1, 28, 28]"
  std::string ToString() const;
};

// Whether a model's inputs share a batch dimension, so that requests stack samples along dimension 0 of every input.
// They do when the model has inputs, every input has rank >= 1, and dimension 0 of the inputs agrees: either all
// dynamic, with one symbolic name among those that are named ("batch"; unnamed ones go with any), or all fixed to
// one size (a model exported for batches of exactly that size), and no output has dimension 0 fixed to another
// size (scalar outputs and outputs of unknown shape say nothing). Anything else (a scalar input, dimension 0 fixed
// to 1 in one input and 2 in another, a dynamic one beside a fixed one, two different names, an output [128] from an input [8, 16]) means no shared batch
// dimension: each input is a whole tensor and one request is one sample.
struct BatchAxis {
  bool shared = false;
  int64_t fixed_size = -1;  // shared: the one size dimension 0 is fixed to, or -1 when dynamic
  // Why not shared, naming the inputs at fault: "input 'sr' is a scalar", "input 'input' has dimension 0 fixed to
  // 1 but input 'state' to 2". Empty when shared.
  std::string reason;
};

struct ModelMetadata {
  std::vector<IoSpec> inputs;
  std::vector<IoSpec> outputs;
  std::string producer;     // "pytorch 1.13.1"
  std::string graph_name;
  // The model's metadata_props (key -> value): what an exporter recorded beside the graph, such as a decoder's
  // context length or chat template.
  std::vector<std::pair<std::string, std::string>> custom;

  // Index of the input named `name`, or -1.
  int FindInput(const std::string& name) const;
  int FindOutput(const std::string& name) const;
  // The metadata_props value for `key`, or nullptr.
  const std::string* FindCustom(std::string_view key) const;
  // See BatchAxis.
  BatchAxis SharedBatchAxis() const;
};

}  // namespace hone::runtime
