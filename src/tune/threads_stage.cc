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
  for (int instances = 1; instances <= std::min(cores, 4); instances *= 2) {
    add(instances, std::max(1, cores / instances), true);
    if (!state.settings->quick) add(instances, std::max(1, cores / instances), false);
  }
  if (cores > 1) add(1, 1, true);
  return candidates;
}

void RunThreadsStage(TuneState& state, bool again) {
  const std::string name = again ? "retune" : "threads";
  // Again: the model changed since the threads stage (the precision stage's winner), so ids say which model.
  const std::string prefix = again ? state.incumbent.id + "+" : "";
  std::vector<Candidate> candidates = {state.incumbent};
  for (Candidate& c : ThreadsCandidates(state, state.incumbent, name, prefix)) candidates.push_back(std::move(c));
  const std::string model = state.incumbent.id;
  SearchStage(state, name, again ? 7 : 5, std::move(candidates));
  if (again && state.quality_by_candidate.contains(model)) {  // the same model file: the same quality
    for (const Entry& e : state.stages.back().entries) {
      state.quality_by_candidate[e.candidate.id] = state.quality_by_candidate[model];
    }
  }
}

}  // namespace hone::tune
