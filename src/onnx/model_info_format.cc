#include "onnx/model_info_format.h"

#include "base/units.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

namespace hone::onnx {
namespace {

constexpr size_t kTopOperators = 15;

nlohmann::json DimsToJson(const TensorInfo& t) {
  if (!t.has_shape) return nullptr;
  nlohmann::json dims = nlohmann::json::array();
  for (const Dim& d : t.dims) {
    if (!d.dynamic())
      dims.push_back(d.value);
    else if (!d.symbol.empty())
      dims.push_back(d.symbol);
    else
      dims.push_back(nullptr);
  }
  return dims;
}

// Rows of cells, columns padded to their widest cell; indented (under a heading) by default.
std::string Table(const std::vector<std::vector<std::string>>& rows, const std::string& indent = "  ") {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      line += i + 1 < row.size() ? fmt::format("{:<{}}", row[i], widths[i]) : row[i];
    }
    out += line + "\n";
  }
  return out;
}

std::string TensorTable(const std::vector<TensorInfo>& tensors) {
  if (tensors.empty()) return "  (none)\n";
  std::vector<std::vector<std::string>> rows = {{"name", "type", "shape"}};
  for (const TensorInfo& t : tensors) {
    std::string type = t.type == DataType::kInvalid ? t.onnx_type : std::string(DataTypeName(t.type));
    rows.push_back({t.name, type, ShapeText(t)});
  }
  return Table(rows);
}

// Long doc strings are for the model's author; the report shows their first line.
std::string FirstLine(const std::string& text) {
  size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end) + " ...";
}

}  // namespace

nlohmann::json TensorInfosToJson(const std::vector<TensorInfo>& tensors) {
  nlohmann::json out = nlohmann::json::array();
  for (const TensorInfo& t : tensors) {
    out.push_back({{"name", t.name},
                   {"datatype", t.type == DataType::kInvalid ? nlohmann::json(nullptr)
                                                             : nlohmann::json(DataTypeName(t.type))},
                   {"onnx_type", t.onnx_type},
                   {"shape", DimsToJson(t)}});
  }
  return out;
}


nlohmann::json ModelInfoToJson(const ModelInfo& info) {
  nlohmann::json opsets = nlohmann::json::array();
  for (const auto& [domain, version] : info.opsets) opsets.push_back({{"domain", domain}, {"version", version}});
  nlohmann::json operators = nlohmann::json::array();
  for (const auto& [op, count] : info.operator_counts) operators.push_back({{"op", op}, {"count", count}});
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [key, value] : info.metadata_props) metadata[key] = value;
  return {{"path", info.path},
          {"file_bytes", info.file_bytes},
          {"ir_version", info.ir_version},
          {"producer_name", info.producer_name},
          {"producer_version", info.producer_version},
          {"domain", info.domain},
          {"doc_string", info.doc_string},
          {"model_version", info.model_version},
          {"opsets", opsets},
          {"inputs", TensorInfosToJson(info.inputs)},
          {"outputs", TensorInfosToJson(info.outputs)},
          {"node_count", info.node_count},
          {"operators", operators},
          {"parameter_count", info.parameter_count},
          {"parameter_bytes", info.parameter_bytes},
          {"initializer_count", info.initializer_count},
          {"uses_external_data", info.uses_external_data},
          {"metadata", metadata}};
}

std::string ModelInfoToText(const ModelInfo& info) {
  std::vector<std::vector<std::string>> head;
  head.push_back({"model", fmt::format("{} ({})", info.path, FormatBytes(static_cast<double>(info.file_bytes)))});
  std::string producer = info.producer_name.empty() ? "unknown" : info.producer_name;
  if (!info.producer_version.empty()) producer += " " + info.producer_version;
  head.push_back({"producer", producer});
  if (!info.domain.empty()) head.push_back({"domain", info.domain});
  if (info.model_version != 0) head.push_back({"model version", std::to_string(info.model_version)});
  if (!info.doc_string.empty()) head.push_back({"description", FirstLine(info.doc_string)});
  head.push_back({"IR version", std::to_string(info.ir_version)});
  std::string opsets;
  for (const auto& [domain, version] : info.opsets)
    opsets += fmt::format("{}{} {}", opsets.empty() ? "" : ", ", domain, version);
  head.push_back({"opsets", opsets.empty() ? "none" : opsets});
  std::string params = fmt::format("{} params, {} in {} initializer{}", FormatCount(info.parameter_count),
                                   FormatBytes(static_cast<double>(info.parameter_bytes)), info.initializer_count,
                                   info.initializer_count == 1 ? "" : "s");
  if (info.uses_external_data) params += " (some in external data files)";
  head.push_back({"parameters", params});
  head.push_back({"nodes", fmt::format("{} node{}, {} operator type{}", info.node_count,
                                       info.node_count == 1 ? "" : "s", info.operator_counts.size(),
                                       info.operator_counts.size() == 1 ? "" : "s")});

  std::string out = Table(head, "");
  out += fmt::format("\ninputs ({})\n", info.inputs.size()) + TensorTable(info.inputs);
  out += fmt::format("\noutputs ({})\n", info.outputs.size()) + TensorTable(info.outputs);

  if (!info.operator_counts.empty()) {
    size_t shown = std::min(kTopOperators, info.operator_counts.size());
    out += shown == info.operator_counts.size()
               ? fmt::format("\noperators ({} types)\n", shown)
               : fmt::format("\noperators (top {} of {} types)\n", shown, info.operator_counts.size());
    std::vector<std::vector<std::string>> rows = {{"operator", "nodes"}};
    int64_t rest = info.node_count;
    for (size_t i = 0; i < shown; ++i) {
      rows.push_back({info.operator_counts[i].first, std::to_string(info.operator_counts[i].second)});
      rest -= info.operator_counts[i].second;
    }
    if (shown < info.operator_counts.size()) rows.push_back({"(others)", std::to_string(rest)});
    out += Table(rows);
  }

  if (!info.metadata_props.empty()) {
    std::vector<std::vector<std::string>> rows = {{"key", "value"}};
    for (const auto& [key, value] : info.metadata_props) rows.push_back({key, FirstLine(value)});
    out += "\nmetadata\n" + Table(rows);
  }
  return out;
}

}  // namespace hone::onnx
