#include "runtime/model_metadata.h"

namespace hone::runtime {

std::string IoSpec::ToString() const {
  std::string s = name + ": " + std::string(type == DataType::kInvalid ? onnx_type : DataTypeName(type)) + " [";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    if (shape[i] >= 0)
      s += std::to_string(shape[i]);
    else
      s += symbols[i].empty() ? "?" : symbols[i];
  }
  return s + "]";
}

static int FindByName(const std::vector<IoSpec>& specs, const std::string& name) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name) return static_cast<int>(i);
  return -1;
}

int ModelMetadata::FindInput(const std::string& name) const { return FindByName(inputs, name); }
int ModelMetadata::FindOutput(const std::string& name) const { return FindByName(outputs, name); }

}  // namespace hone::runtime
