// Whether a model really batches: running two different samples as one batch must give each sample the outputs it
// gets alone. Triton's auto-complete (and hone's, config_complete.h) claims batching from the shapes alone (a
// dynamic first dimension everywhere), which a model that reduces over the whole tensor, batch included, also has;
// batching such a model silently changes every answer. So hone checks before it claims.
#pragma once

#include <string>

#include "base/result.h"
#include "client/model_config.pb.h"
#include "serve/core/model_instance.h"
#include "serve/config/config_validate.h"

namespace hone::serve {

struct BatchCheck {
  bool safe = false;
  std::string why;  // what was run and what differed, or why it could not be checked; for the log
};

// Runs, on `session`, two random samples (different seeds) alone with batch 1 and together as a batch of 2, and
// compares each output row by row: integers and booleans exactly, floats within 1e-4 + 1e-3 * |solo value| (ONNX
// Runtime may pick other kernels for another batch size), NaN equal only to NaN. `config` is the completed config
// with max_batch_size >= 2. Dynamic dimensions other than the batch take 1, else 2, else 4: the first size at which
// the model runs both samples alone. A model that cannot run the samples at all is not safe (unverified).
// Errors only for a sample hone cannot make (TYPE_STRING inputs); the caller then does not claim batching either.
Result<BatchCheck> CheckBatching(const ModelInstance& session, const inference::ModelConfig& config,
                                 const ConfigSource& source);

}  // namespace hone::serve
