// Helpers for the scheduler's tests (header-only; not part of the library): the test models, request builders,
// a thread-safe response collector and a gate that holds an instance busy.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/session.h"
#include "serve/core/inference.h"
#include "serve/core/model_stats.h"
#include "serve/core/scheduler_impl.h"

namespace hone::serve::test {

// Generous: tests wait for behaviour, never race a clock; this only bounds a hang.
constexpr auto kWaitLimit = std::chrono::seconds(60);

// "r3": appended, not concatenated (GCC 12 warns falsely, -Wstringop-overflow, on "r" + std::to_string(i)).
inline std::string Key(const char* prefix, int i) {
  std::string key = prefix;
  key += std::to_string(i);
  return key;
}

// A test model: fashion_mnist (the bundled one), one of serve's own (src/serve/core/testdata, each with a property
// a server must handle: see make_models.py there), or one of runtime's.
inline std::string ModelPath(const std::string& name) {
  std::string path = HONE_SOURCE_DIR;  // appended, not concatenated: see Key
  if (name == "fashion_mnist") return path.append("/models/fashion_mnist/model.onnx");
  std::string serve = path;
  serve.append("/src/serve/core/testdata/").append(name).append(".onnx");
  if (std::filesystem::exists(serve)) return serve;
  return path.append("/src/runtime/testdata/").append(name).append(".onnx");
}

// `count` sessions of one model; one intra-op thread each, no spinning (a 2-core machine runs the tests).
inline std::vector<std::unique_ptr<ModelInstance>> OpenInstances(const std::string& name, int count = 1) {
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  options.allow_spinning = false;
  std::vector<std::unique_ptr<ModelInstance>> sessions;
  for (int i = 0; i < count; ++i) {
    auto session = runtime::Session::Open(ModelPath(name), options);
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    if (session.ok()) sessions.push_back(SessionInstance(std::move(session).value()));
  }
  return sessions;
}

template <typename T>
Tensor Make(Shape shape, const std::vector<T>& values) {
  Tensor t = *Tensor::Allocate(DataTypeOf<T>(), std::move(shape));
  std::copy(values.begin(), values.end(), t.mutable_values<T>().begin());
  return t;
}

// affine.onnx's input: `rows` rows of 4 floats counting up from `start`.
inline InferenceRequest AffineRequest(int64_t rows, float start, std::string id = "") {
  std::vector<float> values(static_cast<size_t>(rows * 4));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<float>(i);
  InferenceRequest r;
  r.model_name = "affine";
  r.id = std::move(id);
  r.inputs.push_back({"x", Make<float>({rows, 4}, values)});
  return r;
}

// two_inputs.onnx's inputs: ids counting up from `start`, mask all ones, both [rows, seq].
inline InferenceRequest TwoInputsRequest(int64_t rows, int64_t seq, int64_t start, std::string id = "") {
  std::vector<int64_t> ids(static_cast<size_t>(rows * seq)), mask(ids.size(), 1);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = start + static_cast<int64_t>(i);
  InferenceRequest r;
  r.model_name = "two_inputs";
  r.id = std::move(id);
  r.inputs.push_back({"ids", Make<int64_t>({rows, seq}, ids)});
  r.inputs.push_back({"mask", Make<int64_t>({rows, seq}, mask)});
  return r;
}

// Whether `response` is affine's answer (y = 2x + 1) to AffineRequest(rows, start).
inline ::testing::AssertionResult IsAffineAnswer(const Result<InferenceResponse>& response, int64_t rows,
                                                 float start) {
  if (!response.ok()) return ::testing::AssertionFailure() << response.status().ToString();
  if (response->outputs.size() != 1 || response->outputs[0].name != "y")
    return ::testing::AssertionFailure() << "expected one output 'y'";
  const Tensor& y = response->outputs[0].tensor;
  if (y.shape() != Shape{rows, 4}) return ::testing::AssertionFailure() << "shape " << ShapeToString(y.shape());
  auto v = y.values<float>();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != 2 * (start + static_cast<float>(i)) + 1)
      return ::testing::AssertionFailure() << "y[" << i << "] = " << v[i];
  return ::testing::AssertionSuccess();
}

