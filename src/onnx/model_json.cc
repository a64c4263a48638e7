#include "onnx/model_json.h"

#include <filesystem>
#include <string_view>

#include "base/file_digest.h"
#include "onnx/model_info.h"
#include "onnx/model_info_format.h"

namespace hone::onnx {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<nlohmann::json> ModelFileJson(const std::string& path) {
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec) return Status::NotFound("cannot read '" + path + "': " + ec.message());
  HONE_ASSIGN_OR_RETURN(std::string sha256, Sha256OfFile(path));
  nlohmann::json j = {{"path", path}, {"file_bytes", bytes}, {"sha256", sha256},
                      {"inputs", nullptr}, {"outputs", nullptr}};
  if (EndsWith(path, ".onnx")) {
    HONE_ASSIGN_OR_RETURN(ModelInfo info, ReadModelInfo(path));
    j["inputs"] = TensorInfosToJson(info.inputs);
    j["outputs"] = TensorInfosToJson(info.outputs);
  }
  return j;
}

nlohmann::json IoSpecsJson(const std::vector<runtime::IoSpec>& specs) {
  // The same objects `hone info` writes: a loaded model's specs said as the graph's tensors.
  std::vector<TensorInfo> tensors;
  for (const runtime::IoSpec& s : specs) {
    TensorInfo& t = tensors.emplace_back();
    t.name = s.name;
    t.type = s.type;
    t.onnx_type = s.onnx_type;
    for (size_t d = 0; d < s.shape.size(); ++d)
      t.dims.push_back({s.shape[d], d < s.symbols.size() ? s.symbols[d] : std::string()});
  }
  return TensorInfosToJson(tensors);
}

nlohmann::json ServedModelJson(const std::string& name, const std::string& url, const std::string& protocol,
                               const runtime::ModelMetadata& metadata) {
  return {{"name", name},         {"url", url},
          {"protocol", protocol}, {"path", nullptr},
          {"sha256", nullptr},    {"inputs", IoSpecsJson(metadata.inputs)},
          {"outputs", IoSpecsJson(metadata.outputs)}};
}

}  // namespace hone::onnx
