#include "onnx/opset_convert.h"

#include <fmt/format.h>

#include "onnx/graph_index.h"
#include "onnx/onnx_pb.h"
#include "onnx/version_converter/convert.h"

namespace hone::onnx {

std::string OpsetUpgrade::Describe() const {
  if (!upgraded()) return "";
  return fmt::format("upgraded opset {} -> {} for {}", from, to, reason);
}

Result<OpsetUpgrade> UpgradeOpset(::onnx::ModelProto* model, int64_t target, const std::string& reason) {
  OpsetUpgrade upgrade;
  upgrade.reason = reason;
  upgrade.from = upgrade.to = OpsetVersion(*model, "");
  if (upgrade.from == 0) return Status::InvalidArgument("the model imports no ai.onnx opset; cannot upgrade it");
  if (upgrade.from >= target) return upgrade;
  ::onnx::ModelProto converted;
  try {
    converted = ::onnx::version_conversion::ConvertVersion(*model, static_cast<int>(target));
  } catch (const std::exception& e) {
    return Status::InvalidArgument(fmt::format("cannot upgrade the model from ai.onnx opset {} to {} (needed for {}): "
                                               "ONNX version converter: {}",
                                               upgrade.from, target, reason, e.what()));
  }
  // The converter rebuilds the graph from its IR and drops what that IR does not hold; keep the model's own
  // identity and metadata.
  converted.set_producer_name(model->producer_name());
  converted.set_producer_version(model->producer_version());
  converted.set_model_version(model->model_version());
  converted.set_doc_string(model->doc_string());
  *converted.mutable_metadata_props() = model->metadata_props();
  *model = std::move(converted);
  upgrade.to = OpsetVersion(*model, "");
  if (upgrade.to < target)
    return Status::Internal(fmt::format("ONNX version converter left the model at opset {}, asked for {}", upgrade.to,
                                        target));
  return upgrade;
}

}  // namespace hone::onnx