// Collects responses from any thread, in delivery order, and counts callbacks per key.
class Collector {
 public:
  struct Entry {
    std::string key;
    Result<InferenceResponse> result;
    std::chrono::steady_clock::time_point at;
  };

  ResponseCallback Callback(std::string key) {
    return [this, key = std::move(key)](Result<InferenceResponse> r) {
      std::lock_guard lock(mu_);
      entries_.push_back({key, std::move(r), std::chrono::steady_clock::now()});
      ++calls_[key];
      cv_.notify_all();
    };
  }
  // Waits until `n` callbacks have run in all; false on kWaitLimit.
  bool WaitFor(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kWaitLimit, [&] { return entries_.size() >= n; });
  }
  size_t size() {
    std::lock_guard lock(mu_);
    return entries_.size();
  }
  std::vector<Entry> entries() {
    std::lock_guard lock(mu_);
    return entries_;
  }
  std::vector<std::string> keys() {
    std::lock_guard lock(mu_);
    std::vector<std::string> k;
    for (const auto& e : entries_) k.push_back(e.key);
    return k;
  }
  // The first response for `key` (NotFound when there is none yet).
  Entry Get(const std::string& key) {
    std::lock_guard lock(mu_);
    for (const auto& e : entries_)
      if (e.key == key) return e;
    return {key, Status::NotFound("no response for '" + key + "'"), {}};
  }
  std::map<std::string, int> calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;
  std::map<std::string, int> calls_;
};

// A before_run hook that records each batch's rows and holds the first `hold` batches until Open().
class Gate {
 public:
  explicit Gate(int hold = 1) : hold_(hold) {}

  SchedulerHooks Hooks() {
    SchedulerHooks hooks;
    hooks.before_run = [this](size_t, int64_t rows) {
      std::unique_lock lock(mu_);
      batches_.push_back(rows);
      bool held = static_cast<int>(batches_.size()) <= hold_;
      cv_.notify_all();
      if (held) cv_.wait(lock, [&] { return open_; });
    };
    return hooks;
  }
  // Waits until `n` batches have reached the hook (the held ones are now blocked in it).
  bool WaitEntered(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kWaitLimit, [&] { return batches_.size() >= n; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  std::vector<int64_t> batches() {
    std::lock_guard lock(mu_);
    return batches_;
  }

 private:
  const int hold_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  std::vector<int64_t> batches_;
};

inline SchedulerOptions Options(const std::string& model, int64_t max_batch_size, bool dynamic = true) {
  SchedulerOptions o;
  o.model_name = model;
  o.model_version = 1;
  o.max_batch_size = max_batch_size;
  o.dynamic_batching = dynamic;
  return o;
}

// A scheduler over `instances` sessions of `model` with a Gate (holding the first `hold` batches), a Collector
// and statistics. Opens the gate before stopping, so a failed test ends instead of hanging.
struct Harness {
  Harness(SchedulerOptions options, const std::string& model, int instances = 1, int hold = 0,
          MetricsRegistry* metrics = nullptr)
      : gate(hold), stats(options.model_name, options.model_version, options.max_batch_size, metrics) {
    auto created = CreateScheduler(std::move(options), OpenInstances(model, instances), &stats, gate.Hooks());
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    if (created.ok()) scheduler = std::move(created).value();
  }
  ~Harness() {
    gate.Open();
    scheduler.reset();
  }
  void Send(InferenceRequest request, const std::string& key) {
    scheduler->Enqueue(std::move(request), out.Callback(key));
  }

  Gate gate;
  Collector out;
  ModelStats stats;
  std::unique_ptr<Scheduler> scheduler;
};

}  // namespace hone::serve::test
