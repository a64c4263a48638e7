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

BatchAxis ModelMetadata::SharedBatchAxis() const {
  BatchAxis axis;
  if (inputs.empty()) {
    axis.reason = "the model has no inputs";
    return axis;
  }
  const IoSpec* fixed = nullptr;    // the first input whose dimension 0 is fixed
  const IoSpec* dynamic = nullptr;  // the first whose dimension 0 is dynamic
  const IoSpec* named = nullptr;    // the first whose dimension 0 is dynamic and named
  for (const IoSpec& in : inputs) {
    if (in.shape.empty()) {
      axis.reason = "input '" + in.name + "' is a scalar";
      return axis;
    }
    if (in.shape[0] >= 0) {
      if (fixed && fixed->shape[0] != in.shape[0]) {
        axis.reason = "input '" + fixed->name + "' has dimension 0 fixed to " + std::to_string(fixed->shape[0]) +
                      " but input '" + in.name + "' to " + std::to_string(in.shape[0]);
        return axis;
      }
      if (!fixed) fixed = &in;
    } else {
      const std::string& symbol = in.symbols.empty() ? std::string() : in.symbols[0];
      if (!symbol.empty()) {
        if (named && named->symbols[0] != symbol) {
          axis.reason = "input '" + named->name + "' has dimension 0 '" + named->symbols[0] + "' but input '" +
                        in.name + "' has '" + symbol + "'";
          return axis;
        }
        if (!named) named = &in;
      }
      if (!dynamic) dynamic = &in;
    }
    if (fixed && dynamic) {
      axis.reason = "input '" + fixed->name + "' has dimension 0 fixed to " + std::to_string(fixed->shape[0]) +
                    " but in input '" + dynamic->name + "' it is dynamic";
      return axis;
    }
  }
  // An output whose dimension 0 is declared fixed to another size cannot be a stack of the samples: a [8, 16] ->
  // [128] model flattens its input, a [batch, 4] -> [1, 4] one reduces over dimension 0.
  const int64_t batch = fixed ? fixed->shape[0] : -1;
  for (const IoSpec& out : outputs) {
    if (out.shape.empty() || out.shape[0] < 0 || out.shape[0] == batch) continue;
    axis.reason = "output '" + out.name + "' has dimension 0 fixed to " + std::to_string(out.shape[0]) + " but " +
                  (fixed ? "input '" + fixed->name + "' to " + std::to_string(batch)
                         : "input '" + inputs[0].name + "' has it dynamic");
    return axis;
  }
  axis.shared = true;
  axis.fixed_size = batch;
  return axis;
}

int ModelMetadata::FindInput(const std::string& name) const { return FindByName(inputs, name); }
int ModelMetadata::FindOutput(const std::string& name) const { return FindByName(outputs, name); }

const std::string* ModelMetadata::FindCustom(std::string_view key) const {
  for (const auto& [k, v] : custom)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace hone::runtime
