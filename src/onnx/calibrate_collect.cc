#include "onnx/calibrate_collect.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "onnx/calibrate_histogram.h"
#include "onnx/graph_index.h"
#include "onnx/graph_io.h"
#include "onnx/onnx_pb.h"
#include "runtime/input_pool.h"
#include "runtime/session.h"

namespace hone::onnx {
namespace fs = std::filesystem;
namespace {

// A private directory under the system temp dir for the augmented model, removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("hone_calibrate_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// The model with each of `tensors` that is not already a graph output added as one (FLOAT, shape left to ONNX
// Runtime). ONNX Runtime keeps graph outputs through its graph optimizations, so each can be read after a run.
::onnx::ModelProto ExposeTensors(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors) {
  ::onnx::ModelProto augmented = model;
  GraphIndex index(model.graph());
  for (const auto& name : tensors) {
    if (index.IsGraphOutput(name)) continue;
    auto* out = augmented.mutable_graph()->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  }
  return augmented;
}

struct Runner {
  const runtime::Session& session;
  const runtime::InputPool& pool;
  std::vector<int> output_index;  // per tensor, its index among the session's outputs
  int64_t samples = 0, batch = 1;
  Progress* progress = nullptr;  // may be null
  int passes = 1;                // over the data: 1 for minmax, 2 for the histogram methods

  size_t batches() const { return static_cast<size_t>((samples + batch - 1) / batch); }

  // Runs every batch and hands each tensor's values to visit(tensor_index, values). `pass` is 0-based.
  Status ForEachBatch(const std::vector<std::string>& tensors,
                      const std::function<void(size_t, std::span<const float>)>& visit, int pass) const {
    size_t done = static_cast<size_t>(pass) * batches();
    for (int64_t first = 0; first < samples; first += batch) {
      int64_t n = std::min(batch, samples - first);
      if (!pool.CheckBatch(n).ok()) n = batch;  // a fixed batch dimension: the last batch wraps round the pool
      HONE_ASSIGN_OR_RETURN(auto inputs, pool.MakeBatch(first, n));
      HONE_ASSIGN_OR_RETURN(auto outputs, session.Run(inputs));
      for (size_t t = 0; t < tensors.size(); ++t) {
        const Tensor& out = outputs[static_cast<size_t>(output_index[t])];
        if (out.type() != DataType::kFp32)
          return Status::InvalidArgument("tensor '" + tensors[t] + "': expected FP32 to calibrate, got " +
                                         std::string(DataTypeName(out.type())));
        visit(t, out.values<float>());
      }
      if (progress) {
        const int64_t last = std::min(first + batch, samples);
        std::string label = fmt::format("samples {}-{} of {}", first + 1, last, samples);
        if (passes > 1) label += pass == 0 ? " (pass 1 of 2: ranges)" : " (pass 2 of 2: histograms)";
        progress->StepDone(++done, label);
      }
    }
    return Status::Ok();
  }
};

}  // namespace

Result<Calibration> Calibrate(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors,
                              const QuantizeOptions& options) {
  const std::string data = "calibration data '" + options.calibration_inputs.data_path + "'";
  ScratchDir scratch;
  const std::string path = scratch.File("calibration.onnx");
  HONE_RETURN_IF_ERROR(WriteModel(ExposeTensors(model, tensors), path));
  runtime::SessionOptions session_options;
  session_options.intra_op_threads = options.calibration_threads;
  auto session = runtime::Session::Open(path, session_options);
  if (!session.ok())
    return Status::Internal("the model with its calibration outputs does not load: " + session.status().message());
  const runtime::Session& s = **session;

  auto pool = runtime::InputPool::Create(s.metadata(), options.calibration_inputs);
  if (!pool.ok()) return pool.status().WithContext(data);
  if (pool->sample_count() == 0) return Status::InvalidArgument(data + " has no samples");

  Runner runner{s, *pool, {}, 0, 1};
  for (const auto& name : tensors) {
    runner.output_index.push_back(s.metadata().FindOutput(name));
    if (runner.output_index.back() < 0)
      return Status::Internal("tensor '" + name + "' is not among the calibration model's outputs");
  }
  runner.samples = options.calibration_samples > 0 ? std::min(options.calibration_samples, pool->sample_count())
                                                   : pool->sample_count();
  runner.batch = pool->CheckBatch(options.calibration_batch).ok() ? options.calibration_batch : pool->default_batch();
  runner.progress = options.progress;
  runner.passes = options.calibration == CalibrationMethod::kMinMax ? 1 : 2;
  if (runner.progress) runner.progress->Start(runner.batches() * static_cast<size_t>(runner.passes));

  std::vector<MinMax> seen(tensors.size());
  HONE_RETURN_IF_ERROR(runner.ForEachBatch(tensors, [&](size_t t, std::span<const float> v) { seen[t].Add(v); }, 0)
                           .WithContext(data));

  Calibration result;
  result.samples = runner.samples;
  std::vector<TensorRange> ranges;
  for (const auto& mm : seen) ranges.push_back({mm.min, mm.max});
  if (options.calibration != CalibrationMethod::kMinMax) {
    // Per tensor, a histogram of its positive values and one of its negated negative values.
    std::vector<AbsHistogram> positive, negative;
    for (const auto& mm : seen) {
      positive.emplace_back(options.histogram_bins, std::max(mm.max, 0.0f), +1);
      negative.emplace_back(options.histogram_bins, std::max(-mm.min, 0.0f), -1);
    }
    HONE_RETURN_IF_ERROR(runner
                             .ForEachBatch(tensors,
                                           [&](size_t t, std::span<const float> v) {
                                             positive[t].Add(v);
                                             negative[t].Add(v);
                                           },
                                           1)
                             .WithContext(data));
    auto threshold = [&options](const AbsHistogram& h) {
      return static_cast<float>(options.calibration == CalibrationMethod::kPercentile
                                    ? PercentileThreshold(h.counts(), h.bin_width(), options.percentile, h.zeros())
                                    : EntropyThreshold(h.counts(), h.bin_width()));
    };
    for (size_t t = 0; t < tensors.size(); ++t) {
      if (ranges[t].max > 0) ranges[t].max = std::min(ranges[t].max, threshold(positive[t]));
      if (ranges[t].min < 0) ranges[t].min = std::max(ranges[t].min, -threshold(negative[t]));
    }
  }
  for (size_t t = 0; t < tensors.size(); ++t) {
    const TensorRange& r = ranges[t];
    result.ranges[tensors[t]] = r;
  }
  result.description = std::string(CalibrationMethodName(options.calibration)) +
                       (options.calibration == CalibrationMethod::kPercentile
                            ? fmt::format(" {:g}%", options.percentile)
                            : "") +
                       " over " + std::to_string(runner.samples) + " samples of " + pool->description() + ", " +
                       std::to_string(tensors.size()) + " tensors";
  return result;
}

}  // namespace hone::onnx
