// What each stage tries: candidates made from `from` by changing one thing, so that a candidate's id says what it
// changed and its risk how far it moved. The stages search them against the incumbent; the exhaustive search
// (exhaustive_search.h) crosses every stage's candidates made from the baseline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tune/candidate.h"
#include "tune/tune_state.h"

namespace hone::tune {

// max_batch_size (8 or the largest concurrency, and 32) x max_queue_delay (0, 500 us), with a preferred size equal
// to the requests outstanding where a delay would otherwise be waited out. Empty when the inputs share no batch
// dimension.
std::vector<Candidate> BatchingCandidates(const TuneState& state, const Candidate& from);
// ONNX Runtime's graph levels other than `from`'s.
std::vector<Candidate> GraphCandidates(const Candidate& from);
// Instances (1, 2, 4 within the cores) x intra-op threads (the cores split between them) x spinning, and one
// thread alone. `stage` names them ("threads" or "retune"); ids start with `prefix`.
std::vector<Candidate> ThreadsCandidates(const TuneState& state, const Candidate& from, const std::string& stage,
                                         const std::string& prefix);

// The largest closed-loop concurrency of the objective's loads (8 for an open loop).
int64_t LargestConcurrency(const TuneState& state);
// The machine's logical cores (at least 1).
int Cores(const TuneState& state);

}  // namespace hone::tune
