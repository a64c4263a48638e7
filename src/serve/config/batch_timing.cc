#include "serve/config/batch_timing.h"

#include <string>

namespace hone::serve {

Result<BatchTiming> BatchTimingFromConfig(const inference::ModelConfig& config) {
  auto it = config.parameters().find(std::string(kBatchTiming));
  if (it == config.parameters().end()) return BatchTiming::kWorkConserving;
  const std::string& value = it->second.string_value();
  if (value == "work_conserving") return BatchTiming::kWorkConserving;
  if (value == "triton") return BatchTiming::kTriton;
  return Status::InvalidArgument("parameter '" + std::string(kBatchTiming) +
                                 "': expected 'work_conserving' (the default) or 'triton', got '" + value + "'");
}

std::string_view BatchTimingName(BatchTiming timing) {
  return timing == BatchTiming::kTriton ? "triton" : "work_conserving";
}

}  // namespace hone::serve
