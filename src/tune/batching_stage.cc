// Stage 3, batching: hone serve's dynamic batcher in front of the incumbent, at sizes and delays that fit the
// objective's load.
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "tune/stage_candidates.h"

namespace hone::tune {

int64_t LargestConcurrency(const TuneState& state) {
  int64_t largest = 1;
  for (const Load& load : state.given.objective.loads) largest = std::max(largest, load.open_loop() ? 8 : load.concurrency);
  return largest;
}

int Cores(const TuneState& state) {
  int cores = state.given.system.logical_cores > 0 ? state.given.system.logical_cores
                                             : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(cores, 1);
}

std::vector<Candidate> BatchingCandidates(const TuneState& state, const Candidate& from) {
  std::vector<Candidate> candidates;
  if (!state.given.batch_axis) return candidates;
  const int64_t concurrency = LargestConcurrency(state);
  std::vector<int64_t> sizes = {std::max<int64_t>(8, concurrency), 32};
  if (state.given.settings->quick) sizes = {std::max<int64_t>(8, concurrency)};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  int risk = 1;
  // Without a delay first (every size), then with one: when the budget cuts the list from its end, what goes is
  // the waiting, which pays off least often at a closed-loop load.
  for (int64_t delay : {int64_t{0}, int64_t{500}}) {
    for (int64_t size : sizes) {
      Candidate c = from;
      c.id = fmt::format("batch{}-delay{}", size, delay);
      c.stage = "batching";
      c.max_batch_size = size;
      c.dynamic_batching = true;
      c.max_queue_delay_us = delay;
      c.risk = from.risk + risk++;
      candidates.push_back(c);
      // With a delay, a preferred size equal to the requests outstanding sends a full batch at once instead of
      // waiting out the delay (Triton's preferred_batch_size).
      if (delay > 0 && concurrency > 1 && concurrency < size && !state.given.settings->quick) {
        c.id += fmt::format("-preferred{}", concurrency);
        c.preferred_batch_sizes = {concurrency};
        c.risk = from.risk + risk++;
        candidates.push_back(c);
      }
    }
  }
  return candidates;
}

void RunBatchingStage(TuneState& state) {
  if (!state.given.batch_axis) {
    state.ledger.stages.push_back(StageRecord::Of("batching", 3, StageStatus::kSkipped,
                                           "the model's inputs share no dynamic batch dimension: " + state.given.batch_reason));
    return;
  }
  std::vector<Candidate> candidates = {state.ledger.incumbent};
  for (Candidate& c : BatchingCandidates(state, state.ledger.incumbent)) candidates.push_back(std::move(c));
  SearchStage(state, "batching", 3, std::move(candidates));
}

}  // namespace hone::tune
