// What a loaded model takes and gives, as ONNX Runtime reports it.
#pragma once

#include <string>
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

struct ModelMetadata {
  std::vector<IoSpec> inputs;
  std::vector<IoSpec> outputs;
  std::string producer;     // "pytorch 1.13.1"
  std::string graph_name;

  // Index of the input named `name`, or -1.
  int FindInput(const std::string& name) const;
  int FindOutput(const std::string& name) const;
};

}  // namespace hone::runtime
