#include "harness/served_evaluate.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <future>
#include <sstream>

#include "bench/remote_runner.h"  // ToRuntimeMetadata
#include "check/gates.h"
#include "check/numeric_values.h"
#include "check/truth.h"
#include "harness/in_process_client.h"
#include "runtime/input_pool.h"
#include "serve/core/server.h"
#include "tensor/npz.h"

namespace hone::harness {
namespace {

using check::Task;

// Runs every sample of `pool` through `model` on `server`, `batch` samples a request, and returns `output`'s
// values for all of them in order, with its shape ([samples, ...]).
Result<std::vector<double>> RunAll(serve::Server& server, const std::string& model, int64_t version,
                                   const runtime::InputPool& pool, const runtime::ModelMetadata& metadata,
                                   int64_t batch, const std::string& output, Shape& shape, Progress* progress) {
  std::vector<double> values;
  const int64_t samples = pool.sample_count();
  for (int64_t first = 0; first < samples; first += batch) {
    const int64_t count = std::min(batch, samples - first);
    HONE_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, pool.MakeBatch(first, count));
    serve::InferenceRequest request;
    request.model_name = model;
    request.model_version = version;
    for (size_t k = 0; k < inputs.size(); ++k) request.inputs.push_back({metadata.inputs[k].name, std::move(inputs[k])});
    request.requested_outputs = {output};
    std::promise<Result<serve::InferenceResponse>> done;
    auto answer = done.get_future();
    server.Infer(std::move(request), [&done](Result<serve::InferenceResponse> r) { done.set_value(std::move(r)); });
    Result<serve::InferenceResponse> response = answer.get();
    if (!response.ok())
      return response.status().WithContext(fmt::format("samples {}..{}", first, first + count - 1));
    const Tensor& t = response->outputs.at(0).tensor;
    HONE_ASSIGN_OR_RETURN(std::vector<double> v, check::ToDoubles(t, "output '" + output + "'"));
    values.insert(values.end(), v.begin(), v.end());
    if (first == 0) shape = t.shape();
    if (progress) progress->Update(fmt::format("'{}': {} of {} samples", model, first + count, samples));
  }
  if (!shape.empty()) shape[0] = samples;
  return values;
}

// --labels-file as a dataset array of INT64 labels, for check::ResolveTruth like a dataset's own.
Result<Tensor> ReadLabelsFile(const std::string& path, int64_t samples) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--labels-file '" + path + "': cannot read it");
  std::vector<int64_t> labels;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
    if (ec != std::errc() || end != line.data() + line.size() || v < 0)
      return Status::InvalidArgument("--labels-file '" + path + "' line " + std::to_string(labels.size() + 1) +
                                     ": '" + line + "' is not a class index");
    labels.push_back(v);
  }
  if (static_cast<int64_t>(labels.size()) != samples)
    return Status::InvalidArgument(fmt::format("--labels-file '{}': {} labels for {} samples", path, labels.size(),
                                               samples));
  HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DataType::kInt64, {samples}));
  std::copy(labels.begin(), labels.end(), t.mutable_values<int64_t>().begin());
  return t;
}

}  // namespace

