// Completion: what a config leaves out, filled from the model and the machine, as Triton's auto-complete does for
// ONNX models, then checked against the model. The completed config is what the model runs with and what
// GET /v2/models/<m>/config shows.
//
// Loading a model goes:  ParseModelConfig -> ValidateModelConfig -> ApplyConfigDefaults -> SessionOptionsFromConfig
// -> open the instances -> CompleteFromModel(first instance's metadata). CompleteModelConfig does the last two
// config steps at once.
#pragma once

#include <string>

#include "base/status.h"
#include "client/model_config.pb.h"
#include "runtime/model_metadata.h"
#include "serve/config/config_validate.h"

namespace hone::serve {

struct CompletionOptions {
  // Cores that the model's instances split between them when the config sets no intra_op_thread_count.
  // 0: the machine's (std::thread::hardware_concurrency()).
  int cores = 0;
  // max_batch_size given to a model that can batch when the config declares no inputs, no outputs and no
  // max_batch_size. Triton's onnxruntime backend option default-max-batch-size, whose default is 4.
  int default_max_batch_size = 4;
};

// What needs no model: name (source.model_name), platform "onnxruntime_onnx", backend "onnxruntime"; one
// instance group {name <model>, KIND_CPU, count 1} when there is none, else each group's KIND_AUTO becomes
// KIND_CPU, count 0 becomes 1 and an empty name becomes "<model>_<index>"; version_policy latest {num_versions 1}
// when none is set; and, when parameters has no intra_op_thread_count, intra_op_thread_count =
// max(1, cores / total instances), so that the instances together never oversubscribe the cores.
void ApplyConfigDefaults(const ConfigSource& source, const CompletionOptions& options,
                         inference::ModelConfig* config);

// What needs the model (its metadata as ONNX Runtime reports it):
// - The model can batch when every input and output has at least one dimension and a dynamic first one. When
//   the config declares no inputs and no outputs: a model that can batch gets max_batch_size
//   options.default_max_batch_size if it had none, and then, with max_batch_size > 1 and no dynamic_batching, an
//   empty dynamic_batching (Triton's defaults). Shapes cannot tell a model that reduces over the whole tensor,
//   batch included, so the loader runs a batch before it keeps this claim (serve/core/batch_check.h) and
//   completes again with default_max_batch_size 0 when the batch's answers differ from the solo ones. (Triton also does this when only one of the two lists is
//   missing; hone does not, because it would change the meaning of the dims already declared.)
// - Missing inputs (all of them) and outputs (all of them) are filled from the model in model order: name, type,
//   dims without the batch dimension when max_batch_size > 0; a tensor left with no dims gets dims [1] and an
//   empty reshape (a scalar per batch row), as Triton does.
// - Declared inputs and outputs are checked against the model: the name exists, data_type matches, every model
//   input is declared, the model's first dimension is dynamic when max_batch_size > 0, and the rest of the
//   model's shape matches the config's (reshape.shape when present, else dims): same rank, and each fixed model
//   dimension equal (a dynamic model dimension accepts any config value).
// - Then ValidateBatching.
// Errors start with source.where and name the field: "models/m/config.pbtxt: input 'x': data_type TYPE_INT64 does
// not match the model's FP32". InvalidArgument, or Unimplemented for a model tensor type hone has no config
// type for.
Status CompleteFromModel(const runtime::ModelMetadata& model, const CompletionOptions& options,
                         const ConfigSource& source, inference::ModelConfig* config);

// ApplyConfigDefaults, then CompleteFromModel.
Status CompleteModelConfig(const runtime::ModelMetadata& model, const CompletionOptions& options,
                           const ConfigSource& source, inference::ModelConfig* config);

// The number of instances the config's groups make (a count of 0 counts as 1; no group counts as one instance).
int TotalInstanceCount(const inference::ModelConfig& config);

}  // namespace hone::serve
