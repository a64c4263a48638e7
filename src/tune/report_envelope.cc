#include "tune/report_envelope.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "base/file_digest.h"
#include "base/utc_time.h"
#include "onnx/model_info.h"
#include "onnx/model_info_format.h"

namespace hone::tune {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "nan", "inf", "-inf", or null for a finite number or anything else.
nlohmann::json NonFiniteName(const nlohmann::json& v) {
  if (!v.is_number_float()) return nullptr;
  const double d = v.get<double>();
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return nullptr;
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
    HONE_ASSIGN_OR_RETURN(onnx::ModelInfo info, onnx::ReadModelInfo(path));
    j["inputs"] = onnx::TensorInfosToJson(info.inputs);
    j["outputs"] = onnx::TensorInfosToJson(info.outputs);
  }
  return j;
}

nlohmann::json IoSpecsJson(const std::vector<runtime::IoSpec>& specs) {
  // The same objects `hone info` writes: a loaded model's specs said as the graph's tensors.
  std::vector<onnx::TensorInfo> tensors;
  for (const runtime::IoSpec& s : specs) {
    onnx::TensorInfo& t = tensors.emplace_back();
    t.name = s.name;
    t.type = s.type;
    t.onnx_type = s.onnx_type;
    for (size_t d = 0; d < s.shape.size(); ++d)
      t.dims.push_back({s.shape[d], d < s.symbols.size() ? s.symbols[d] : std::string()});
  }
  return onnx::TensorInfosToJson(tensors);
}

nlohmann::json ServedModelJson(const std::string& name, const std::string& url, const std::string& protocol,
                               const runtime::ModelMetadata& metadata) {
  return {{"name", name},         {"url", url},
          {"protocol", protocol}, {"path", nullptr},
          {"sha256", nullptr},    {"inputs", IoSpecsJson(metadata.inputs)},
          {"outputs", IoSpecsJson(metadata.outputs)}};
}

nlohmann::json SystemJson(const bench::SystemInfo& s) {
  return {{"cpu_model", s.cpu_model},
          {"logical_cores", s.logical_cores},
          {"cpu_features", s.cpu_features},
          {"memory_bytes", s.memory_bytes},
          {"kernel", s.kernel},
          {"hostname", s.hostname},
          {"onnxruntime_version", s.onnxruntime_version},
          {"hone_version", s.hone_version},
          {"compiler", s.compiler}};
}


void NullNonFinite(nlohmann::json& j) {
  if (j.is_object()) {
    std::vector<std::pair<std::string, nlohmann::json>> siblings;
    for (auto it = j.begin(); it != j.end(); ++it) {
      nlohmann::json name = NonFiniteName(it.value());
      if (!name.is_null()) {
        siblings.emplace_back(it.key() + "_non_finite", name);
        it.value() = nullptr;
      } else if (it.value().is_array()) {
        nlohmann::json names = nlohmann::json::array();
        bool any = false;
        for (auto& e : it.value()) {
          nlohmann::json n = NonFiniteName(e);
          any |= !n.is_null();
          if (!n.is_null()) e = nullptr;
          names.push_back(n);
        }
        if (any) siblings.emplace_back(it.key() + "_non_finite", names);
        NullNonFinite(it.value());
      } else {
        NullNonFinite(it.value());
      }
    }
    for (auto& [key, value] : siblings) j[key] = std::move(value);
  } else if (j.is_array()) {
    for (auto& e : j) {
      if (!NonFiniteName(e).is_null()) e = nullptr;  // no key to hang a sibling on: a bare array element
      NullNonFinite(e);
    }
  }
}

nlohmann::json MakeReport(std::string_view report, const ReportContext& context, nlohmann::json model,
                          nlohmann::json body) {
  nlohmann::json j = {{"tool", "hone"},
                      {"schema_version", kReportSchemaVersion},
                      {"report", std::string(report)},
                      {"started_at", UtcTimestamp(context.started_at)},
                      {"finished_at", UtcTimestamp(std::chrono::system_clock::now())},
                      {"command", context.argv},
                      {"system", SystemJson(bench::ReadSystemInfo())},
                      {"model", std::move(model)},
                      {std::string(report), std::move(body)}};
  NullNonFinite(j);
  return j;
}

}  // namespace hone::tune
