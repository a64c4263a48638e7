// Stage 5, threads: instances x ONNX Runtime's intra-op threads x spinning within the machine's cores; run again
// (index 8, "retune") when the precision or compression stage chose another model.
#include <fmt/format.h>

#include <algorithm>

#include "tune/stage_candidates.h"

namespace hone::tune {

namespace {

// Whether the objective's loads keep several requests in flight at once. Then instances that each run a request on
// their own cores usually beat one instance splitting every request over all of them (ONNX Runtime's intra-op
// threads meet at a barrier after every parallel node, and small nodes do not split well), so the splits with the
// most instances go first; with one request at a time, the one instance with every core goes first. Open loops
// count as concurrent: arrivals are independent, and near the rate an SLO names they overlap.
bool RequestsOverlap(const Objective& objective) {
  for (const Load& load : objective.loads) {
    if (load.open_loop() || load.concurrency >= 2) return true;
  }
  return false;
}

}  // namespace

std::vector<Candidate> ThreadsCandidates(const TuneState& state, const Candidate& from, const std::string& stage,
                                         const std::string& prefix) {
  const int cores = Cores(state);
  // What `from` runs with in fact: with no thread count in its config, hone serve gives each of its instances an
  // even share of the cores (serve/core/thread_split.cc), and ONNX Runtime spins unless told not to. A candidate
  // equal to that would measure the incumbent against itself and spend a ranking trial on nothing.
  const int from_intra = from.threads_set ? from.session.intra_op_threads : std::max(1, cores / std::max(from.instances, 1));
  const bool from_spin = from.session.allow_spinning;
  std::vector<Candidate> candidates;
  auto add = [&](int instances, int intra, bool spin) {
    Candidate c = from;
    c.id = fmt::format("{}instances{}-intra{}{}", prefix, instances, intra, spin ? "" : "-nospin");
    c.stage = stage;
    c.instances = instances;
    c.session.intra_op_threads = intra;
    c.threads_set = true;
    c.session.allow_spinning = spin;
    c.spinning_set = !spin;
    // Risk grows with the copies of the weights in memory and with leaving ONNX Runtime's defaults, whatever the
    // order the candidates are measured in.
    c.risk = from.risk + 2 * instances + (intra == 1 && instances == 1 ? 1 : 0) + (spin ? 0 : 8);
    if (from.instances == instances && from_intra == intra && from_spin == spin) return;  // the incumbent already is this
    for (const Candidate& other : candidates) {
      if (other.instances == instances && other.session.intra_op_threads == intra &&
          other.session.allow_spinning == spin) {
        return;
      }
    }
    candidates.push_back(c);
  };
  // The splits of the cores (instances x threads = cores), in the order the load favours (RequestsOverlap), then
  // one thread alone, then the same splits without spinning: when the budget cuts the list from its end, what goes
  // is the spinning, which moves CPU use more than throughput.
  std::vector<int> splits;
  for (int instances = 1; instances <= std::min(cores, 4); instances *= 2) splits.push_back(instances);
  if (RequestsOverlap(state.given.objective)) std::reverse(splits.begin(), splits.end());
  for (int instances : splits) add(instances, std::max(1, cores / instances), true);
  if (cores > 1) add(1, 1, true);
  if (!state.given.settings->quick) {
    for (int instances : splits) add(instances, std::max(1, cores / instances), false);
  }
  return candidates;
}

void RunThreadsStage(TuneState& state, bool again) {
  const std::string name = again ? "retune" : "threads";
  // Again: the model changed since the threads stage (the precision or compression stage's winner), so ids say which
  // model.
  const std::string prefix = again ? state.ledger.incumbent.id + "+" : "";
  std::vector<Candidate> candidates = {state.ledger.incumbent};
  for (Candidate& c : ThreadsCandidates(state, state.ledger.incumbent, name, prefix)) candidates.push_back(std::move(c));
  const std::string model = state.ledger.incumbent.id;
  SearchStage(state, name, again ? 8 : 5, std::move(candidates));
  auto& quality = state.ledger.quality_by_candidate;
  if (again && quality.contains(model)) {  // the same model file: the same quality
    const QualityRecord same = quality.at(model);
    for (const Entry& e : state.ledger.stages.back().entries) quality[e.candidate.id] = same;
  }
}

}  // namespace hone::tune
