// The graph stage's second half, run once the winner is known (after precision, so that quantization works on the
// plain graph): ONNX Runtime's optimized graph of the winner is saved, verified like any variant (the same outputs,
// not slower), and served from the repository when it makes the model ready sooner (cold start, measured with and
// without it in alternating rounds).
//
// The graph is saved at the extended level at most, even when the winner runs at "all": the "all" level adds layout
// rewrites for this CPU's vector width (NCHWc blocks of 8 on AVX2, 16 on AVX-512), and a repository is often served
// on another machine. The served config keeps the winner's level, so those rewrites still happen at load.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "harness/served_model.h"
#include "harness/variant_check.h"
#include "runtime/session.h"
#include "tune/tune_state.h"

namespace hone::tune {
namespace fs = std::filesystem;
namespace {

// Seconds from serving the repository to the model ready (load, optimization, warm-up), `rounds` times each for
// the two candidates, in alternating order; medians.
Result<std::pair<double, double>> ColdStarts(const TuneState& state, const Candidate& without, const Candidate& with,
                                             int rounds) {
  std::vector<double> a, b;
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      const bool saved = (k == 1) != (r % 2 == 1);
      const Candidate& c = saved ? with : without;
      std::string repository =
          (fs::path(state.given.work_dir) / fmt::format("cold-start-{}-{}", r, saved ? "saved" : "plain")).string();
      HONE_RETURN_IF_ERROR(WriteRepository(c, state.given.plan.model_name, state.given.metadata, repository));
      {
        HONE_ASSIGN_OR_RETURN(auto served,
                              harness::ServedModel::Start(repository, state.given.plan.model_name, state.given.plan.protocol));
        (saved ? b : a).push_back(served->ready_s());
      }
      std::error_code ec;
      fs::remove_all(repository, ec);
    }
  }
  return std::make_pair(harness::Median(a), harness::Median(b));
}

}  // namespace

void RunGraphSaveStep(TuneState& state) {
  auto it = std::find_if(state.ledger.stages.begin(), state.ledger.stages.end(), [](const StageRecord& r) { return r.name == "graph"; });
  if (it == state.ledger.stages.end()) return;
  SavedGraphFacts& out = it->saved_graph.emplace();
  auto refuse = [&](const std::string& reason) { out.reason = reason; };
  if (state.stopped()) return refuse("stopped before the optimized graph was saved");
  if (state.left_s() < state.FinalSeconds() + 10) return refuse("budget: no time left to save and verify it");
  using runtime::GraphOptimization;
  const GraphOptimization level = std::min(state.ledger.incumbent.session.graph_optimization, GraphOptimization::kExtended);
  if (level == GraphOptimization::kDisable) return refuse("the winner runs with graph optimization off");
  state.Say(fmt::format("stage 4 of 7 (graph): saving the winner's optimized graph ({}: the highest level ONNX "
                        "Runtime saves for any machine) and measuring cold start; {:.0f} s left",
                        runtime::GraphOptimizationName(level), state.left_s()));
  const std::string path = (fs::path(state.given.work_dir) / "optimized.onnx").string();
  runtime::SessionOptions save = state.ledger.incumbent.session;
  save.graph_optimization = level;
  save.optimized_model_path = path;
  if (auto s = runtime::Session::Open(state.ledger.incumbent.model_path, save); !s.ok()) {
    return refuse("ONNX Runtime could not save it: " + s.status().message());
  }
  out.level = runtime::GraphOptimizationName(level);

  harness::VariantCheck check;
  check.source_path = state.ledger.incumbent.model_path;
  check.variant_path = path;
  check.data = state.given.plan.inputs;
  check.session = state.ledger.incumbent.session;
  check.gates = state.given.gates;
  check.slice_key = state.given.settings->slice_key;
  check.perturbations = state.given.settings->perturbations;
  check.bench_rounds = state.given.settings->quick ? 2 : 3;
  check.bench_window_s = state.given.settings->quick ? 0.1 : 0.25;
  auto verified = harness::CheckVariant(check);
  if (!verified.ok()) return refuse("could not be verified: " + verified.status().message());
  if (!verified->passed()) {
    std::string why = fmt::format("{}", fmt::join(verified->failures, "; "));
    state.ledger.rejected.push_back({"saved-graph", "graph", why});
    return refuse(why);
  }
  Candidate with = state.ledger.incumbent;
  with.id = state.ledger.incumbent.id + "+saved-graph";
  with.model_path = path;
  with.graph_level_set = true;  // the rest of the winner's level (layout rewrites) still runs at load
  auto cold = ColdStarts(state, state.ledger.incumbent, with, state.given.settings->quick ? 2 : 3);
  if (!cold.ok()) return refuse("cold start could not be measured: " + cold.status().message());
  const auto [plain_s, saved_s] = *cold;
  out.cold_start_without_s = plain_s;
  out.cold_start_with_s = saved_s;
  // Cold starts of tens of milliseconds move by several milliseconds from run to run: a gain must be clear.
  const bool faster = saved_s < plain_s * 0.9 && plain_s - saved_s > 0.005;
  if (!faster) {
    return refuse(fmt::format("verified, but the model is not ready clearly sooner with it ({:.1f} ms against "
                              "{:.1f} ms; a gain must be 10% and 5 ms at least): the repository keeps the plain graph",
                              1e3 * saved_s, 1e3 * plain_s));
  }
  out.used = true;
  out.reason = fmt::format("verified (same outputs, not slower) and ready in {:.1f} ms instead of {:.1f} ms",
                              1e3 * saved_s, 1e3 * plain_s);
  if (state.ledger.quality_by_candidate.contains(state.ledger.incumbent.id))  // the same model, re-optimized: the same quality
    state.ledger.quality_by_candidate[with.id] = state.ledger.quality_by_candidate[state.ledger.incumbent.id];
  state.ledger.saved_graph_of = state.ledger.incumbent.id;
  state.ledger.incumbent = with;
}

}  // namespace hone::tune
