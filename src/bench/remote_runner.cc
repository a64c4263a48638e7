#include "bench/remote_runner.h"

#include <fmt/format.h>

#include "bench/remote_target.h"
#include "bench/sweep_progress.h"
#include "report/system_info.h"
#include "runtime/input_pool.h"

namespace hone::bench {
namespace {

std::string_view ArrivalName(ArrivalProcess p) { return p == ArrivalProcess::kPoisson ? "poisson" : "constant"; }

double PerRequestUs(const client::DurationStat& before, const client::DurationStat& after, uint64_t requests) {
  if (requests == 0) return 0;
  return static_cast<double>(after.ns - before.ns) / 1e3 / static_cast<double>(requests);
}

}  // namespace

runtime::ModelMetadata ToRuntimeMetadata(const client::ModelMetadataInfo& info) {
  runtime::ModelMetadata metadata;
  auto convert = [](const client::TensorMetadata& t) {
    runtime::IoSpec spec;
    spec.name = t.name;
    spec.type = t.type;
    spec.onnx_type = std::string(DataTypeName(t.type));
    spec.shape = t.shape;
    spec.symbols.assign(t.shape.size(), "");
    return spec;
  };
  for (const auto& t : info.inputs) metadata.inputs.push_back(convert(t));
  for (const auto& t : info.outputs) metadata.outputs.push_back(convert(t));
  metadata.graph_name = info.name;
  return metadata;
}

ServerBreakdown BreakdownBetween(const client::ModelStatsSnapshot& before, const client::ModelStatsSnapshot& after) {
  ServerBreakdown b;
  b.requests = after.success.count - before.success.count;
  b.failures = after.fail.count - before.fail.count;
  b.inferences = after.inference_count - before.inference_count;
  b.executions = after.execution_count - before.execution_count;
  b.request_us = PerRequestUs(before.success, after.success, b.requests);
  b.queue_us = PerRequestUs(before.queue, after.queue, b.requests);
  b.compute_input_us = PerRequestUs(before.compute_input, after.compute_input, b.requests);
  b.compute_infer_us = PerRequestUs(before.compute_infer, after.compute_infer, b.requests);
  b.compute_output_us = PerRequestUs(before.compute_output, after.compute_output, b.requests);
  return b;
}

Result<BenchReport> RunRemoteBench(const BenchSettings& settings, const RemoteSettings& remote,
                                   const RunnerHooks& hooks) {
  BenchSettings checked = settings;
  checked.model_path = remote.model;  // Validate wants a model; here it is the server's model name
  HONE_RETURN_IF_ERROR(checked.Validate());
  if (hooks.status) hooks.status("connecting to " + remote.url);
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<RemoteClient> control, RemoteClient::Connect(remote));
  return RunRemoteBench(settings, remote, std::move(control), hooks);
}

Result<BenchReport> RunRemoteBench(const BenchSettings& settings, const RemoteSettings& remote,
                                   std::unique_ptr<RemoteClient> control, const RunnerHooks& hooks) {
  BenchSettings checked = settings;
  checked.model_path = remote.model;
  HONE_RETURN_IF_ERROR(checked.Validate());
  auto say = [&](const std::string& s) {
    if (hooks.status) hooks.status(s);
  };
  HONE_ASSIGN_OR_RETURN(bool ready, control->IsModelReady());
  if (!ready) {
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("model '{}' is not ready on the server at {}", remote.model, remote.url));
  }
  HONE_ASSIGN_OR_RETURN(client::ModelMetadataInfo info, control->Metadata());
  runtime::ModelMetadata metadata = ToRuntimeMetadata(info);

  BenchReport report;
  report.model_path = fmt::format("{} (on {})", remote.model, remote.url);
  report.run = settings.run;
  report.cost_per_hour = settings.cost_per_hour;
  report.target = control->Describe();
  if (settings.mode == LoadMode::kOpenLoop) report.arrival = ArrivalName(settings.arrival);
  for (const auto& in : metadata.inputs) report.model_inputs.push_back(in.ToString());
  for (const auto& out : metadata.outputs) report.model_outputs.push_back(out.ToString());
  report.model_metadata = metadata;

  HONE_ASSIGN_OR_RETURN(runtime::InputPool pool, runtime::InputPool::Create(metadata, settings.inputs));
  DescribeInputs(pool, report);
  HONE_ASSIGN_OR_RETURN(std::vector<int64_t> batches, ResolveBatches(pool, settings.batch_sizes));

  LoadOptions load;
  load.arrival = settings.arrival;
  load.arrival_seed = settings.arrival_seed;
  load.open_loop_workers = settings.open_loop_workers > 0 ? settings.open_loop_workers : 64;
  load.stop = hooks.stop;

  std::vector<std::string> names;
  for (const auto& in : metadata.inputs) names.push_back(in.name);
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<RemoteClient> prototype, control->Clone());
  RemoteTarget target(std::move(prototype), names);
  // An ensemble's steps get a breakdown of their own; a server without the config endpoint just has none.
  Result<std::vector<std::string>> ensemble_steps = control->EnsembleSteps();
  const std::vector<std::string> steps = ensemble_steps.ok() ? *ensemble_steps : std::vector<std::string>{};
  const std::vector<BenchPoint> points = ExpandPoints(settings, 1, batches);
  SweepProgress sweep(hooks.progress, hooks.stop, points, {"server"});
  for (size_t i = 0; i < points.size(); ++i) {
    const BenchPoint& point = points[i];
    if (sweep.stopped()) break;
    HONE_ASSIGN_OR_RETURN(RequestSet requests, MakeRequests(pool, point.batch));
    say("measuring " + point.Label() + " against " + remote.url);
    Result<client::ModelStatsSnapshot> before = control->Statistics();
    std::vector<Result<client::ModelStatsSnapshot>> steps_before;
    for (const std::string& step : steps) steps_before.push_back(control->StatisticsOf(step));
    ProgressFn on_window = [&](const WindowProgress& w) {
      sweep.Window(i, w);
      if (hooks.window_done) hooks.window_done(w);
    };
    Result<PointResult> result = MeasurePoint(target, requests, point, settings.run, load, on_window);
    if (result.status().code() == StatusCode::kCancelled) break;
    HONE_RETURN_IF_ERROR(result.status());
    result->request_bytes = RequestBytes(requests);
    Result<client::ModelStatsSnapshot> after = control->Statistics();
    // A server without the statistics extension still gets measured; it just has no breakdown.
    if (before.ok() && after.ok()) result->server = BreakdownBetween(*before, *after);
    for (size_t k = 0; k < steps.size() && result->server; ++k) {
      Result<client::ModelStatsSnapshot> step_after = control->StatisticsOf(steps[k]);
      if (!steps_before[k].ok() || !step_after.ok()) continue;
      StageBreakdown stage{steps[k], BreakdownBetween(*steps_before[k], *step_after), 0};
      const double ensemble_us = result->server->request_us * static_cast<double>(result->server->requests);
      if (ensemble_us > 0)
        stage.share = stage.server.request_us * static_cast<double>(stage.server.requests) / ensemble_us;
      result->stages.push_back(std::move(stage));
    }
    report.points.push_back(std::move(*result));
    sweep.Done(i);
    if (sweep.stopped()) break;
  }
  if (sweep.stopped()) sweep.Interrupted(report.points.size(), report);
  report.system = report::ReadSystemInfo();
  return report;
}

}  // namespace hone::bench
