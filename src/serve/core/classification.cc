#include "serve/core/classification.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "process/line_file.h"

namespace hone::serve {
namespace {

Result<std::vector<double>> Values(const Tensor& t, const std::string& output) {
  std::vector<double> v;
  v.reserve(static_cast<size_t>(t.element_count()));
  auto take = [&](auto values) {
    for (auto x : values) v.push_back(static_cast<double>(x));
  };
  switch (t.type()) {
    case DataType::kFp32: take(t.values<float>()); break;
    case DataType::kFp64: take(t.values<double>()); break;
    case DataType::kInt8: take(t.values<int8_t>()); break;
    case DataType::kInt16: take(t.values<int16_t>()); break;
    case DataType::kInt32: take(t.values<int32_t>()); break;
    case DataType::kInt64: take(t.values<int64_t>()); break;
    case DataType::kUint8: take(t.values<uint8_t>()); break;
    case DataType::kUint16: take(t.values<uint16_t>()); break;
    case DataType::kUint32: take(t.values<uint32_t>()); break;
    case DataType::kUint64: take(t.values<uint64_t>()); break;
    default:
      return Status::InvalidArgument("output '" + output + "': the classification extension needs numbers, the "
                                     "output is " + std::string(DataTypeName(t.type())));
  }
  return v;
}

}  // namespace

Result<Tensor> ClassifyOutput(const Tensor& scores, uint32_t k, bool batched, const std::vector<std::string>* labels,
                              const std::string& output) {
  HONE_ASSIGN_OR_RETURN(std::vector<double> values, Values(scores, output));
  const int64_t rows = batched && !scores.shape().empty() ? scores.shape()[0] : 1;
  const int64_t classes = rows > 0 ? static_cast<int64_t>(values.size()) / rows : 0;
  if (k == 0 || static_cast<int64_t>(k) > classes)
    return Status::InvalidArgument(fmt::format("output '{}': classification {} asked, the output has {} classes a row",
                                               output, k, classes));
  std::vector<std::string> strings;
  strings.reserve(static_cast<size_t>(rows) * k);
  std::vector<int64_t> order(static_cast<size_t>(classes));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = values.data() + r * classes;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
    for (uint32_t i = 0; i < k; ++i) {
      const int64_t c = order[i];
      std::string s = fmt::format("{:.6f}:{}", row[c], c);
      if (labels && c < static_cast<int64_t>(labels->size())) s += ":" + (*labels)[static_cast<size_t>(c)];
      strings.push_back(std::move(s));
    }
  }
  std::vector<std::string_view> views(strings.begin(), strings.end());
  Shape shape = batched ? Shape{rows, static_cast<int64_t>(k)} : Shape{static_cast<int64_t>(k)};
  return Tensor::FromStrings(std::move(shape), views);
}

Result<std::map<std::string, std::vector<std::string>>> ReadOutputLabels(const inference::ModelConfig& config,
                                                                         const std::string& model_dir) {
  std::map<std::string, std::vector<std::string>> labels;
  for (const auto& out : config.output()) {
    if (out.label_filename().empty()) continue;
    const std::string path = (std::filesystem::path(model_dir) / out.label_filename()).string();
    Result<std::vector<std::string>> lines = process::ReadLineFile(path);
    if (!lines.ok())
      return Status::NotFound("output '" + out.name() + "': label_filename '" + path + "' cannot be read");
    labels[out.name()] = std::move(*lines);
  }
  return labels;
}

}  // namespace hone::serve
