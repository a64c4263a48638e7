// The exhaustive search: the yardstick the staged search is measured against (scripts/prove-tune). Every candidate
// the stages could reach from the baseline is one combination of a model (the source, or a verified lower-precision
// or pruned variant of it), a batching setting, a graph level and a threads setting; all of them are ranked with the stages' short
// trials and the best confirmed in the same paired rounds (search.h), so that the two searches differ only in which
// candidates they measure.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tune/stage_candidates.h"

namespace hone::tune {
namespace {

// `model` served with the batching of `batching`, the graph level of `graph` and the threads of `threads` (each
// made from the same baseline, so only its own stage's fields differ from it).
Candidate Combine(const Candidate& model, const Candidate& batching, const Candidate& graph, const Candidate& threads,
                  const Candidate& baseline) {
  Candidate c = model;
  c.max_batch_size = batching.max_batch_size;
  c.dynamic_batching = batching.dynamic_batching;
  c.max_queue_delay_us = batching.max_queue_delay_us;
  c.preferred_batch_sizes = batching.preferred_batch_sizes;
  c.session.graph_optimization = graph.session.graph_optimization;
  c.graph_level_set = graph.graph_level_set;
  c.instances = threads.instances;
  c.session.intra_op_threads = threads.session.intra_op_threads;
  c.threads_set = threads.threads_set;
  c.session.allow_spinning = threads.session.allow_spinning;
  c.spinning_set = threads.spinning_set;
  std::vector<std::string> parts;
  for (const Candidate* part : {&model, &batching, &graph, &threads}) {
    if (part->id != baseline.id) parts.push_back(part->id);
  }
  c.id = parts.empty() ? baseline.id : fmt::format("{}", fmt::join(parts, "+"));
  c.stage = "exhaustive";
  c.risk = baseline.risk + (model.risk - baseline.risk) + (batching.risk - baseline.risk) +
           (graph.risk - baseline.risk) + (threads.risk - baseline.risk);
  return c;
}

std::vector<Candidate> WithBase(const Candidate& base, std::vector<Candidate> others) {
  others.insert(others.begin(), base);
  return others;
}

// Every model x batching x graph x threads combination, the baseline's own corner first.
struct Grid {
  std::vector<Candidate> candidates;
  int models = 0, batching = 0, graph = 0, threads = 0;
};

Grid MakeGrid(const TuneState& state, const Candidate& base, const std::vector<Candidate>& models) {
  const std::vector<Candidate> batching = WithBase(base, BatchingCandidates(state, base));
  const std::vector<Candidate> graph = WithBase(base, GraphCandidates(base));
  const std::vector<Candidate> threads = WithBase(base, ThreadsCandidates(state, base, "threads", ""));
  Grid grid;
  for (const Candidate& m : models) {
    for (const Candidate& b : batching) {
      for (const Candidate& g : graph) {
        for (const Candidate& t : threads) grid.candidates.push_back(Combine(m, b, g, t, base));
      }
    }
  }
  grid.models = static_cast<int>(models.size());
  grid.batching = static_cast<int>(batching.size());
  grid.graph = static_cast<int>(graph.size());
  grid.threads = static_cast<int>(threads.size());
  return grid;
}

// The same windows and rounds as the stages', more finalists: the grid's best few are close to one another. The
// finalists are the best-ranked by the score alone (no CPU tie-break): the grid is the reference the stages'
// picks are proven against, so it keeps the plainest rule.
SearchSettings GridSearchSettings(TuneState& state) {
  SearchSettings s;
  s.rank_tie = 0;
  s.rank_window_s = state.given.settings->quick ? 0.1 : 0.15;
  s.confirm_window_s = state.given.settings->quick ? 0.15 : 0.4;
  s.finalists = 3;
  s.max_rounds = state.given.settings->quick ? 5 : 6;
  TuneState* st = &state;
  const double final_s = state.FinalSeconds();
  s.may_continue = [st, final_s] { return !st->stopped() && st->left_s() > final_s; };
  s.progress = [st](const std::string& text) {
    st->Say(fmt::format("exhaustive search: {}; {:.0f} s left", text, std::max(0.0, st->left_s())));
  };
  return s;
}

// The winner first, then the other confirmed finalists by their ratio to the baseline; three at most.
std::vector<Candidate> TopOf(const SearchResult& search) {
  const Entry& winner = search.entries[static_cast<size_t>(search.winner)];
  std::vector<const Entry*> confirmed;
  for (const Entry& e : search.entries) {
    if (&e != &winner && e.measured && !e.trial.loads.empty() && (e.score_pair.measured() || &e == &search.entries[0]))
      confirmed.push_back(&e);
  }
  std::stable_sort(confirmed.begin(), confirmed.end(),
                   [](const Entry* a, const Entry* b) { return a->ratio_vs_incumbent > b->ratio_vs_incumbent; });
  std::vector<Candidate> top = {winner.candidate};
  for (const Entry* e : confirmed) {
    if (top.size() < 3) top.push_back(e->candidate);
  }
  return top;
}

}  // namespace

void RunExhaustiveSearch(TuneState& state) {
  const auto started = std::chrono::steady_clock::now();
  const Candidate base = state.ledger.incumbent;  // the baseline: nothing has moved it yet
  state.Say("exhaustive search: making and verifying the lower-precision and pruned variants");
  // The variants get at most 30% of what is left; the grid takes the rest.
  const auto verify_end =
      started + std::chrono::milliseconds(static_cast<int64_t>(1000 * std::max(0.0, state.left_s() * 0.3)));
  std::vector<VariantCheckRecord> checks;
  std::vector<Candidate> models = {base};
  for (Candidate& c : MakeVerifiedVariants(state, {"precision", 6, VariantChange::kPrecision}, PlanPrecisionVariants(state),
                                           verify_end, checks)) {
    models.push_back(std::move(c));
  }
  // The pruned float models too (the compression stage's, made from the source; the incumbent is the baseline, so
  // none is quantized again here), each crossed with every setting like the others.
  std::string compression_skipped;
  const std::vector<PrecisionVariant> pruned = PlanCompressionVariants(state, &compression_skipped);
  if (!compression_skipped.empty())
    state.ledger.skipped.push_back({"exhaustive", "pruned models", compression_skipped});
  for (Candidate& c : MakeVerifiedVariants(state, {"compression", 7, VariantChange::kCompression}, pruned, verify_end,
                                           checks)) {
    models.push_back(std::move(c));
  }
  const Grid grid = MakeGrid(state, base, models);
  const auto grid_started = std::chrono::steady_clock::now();
  const SearchResult search =
      Search(grid.candidates, state.given.objective, ServedTrials(state), GridSearchSettings(state));
  const double grid_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - grid_started).count();
  StageRecord record = StageRecord::Of("exhaustive", 3, StageStatus::kNoGain, "");
  RecordSearch(state, search, record);
  record.variant_checks = std::move(checks);
  state.ledger.exhaustive = ExhaustiveFacts{static_cast<int>(grid.candidates.size()),
                                            grid.models,
                                            grid.batching,
                                            grid.graph,
                                            grid.threads,
                                            grid_s,
                                            TopOf(search)};
  record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  state.ledger.stages.push_back(std::move(record));
}

}  // namespace hone::tune