Result<check::EvaluateReport> EvaluateServed(const ServedEvaluateSettings& settings) {
  const check::EvaluateSettings& s = settings.check;
  if (s.inputs.data_path.empty())
    return Status::InvalidArgument("hone evaluate needs --data: raw samples (a .txt, .jsonl or folder) or an .npz");
  if (!s.perturbations.empty() || !s.slice_key.empty())
    return Status::InvalidArgument("--perturb and --slice are for a model file; with --model-repository they do not "
                                   "apply");
  HONE_ASSIGN_OR_RETURN(std::unique_ptr<serve::Server> server, ServeInProcess(settings.repository, settings.model));
  HONE_ASSIGN_OR_RETURN(client::ModelMetadataInfo info, server->ModelMetadata(settings.model, settings.version));
  const runtime::ModelMetadata metadata = bench::ToRuntimeMetadata(info);
  HONE_ASSIGN_OR_RETURN(runtime::InputPool pool, runtime::InputPool::Create(metadata, s.inputs));

  check::EvaluateReport report;
  report.output = s.output.empty() ? metadata.outputs.at(0).name : s.output;
  if (metadata.FindOutput(report.output) < 0)
    return Status::InvalidArgument(fmt::format("--output-name {}: model '{}' has no such output", report.output,
                                               settings.model));
  const int64_t batch = s.batch > 0 ? s.batch : 16;
  report.inputs = fmt::format("{}, {} sample{} a request", pool.description(), batch, batch == 1 ? "" : "s");
  report.runtime = fmt::format("hone serve in this process, repository '{}', model '{}'", settings.repository,
                               settings.model);
  if (s.progress) s.progress->Start(settings.against_repository.empty() ? 1 : 2);
  HONE_ASSIGN_OR_RETURN(std::vector<double> clean, RunAll(*server, settings.model, settings.version, pool, metadata,
                                                          batch, report.output, report.output_shape, s.progress));

  std::optional<std::vector<double>> reference;
  if (!settings.against_repository.empty()) {
    HONE_ASSIGN_OR_RETURN(std::unique_ptr<serve::Server> against,
                          ServeInProcess(settings.against_repository, settings.model));
    Shape shape;
    HONE_ASSIGN_OR_RETURN(std::vector<double> values, RunAll(*against, settings.model, 0, pool, metadata, batch,
                                                              report.output, shape, s.progress));
    if (shape != report.output_shape)
      return Status::InvalidArgument(fmt::format("output '{}': shape {} in '{}' but {} in '{}'", report.output,
                                                 ShapeToString(report.output_shape), settings.repository,
                                                 ShapeToString(shape), settings.against_repository));
    reference = std::move(values);
    against->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  }

  // The truth as hone evaluate resolves it for a model file: the dataset's labels (an .npz), --labels-file as one
  // more array, or the reference's outputs for embeddings.
  std::vector<NamedTensor> dataset;
  if (s.inputs.data_path.ends_with(".npz")) {
    HONE_ASSIGN_OR_RETURN(dataset, ReadNpz(s.inputs.data_path));
  }
  check::TruthRequest request;
  request.task = s.task;
  request.labels_key = s.labels_key;
  if (!settings.labels_file.empty()) {
    HONE_ASSIGN_OR_RETURN(Tensor labels, ReadLabelsFile(settings.labels_file, pool.sample_count()));
    dataset.push_back({settings.labels_file, std::move(labels)});
    request.labels_key = settings.labels_file;
  }
  if (dataset.empty() && !reference && s.task != Task::kEmbedding)
    return Status::InvalidArgument("'" + s.inputs.data_path + "' holds no labels: give --labels-file (one class a "
                                   "line, in the samples' order), or --against-repository to evaluate embeddings");
  request.dataset_path = s.inputs.data_path;
  request.dataset = &dataset;
  for (const auto& in : metadata.inputs) request.input_names.push_back(in.name);
  request.output_name = report.output;
  request.output_shape = report.output_shape;
  request.reference = reference ? &*reference : nullptr;
  HONE_ASSIGN_OR_RETURN(check::ResolvedTruth resolved, check::ResolveTruth(request));
  const check::TaskTruth& truth = resolved.truth;
  const Task task = truth.task;
  report.truth = task == Task::kEmbedding
                     ? fmt::format("the same model's '{}' in '{}'", report.output, settings.against_repository)
                     : resolved.description;
  report.task = task;
  report.candidate.source = fmt::format("model '{}' served from '{}'", settings.model, settings.repository);
  HONE_ASSIGN_OR_RETURN(report.candidate.metrics,
                        check::ComputeTaskMetrics(truth, clean, report.output_shape, s.task_options));
  if (reference && task != Task::kEmbedding) {
    check::ModelEvaluation ref;
    ref.source = fmt::format("model '{}' served from '{}'", settings.model, settings.against_repository);
    HONE_ASSIGN_OR_RETURN(ref.metrics, check::ComputeTaskMetrics(truth, *reference, report.output_shape,
                                                                 s.task_options));
    report.reference = std::move(ref);
  }
  for (size_t i = 0; i < clean.size(); ++i) {
    if (std::isfinite(clean[i])) continue;
    ++report.nan_inf_outputs;
    if (reference && std::isfinite((*reference)[i])) report.new_nan_inf_outputs = report.new_nan_inf_outputs.value_or(0) + 1;
  }
  if (reference && !report.new_nan_inf_outputs) report.new_nan_inf_outputs = 0;
  report.metrics = check::CollectMetrics(report);
  std::vector<check::Gate> gates = s.gates;
  gates.push_back(reference ? check::Gate{"new_nan_inf_outputs", check::GateOp::kLessEqual, 0}
                            : check::Gate{"nan_inf_outputs", check::GateOp::kLessEqual, 0});
  HONE_ASSIGN_OR_RETURN(report.gates, check::CheckGates(gates, report.metrics));
  server->Shutdown(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  return report;
}

}  // namespace hone::harness
