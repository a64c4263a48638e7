// When the dynamic batcher sends a batch: hone's work-conserving timing (the default) or Triton's fixed delay.
//
// Work-conserving: an instance that is free never waits for more requests while any are queued. A request that
// finds an instance idle and nothing queued runs at once; requests that arrive while every instance is busy form
// the next batch (up to max_batch_size and the preferred sizes), which starts as soon as an instance frees.
// max_queue_delay_microseconds is then only an upper bound on waiting, never a wait of its own: a lone request
// is not held back hoping for company, so copying a Triton config with a 1 ms delay does not add 1 ms at low load.
//
// Triton (`parameters { key: "hone.batch_timing" value: { string_value: "triton" } }`): Triton's own rule. A
// batch smaller than the largest preferred size waits until its oldest request has waited max_queue_delay, even
// with an instance idle. Fuller batches at high load on models whose per-batch cost barely grows with its rows
// (the case where waiting can pay), at the price of the whole delay at low load.
#pragma once

#include <string_view>

#include "base/result.h"
#include "client/model_config.pb.h"

namespace hone::serve {

enum class BatchTiming { kWorkConserving, kTriton };

inline constexpr std::string_view kBatchTiming = "hone.batch_timing";

// The config's `hone.batch_timing` parameter: "work_conserving" (also the default when absent) or "triton".
// InvalidArgument naming the parameter and the accepted values otherwise.
Result<BatchTiming> BatchTimingFromConfig(const inference::ModelConfig& config);

std::string_view BatchTimingName(BatchTiming timing);

}  // namespace hone::serve
