#include "tune/tune_final.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench/remote_runner.h"
#include "check/compare.h"
#include "runtime/session.h"
#include "serve/http/http_infer_client.h"
#include "tensor/npz.h"
#include "tune/served_model.h"

namespace hone::tune {
namespace {

// Sends held-out rows one request at a time over HTTP (binary tensors) and compares each response with the
// winner run in process on the same row (bit-near: 1e-5) and with the source model (hone compare's defaults).
void CheckOutputsOverTheWire(TuneState& state, ServedModel& served, const std::string& model_name,
                             FinalCheck& check) {
  auto fail = [&](const std::string& why) {
    check.outputs_match = check.source_match = false;
    check.outputs_detail = why;
  };
  auto data = ReadNpz(state.heldout_path);
  if (state.heldout_path.empty() || !data.ok()) {
    fail(state.heldout_path.empty() ? "no dataset: outputs over the wire not checked"
                                    : "held-out rows unreadable: " + data.status().message());
    return;
  }
  auto winner = runtime::Session::Open(state.incumbent.model_path, state.incumbent.session);
  auto source = runtime::Session::Open(state.settings->model_path, runtime::SessionOptions{});
  if (!winner.ok() || !source.ok()) {
    fail("the models do not open in process: " + (winner.ok() ? source.status() : winner.status()).message());
    return;
  }
  std::string host = "127.0.0.1";
  int port = 0;
  if (!bench::ParseUrl(served.url(), &host, &port).ok()) return fail("bad server address " + served.url());
  auto client = serve::http::HttpInferClient::Connect(host, static_cast<uint16_t>(port));
  if (!client.ok()) return fail("cannot connect: " + client.status().message());

  const runtime::ModelMetadata& md = (*winner)->metadata();
  int64_t rows = 0;
  for (const NamedTensor& t : *data) {
    for (const runtime::IoSpec& in : md.inputs) {
      if (t.name == in.name && !t.tensor.shape().empty()) rows = std::max(rows, t.tensor.shape()[0]);
    }
  }
  int64_t limit = std::min<int64_t>(rows, state.settings->quick ? 64 : 256);
  if (!state.batch_axis) limit = std::min<int64_t>(limit, 1);
  check::CompareSettings exact, defaults;
  exact.tolerances.defaults.rule = check::ToleranceRule::kAtolRtol;
  exact.tolerances.defaults.atol = 1e-5;
  exact.tolerances.defaults.rtol = 1e-4;
  int64_t exact_ok = 0, source_ok = 0;
  std::string first_failure;
  for (int64_t row = 0; row < limit; ++row) {
    std::vector<NamedTensor> inputs;
    std::vector<Tensor> session_inputs;
    for (const runtime::IoSpec& in : md.inputs) {
      auto it = std::find_if(data->begin(), data->end(), [&](const NamedTensor& t) { return t.name == in.name; });
      if (it == data->end()) return fail(fmt::format("the held-out data has no input '{}'", in.name));
      auto slice = state.batch_axis ? it->tensor.SliceRows(row, 1) : Result<Tensor>(it->tensor);
      if (!slice.ok()) return fail(slice.status().message());
      inputs.push_back({in.name, *slice});
      session_inputs.push_back(*slice);
    }
    auto wire = (*client)->Infer(model_name, 0, inputs, {.binary_inputs = true, .binary_outputs = true});
    auto mine = (*winner)->Run(session_inputs);
    auto theirs = (*source)->Run(session_inputs);
    if (!wire.ok()) return fail(fmt::format("row {}: the server answered: {}", row, wire.status().message()));
    if (!mine.ok() || !theirs.ok()) return fail(fmt::format("row {}: the model failed in process", row));
    std::vector<NamedTensor> mine_named, theirs_named;
    for (size_t k = 0; k < md.outputs.size(); ++k) {
      mine_named.push_back({md.outputs[k].name, (*mine)[k]});
      theirs_named.push_back({md.outputs[k].name, (*theirs)[k]});
    }
    auto a = check::CompareOutputs(mine_named, wire->outputs, exact);
    auto b = check::CompareOutputs(theirs_named, wire->outputs, defaults);
    if (a.ok() && a->passed()) ++exact_ok;
    if (b.ok() && b->passed()) ++source_ok;
    if (first_failure.empty() && (!a.ok() || !a->passed() || !b.ok() || !b->passed())) {
      first_failure = fmt::format("row {} differs ({})", row,
                                  !a.ok()              ? a.status().message()
                                  : !b.ok()            ? b.status().message()
                                  : !a->passed()       ? "from the winner in process"
                                                       : "from the source beyond hone compare's defaults");
    }
  }
  check.rows_checked = limit;
  check.outputs_match = limit > 0 && exact_ok == limit;
  check.source_match = limit > 0 && source_ok == limit;
  check.outputs_detail =
      limit == 0 ? "no held-out row to send"
                 : fmt::format("{} held-out rows sent over HTTP: {} match the winner in process within 1e-5, {} "
                               "match the source within hone compare's defaults{}",
                               limit, exact_ok, source_ok, first_failure.empty() ? "" : "; first: " + first_failure);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::vector<Load> CurveLoads(const TuneState& state) {
  int64_t largest = 8;
  for (const Load& l : state.objective.loads) {
    if (!l.open_loop) largest = std::max(largest, l.concurrency * 2);
  }
  std::vector<Load> loads;
  for (int64_t c = 1; c <= largest; c *= 2) loads.push_back(Load{false, c, 0});
  return loads;
}

FinalCheck RunFinalCheck(TuneState& state, const std::string& repository, const std::string& model_name,
                         std::vector<TrialResult>* curves) {
  FinalCheck check;
  check.repository = repository;
  Status written = WriteRepository(state.incumbent, model_name, state.metadata, repository);
  if (!written.ok()) {
    check.error = written.message();
    return check;
  }
  check.config_text = ReadText(repository + "/" + model_name + "/config.pbtxt");
  auto served = ServedModel::Start(repository, model_name, state.settings->protocol);
  if (!served.ok()) {
    check.error = served.status().message();
    return check;
  }
  check.ran = true;
  check.ready_s = (*served)->ready_s();
  state.Say(fmt::format("final check: serving '{}' and measuring over the wire", repository));
  std::vector<TrialResult> repeats;
  int rounds = state.settings->quick ? 2 : 3;
  for (int i = 0; i < rounds && !state.stopped(); ++i) {
    bench::RunnerHooks hooks;
    hooks.stop = state.settings->stop;
    TrialResult r;
    r.candidate_id = state.incumbent.id;
    for (const Load& load : state.objective.loads) {
      bench::BenchSettings s;
      s.inputs = state.plan.inputs;
      s.cost_per_hour = state.plan.cost_per_hour;
      s.run.warmup_s = 0.3;
      s.run.window_s = state.settings->quick ? 0.2 : 0.5;
      s.run.stability.tolerance = 0.2;
      s.run.stability.max_windows = 8;
      s.run.stability.min_duration_s = 3 * s.run.window_s;
      s.mode = load.open_loop ? bench::LoadMode::kOpenLoop : bench::LoadMode::kClosedLoop;
      if (load.open_loop) {
        s.rates = {load.rate};
      } else {
        s.concurrency = {load.concurrency};
      }
      auto report = bench::RunRemoteBench(s, (*served)->Remote(), hooks);
      if (!report.ok() || report->points.empty()) {
        check.error = report.ok() ? "no point measured" : report.status().message();
        break;
      }
      r.loads.push_back(FiguresFromPoint(report->points[0], load, state.plan.cost_per_hour,
                                         state.plan.extra_percentile));
    }
    if (r.loads.size() == state.objective.loads.size()) repeats.push_back(r);
  }
  if (!repeats.empty()) check.trial = MergeRepeats(repeats);
  Score score = ScoreTrial(state.objective, check.trial);
  check.slo_results = score.slo_results;
  check.slos_met = !repeats.empty() && score.feasible;
  if (curves && !state.stopped()) {
    TrialPlan plan = state.plan;
    plan.loads = CurveLoads(state);
    plan.window_s = state.settings->quick ? 0.1 : 0.25;
    plan.stop = state.settings->stop;
    for (const Candidate* c : {&state.baseline, &state.incumbent}) {
      if (state.stopped()) break;
      state.Say(fmt::format("final check: latency-throughput curve of {}", c->id));
      auto t = MeasureServed(*c, plan);
      if (t.ok()) {
        t->candidate_id = c == &state.baseline ? "baseline" : "final (" + c->id + ")";
        curves->push_back(std::move(*t));
      }
    }
  }
  CheckOutputsOverTheWire(state, **served, model_name, check);
  return check;
}

nlohmann::json FinalJson(const FinalCheck& f) {
  nlohmann::json loads = nlohmann::json::array();
  for (const LoadFigures& l : f.trial.loads) loads.push_back(LoadFiguresJson(l));
  return {{"candidate", f.trial.candidate_id},
          {"through", "hone serve in this process, loopback"},
          {"ran", f.ran},
          {"error", f.error.empty() ? nlohmann::json() : nlohmann::json(f.error)},
          {"loads", loads},
          {"ready_s", f.ready_s},
          {"rows_checked", f.rows_checked},
          {"outputs_match_in_process", f.outputs_match},
          {"outputs_match_source", f.source_match},
          {"outputs_detail", f.outputs_detail}};
}

}  // namespace hone::tune
