// Which ops ONNX Runtime 1.30's CPU execution provider can compute in BF16: the allow-list `hone convert --to bf16`
// converts from, everything else stays FP32 with Casts around it.
//
// Why a list and not "try to load and see": ONNX Runtime's CPU provider registers BF16 kernels for data movement only
// (no MatMul, Add, Relu, Conv...), and some failures do not name the op at fault: a BF16 Clip with min/max inputs is
// expanded into a function whose Where has no BF16 kernel, so the error names a Where node the user's model does not
// have. Each entry is proved by convert_cpu_kernels_test.cc, which builds a one-node BF16 model per listed op and runs
// it in ONNX Runtime at opsets 13 and 17.
//
// FP16 needs no list: the CPU provider inserts its own Casts around FP16 nodes it has no kernel for, so every FP16 op
// the schema allows loads and runs (at FP32 speed where it has no kernel).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hone::onnx {

// Whether the CPU provider has a BF16 kernel for `op_type` (ai.onnx) at ai.onnx opset `opset`.
bool CpuHasBf16Kernel(const std::string& op_type, int64_t opset);

// The allow-list at `opset`, sorted (for the report and the tests).
std::vector<std::string> CpuBf16Ops(int64_t opset);

// The lowest ai.onnx opset at which BF16 is in the type constraints of the listed ops (13): convert --to bf16
// upgrades older models to it.
constexpr int64_t kBf16MinOpset = 13;

}  // namespace hone::onnx
