#include "serve/config/triton_fields.h"

#include <google/protobuf/descriptor.h>

#include <vector>

#include "base/nearest_name.h"

namespace hone::serve {
namespace {

struct TritonField {
  std::string_view type;
  std::string_view field;
  std::string_view what;
};

// Triton's fields that hone's proto does not have (as of Triton 2.5x), each with what it is for.
constexpr TritonField kUnsupported[] = {
    {"ModelConfig", "sequence_batching", "the sequence batcher, for stateful models"},
    {"ModelConfig", "batch_input", "ragged batching"},
    {"ModelConfig", "batch_output", "ragged batching"},
    {"ModelConfig", "runtime", "a custom backend runtime library"},
    {"ModelConfig", "cc_model_filenames", "per-GPU model files"},
    {"ModelConfig", "metric_tags", "custom metric labels"},
    {"ModelConfig", "model_operations", "model operation settings"},
    {"ModelConfig", "model_transaction_policy", "decoupled models"},
    {"ModelConfig", "model_repository_agents", "repository agents"},
    {"ModelConfig", "response_cache", "the response cache"},
    {"ModelInput", "is_shape_tensor", "shape tensors"},
    {"ModelInput", "allow_ragged_batch", "ragged batching"},
    {"ModelInput", "is_non_linear_format_io", "non-linear tensor formats"},
    {"ModelOutput", "is_shape_tensor", "shape tensors"},
    {"ModelOutput", "is_non_linear_format_io", "non-linear tensor formats"},
    {"ModelInstanceGroup", "rate_limiter", "the rate limiter"},
    {"ModelInstanceGroup", "gpus", "GPU instances"},
    {"ModelInstanceGroup", "secondary_devices", "secondary devices"},
    {"ModelInstanceGroup", "profile", "TensorRT optimization profiles"},
    {"ModelInstanceGroup", "passive", "passive instances"},
    {"ModelInstanceGroup", "host_policy", "host policies"},
    {"ModelOptimizationPolicy", "priority", "model priorities"},
    {"ModelOptimizationPolicy", "cuda", "CUDA graph settings"},
    {"ModelOptimizationPolicy", "execution_accelerators", "execution accelerators (TensorRT, OpenVINO)"},
    {"ModelOptimizationPolicy", "input_pinned_memory", "pinned memory"},
    {"ModelOptimizationPolicy", "output_pinned_memory", "pinned memory"},
    {"ModelOptimizationPolicy", "gather_kernel_buffer_threshold", "the gather kernel"},
    {"ModelOptimizationPolicy", "eager_batching", "eager batching"},
};

}  // namespace

std::string_view UnsupportedTritonField(std::string_view type, std::string_view field) {
  for (const TritonField& f : kUnsupported)
    if (f.type == type && f.field == field) return f.what;
  return {};
}

std::string NearestConfigField(std::string_view type, std::string_view field) {
  std::vector<std::string> known;
  const auto* message =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName("inference." + std::string(type));
  if (message != nullptr)
    for (int i = 0; i < message->field_count(); ++i) known.push_back(std::string(message->field(i)->name()));
  for (const TritonField& f : kUnsupported)
    if (f.type == type) known.emplace_back(f.field);
  // NearestName also takes a name cut short at a word boundary ("max_batch" for "max_batch_size").
  return NearestName(field, known);
}

}  // namespace hone::serve
