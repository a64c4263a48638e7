// Stage 4, graph: ONNX Runtime's graph optimization levels, with each level's cold start.
#include <fmt/format.h>

#include "tune/stage_candidates.h"

namespace hone::tune {

std::vector<Candidate> GraphCandidates(const Candidate& from) {
  using runtime::GraphOptimization;
  std::vector<Candidate> candidates;
  int risk = 1;
  for (GraphOptimization level : {GraphOptimization::kExtended, GraphOptimization::kBasic}) {
    if (level == from.session.graph_optimization) continue;
    Candidate c = from;
    c.id = fmt::format("graph-{}", runtime::GraphOptimizationName(level));
    c.stage = "graph";
    c.session.graph_optimization = level;
    c.graph_level_set = true;
    c.risk = from.risk + risk++;
    candidates.push_back(c);
  }
  return candidates;
}

void RunGraphStage(TuneState& state) {
  std::vector<Candidate> candidates = {state.ledger.incumbent};
  for (Candidate& c : GraphCandidates(state.ledger.incumbent)) candidates.push_back(std::move(c));
  // Each level's cold start is in its trials' own start-ups (report.json's cold_start).
  SearchStage(state, "graph", 4, std::move(candidates));
}

}  // namespace hone::tune
