#include "onnx/convert_cpu_kernels.h"

#include <algorithm>
#include <map>

namespace hone::onnx {
namespace {

// Op type -> the first opset at which ONNX Runtime 1.30's CPU provider runs it in BF16 (measured by
// convert_cpu_kernels_test.cc at opsets 13 and 17; none of them runs in BF16 at opset 11). Left out on purpose: Clip
// (with min/max inputs it is expanded into ops without BF16 kernels), and every arithmetic op (no BF16 kernels).
const std::map<std::string, int64_t>& Bf16Ops() {
  static const std::map<std::string, int64_t> kOps = {
      {"Concat", 13},    {"Flatten", 13}, {"Gather", 13},    {"Identity", 13}, {"Reshape", 13},
      {"Shape", 13},     {"Sign", 13},    {"Slice", 13},     {"Split", 13},    {"Squeeze", 13},
      {"Transpose", 13}, {"Unsqueeze", 13}, {"LayerNormalization", 17},
  };
  return kOps;
}

}  // namespace

bool CpuHasBf16Kernel(const std::string& op_type, int64_t opset) {
  auto it = Bf16Ops().find(op_type);
  return it != Bf16Ops().end() && opset >= it->second;
}

std::vector<std::string> CpuBf16Ops(int64_t opset) {
  std::vector<std::string> ops;
  for (const auto& [op, since] : Bf16Ops())
    if (opset >= since) ops.push_back(op);
  return ops;  // std::map keeps them sorted
}

}  // namespace hone::onnx
