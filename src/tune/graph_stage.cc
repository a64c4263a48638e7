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
  std::vector<Candidate> candidates = {state.incumbent};
  for (Candidate& c : GraphCandidates(state.incumbent)) candidates.push_back(std::move(c));
  SearchStage(state, "graph", 4, std::move(candidates));
  // Cold start per level: the served model's time to ready, from the trials' own start-ups.
  nlohmann::json cold = nlohmann::json::array();
  for (const Entry& e : state.stages.back().entries) {
    if (e.measured) cold.push_back({{"candidate", e.candidate.id}, {"ready_s", e.trial.ready_s}});
  }
  state.stages.back().extra["cold_start"] = cold;
}

}  // namespace hone::tune
