#include "serve/core/scheduler_config.h"

#include <algorithm>

#include "serve/config/batch_timing.h"

namespace hone::serve {
namespace {

QueuePolicy QueuePolicyFrom(const inference::ModelQueuePolicy& policy) {
  QueuePolicy out;
  out.timeout_action = policy.timeout_action() == inference::ModelQueuePolicy::DELAY
                           ? QueuePolicy::TimeoutAction::kDelay
                           : QueuePolicy::TimeoutAction::kReject;
  out.default_timeout_us = policy.default_timeout_microseconds();
  out.allow_timeout_override = policy.allow_timeout_override();
  out.max_queue_size = policy.max_queue_size();
  return out;
}

}  // namespace

SchedulerOptions SchedulerOptionsFromConfig(const inference::ModelConfig& config, int64_t version) {
  SchedulerOptions options;
  options.model_name = config.name();
  options.model_version = version;
  options.max_batch_size = config.max_batch_size();
  options.dynamic_batching = config.has_dynamic_batching() && config.max_batch_size() > 0;
  if (!options.dynamic_batching) return options;

  const auto& batching = config.dynamic_batching();
  DynamicBatchingPolicy& policy = options.batching;
  policy.preferred_batch_sizes.assign(batching.preferred_batch_size().begin(),
                                      batching.preferred_batch_size().end());
  std::sort(policy.preferred_batch_sizes.begin(), policy.preferred_batch_sizes.end());
  policy.max_queue_delay = std::chrono::microseconds(batching.max_queue_delay_microseconds());
  // Validated at load (config_validate.cc); an invalid value cannot reach here.
  const Result<BatchTiming> timing = BatchTimingFromConfig(config);
  policy.work_conserving = !timing.ok() || *timing == BatchTiming::kWorkConserving;
  policy.preserve_ordering = batching.preserve_ordering();
  policy.priority_levels = static_cast<uint32_t>(batching.priority_levels());
  policy.default_priority_level = static_cast<uint32_t>(batching.default_priority_level());
  policy.default_queue_policy = QueuePolicyFrom(batching.default_queue_policy());
  for (const auto& [level, queue_policy] : batching.priority_queue_policy()) {
    policy.priority_queue_policy.emplace_back(static_cast<uint32_t>(level), QueuePolicyFrom(queue_policy));
  }
  std::sort(policy.priority_queue_policy.begin(), policy.priority_queue_policy.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return options;
}

}  // namespace hone::serve
