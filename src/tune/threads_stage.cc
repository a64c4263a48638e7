// Stage 5, threads: instances x ONNX Runtime's intra-op threads x spinning within the machine's cores; run again
// (stage 7, "retune") when the precision stage chose another model.
#include <fmt/format.h>

#include "tune/stage_candidates.h"

namespace hone::tune {

std::vector<Candidate> ThreadsCandidates(const TuneState& state, const Candidate& from, const std::string& stage,
                                         const std::string& prefix) {
  const int cores = Cores(state);
  std::vector<Candidate> candidates;
  int risk = 1;
  auto add = [&](int instances, int intra, bool spin) {
    Candidate c = from;
    c.id = fmt::format("{}instances{}-intra{}{}", prefix, instances, intra, spin ? "" : "-nospin");
    c.stage = stage;
    c.instances = instances;
    c.session.intra_op_threads = intra;
    c.threads_set = true;
    c.session.allow_spinning = spin;
    c.spinning_set = !spin;
    c.risk = from.risk + risk++;
    auto same = [&](const Candidate& other) {
      return other.threads_set && other.instances == instances && other.session.intra_op_threads == intra &&
             other.session.allow_spinning == spin;
    };
    if (same(from)) return;  // the incumbent already is this
    for (const Candidate& other : candidates) {
      if (same(other)) return;
    }
    candidates.push_back(c);
  };
  // The splits of the cores first, then one thread alone, then the same splits without spinning: when the budget
  // cuts the list from its end, what goes is the spinning, which moves CPU use more than throughput.
  for (int instances = 1; instances <= std::min(cores, 4); instances *= 2) add(instances, std::max(1, cores / instances), true);
  if (cores > 1) add(1, 1, true);
  if (!state.given.settings->quick) {
    for (int instances = 1; instances <= std::min(cores, 4); instances *= 2) {
      add(instances, std::max(1, cores / instances), false);
    }
  }
  return candidates;
}

void RunThreadsStage(TuneState& state, bool again) {
  const std::string name = again ? "retune" : "threads";
  // Again: the model changed since the threads stage (the precision stage's winner), so ids say which model.
  const std::string prefix = again ? state.ledger.incumbent.id + "+" : "";
  std::vector<Candidate> candidates = {state.ledger.incumbent};
  for (Candidate& c : ThreadsCandidates(state, state.ledger.incumbent, name, prefix)) candidates.push_back(std::move(c));
  const std::string model = state.ledger.incumbent.id;
  SearchStage(state, name, again ? 7 : 5, std::move(candidates));
  auto& quality = state.ledger.quality_by_candidate;
  if (again && quality.contains(model)) {  // the same model file: the same quality
    const QualityRecord same = quality.at(model);
    for (const Entry& e : state.ledger.stages.back().entries) quality[e.candidate.id] = same;
  }
}

}  // namespace hone::tune
