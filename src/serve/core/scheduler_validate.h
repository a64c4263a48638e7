// What the scheduler checks before it queues anything: the scheduler's options against the model (once, at
// Create), and each request against the model (at Enqueue). Errors name the thing at fault and what was expected.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "runtime/model_metadata.h"
#include "serve/core/model_instance.h"
#include "serve/core/inference.h"
#include "serve/core/scheduler.h"

namespace hone::serve {

// "model 'affine' version 1": the prefix of every scheduler error.
std::string ModelLabel(const SchedulerOptions& options);

// Checks the options and the instances: at least one instance, all of the same model; every input of a type hone
// handles; with max_batch_size > 0 a dynamic first dimension on every input and output; preferred batch sizes
// in [1, max_batch_size]; priority levels consistent. InvalidArgument (Unimplemented for an unsupported input
// type), naming the field or the tensor.
Status ValidateSchedulerOptions(const SchedulerOptions& options,
                                const std::vector<std::unique_ptr<ModelInstance>>& instances);

// Checks `request` against `model` and puts its inputs in the model's input order. On success returns the
// request's batch size (1 when max_batch_size == 0). Unknown inputs and outputs are NotFound; everything else
// (an input given twice or missing, wrong type, rank or dimension, batch size out of [1, max_batch_size] or
// differing between inputs, an output requested twice) is InvalidArgument.
Result<int64_t> ValidateRequest(const runtime::ModelMetadata& model, int64_t max_batch_size,
                                InferenceRequest& request);

}  // namespace hone::serve
