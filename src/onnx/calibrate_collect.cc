#include "onnx/calibrate_collect.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "onnx/calibrate_histogram.h"
#include "onnx/exposed_tensors.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx {

Result<Calibration> Calibrate(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors,
                              const QuantizeOptions& options) {
  const std::string data = "calibration data '" + options.calibration_inputs.data_path + "'";
  ExposedRun run;
  run.data = options.calibration_inputs;
  run.samples = options.calibration_samples;
  run.batch = options.calibration_batch;
  run.threads = options.calibration_threads;
  run.progress = options.progress;
  const bool two_passes = options.calibration != CalibrationMethod::kMinMax;
  if (two_passes) run.progress_note = " (pass 1 of 2: ranges)";
  // One pass per visitor; errors name the dataset.
  auto pass = [&](const std::function<void(size_t, std::span<const float>)>& add) -> Result<ExposedRunInfo> {
    auto info = RunExposed(model, tensors, run,
                           [&](const std::vector<std::string>&, std::span<const Tensor>,
                               std::span<const Tensor* const> exposed) {
                             for (size_t t = 0; t < exposed.size(); ++t) add(t, exposed[t]->values<float>());
                             return Status::Ok();
                           });
    if (!info.ok() && info.status().code() != StatusCode::kInternal) return info.status().WithContext(data);
    return info;
  };

  std::vector<MinMax> seen(tensors.size());
  HONE_ASSIGN_OR_RETURN(ExposedRunInfo info, pass([&](size_t t, std::span<const float> v) { seen[t].Add(v); }));

  Calibration result;
  result.samples = info.samples;
  std::vector<TensorRange> ranges;
  for (const auto& mm : seen) ranges.push_back({mm.min, mm.max});
  if (options.calibration != CalibrationMethod::kMinMax) {
    // Per tensor, a histogram of its positive values and one of its negated negative values.
    std::vector<AbsHistogram> positive, negative;
    for (const auto& mm : seen) {
      positive.emplace_back(options.histogram_bins, std::max(mm.max, 0.0f), +1);
      negative.emplace_back(options.histogram_bins, std::max(-mm.min, 0.0f), -1);
    }
    run.progress_note = " (pass 2 of 2: histograms)";
    HONE_RETURN_IF_ERROR(pass([&](size_t t, std::span<const float> v) {
                           positive[t].Add(v);
                           negative[t].Add(v);
                         }).status());
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
                       " over " + std::to_string(info.samples) + " samples of " + info.description + ", " +
                       std::to_string(tensors.size()) + " tensors";
  return result;
}

}  // namespace hone::onnx
