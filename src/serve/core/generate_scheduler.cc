#include "serve/core/generate_scheduler.h"

#include <atomic>
#include <mutex>

#include <fmt/format.h>

namespace hone::serve {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t Nanos(Clock::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

// One element of a numeric input as a double; InvalidArgument naming it otherwise.
Result<double> Scalar(const NamedTensor& in) {
  const Tensor& t = in.tensor;
  if (t.element_count() != 1)
    return Status::InvalidArgument(fmt::format("input '{}': expected one element, got shape {}", in.name,
                                               ShapeToString(t.shape())));
  switch (t.type()) {
    case DataType::kInt32: return double(t.values<int32_t>()[0]);
    case DataType::kInt64: return double(t.values<int64_t>()[0]);
    case DataType::kUint64: return double(t.values<uint64_t>()[0]);
    case DataType::kFp32: return double(t.values<float>()[0]);
    case DataType::kFp64: return t.values<double>()[0];
    default:
      return Status::InvalidArgument(fmt::format("input '{}': expected INT32, INT64, FP32 or FP64, got {}", in.name,
                                                 DataTypeName(t.type())));
  }
}

Result<generate::GenerationRequest> FromInputs(const InferenceRequest& request) {
  generate::GenerationRequest g;
  bool have_text = false;
  for (const NamedTensor& in : request.inputs) {
    if (in.name == "text_input") {
      if (in.tensor.type() != DataType::kBytes || in.tensor.element_count() != 1)
        return Status::InvalidArgument(fmt::format("input 'text_input': expected BYTES with one element, got {} {}",
                                                   DataTypeName(in.tensor.type()), ShapeToString(in.tensor.shape())));
      g.prompt = std::string(in.tensor.bytes_elements()[0]);
      have_text = true;
    } else if (in.name == "max_tokens") {
      HONE_ASSIGN_OR_RETURN(double v, Scalar(in));
      g.max_tokens = static_cast<int64_t>(v);
    } else if (in.name == "temperature") {
      HONE_ASSIGN_OR_RETURN(g.sampling.temperature, Scalar(in));
    } else if (in.name == "top_p") {
      HONE_ASSIGN_OR_RETURN(g.sampling.top_p, Scalar(in));
    } else if (in.name == "seed") {
      HONE_ASSIGN_OR_RETURN(double v, Scalar(in));
      g.sampling.seed = static_cast<uint64_t>(v);
    } else {
      return Status::InvalidArgument(fmt::format(
          "input '{}': a text-generation model takes text_input, max_tokens, temperature, top_p and seed", in.name));
    }
  }
  if (!have_text) return Status::InvalidArgument("input 'text_input' is missing (the prompt, BYTES, one element)");
  for (const std::string& out : request.requested_outputs)
    if (out != "text_output")
      return Status::NotFound(fmt::format("output '{}': a text-generation model gives only 'text_output'", out));
  return g;
}

class GenerateScheduler final : public Scheduler {
 public:
  GenerateScheduler(std::shared_ptr<GenerativeModel> model, ModelStats* stats)
      : model_(std::move(model)), stats_(stats) {}

  void Enqueue(InferenceRequest request, ResponseCallback done) override {
    const Clock::time_point arrival = Clock::now();
    Result<generate::GenerationRequest> g = FromInputs(request);
    if (!g.ok()) return Fail(arrival, g.status(), done);
    struct State {
      std::string text;
      InferenceRequest request;
      ResponseCallback done;
    };
    auto state = std::make_shared<State>();
    state->request = std::move(request);
    state->done = std::move(done);
    stats_->AddPending(1);
    auto submitted = model_->Submit(std::move(*g), [this, state, arrival](const generate::GenerationUpdate& u) {
      state->text += u.text;
      if (!u.finish) return;
      stats_->AddPending(-1);
      if (*u.finish == generate::FinishReason::kError || *u.finish == generate::FinishReason::kCancelled) {
        stats_->RecordFailure(Nanos(Clock::now() - arrival));
        state->done(u.error.ok() ? Status::Unavailable("the generation was cancelled") : u.error);
        return;
      }
      const std::string_view text = state->text;
      Result<Tensor> out = Tensor::FromStrings({1}, {&text, 1});
      if (!out.ok()) {
        stats_->RecordFailure(Nanos(Clock::now() - arrival));
        state->done(out.status());
        return;
      }
      InferenceResponse response;
      response.model_name = model_->name();
      response.model_version = model_->version();
      response.id = state->request.id;
      response.outputs.push_back({"text_output", std::move(*out)});
      const auto& t = u.times;
      stats_->RecordSuccess(Nanos(Clock::now() - arrival), Nanos(t.admitted - t.arrival), 0,
                            Nanos(t.last_token - t.admitted), 0, 1);
      state->done(std::move(response));
    });
    if (!submitted.ok()) {
      stats_->AddPending(-1);
      Fail(arrival, submitted.status(), state->done);
    }
  }

  int64_t pending() const override {
    const generate::EngineStats s = model_->engine().Stats();
    return s.running + s.waiting;
  }

  void Stop(std::chrono::steady_clock::time_point deadline) override { model_->Stop(deadline); }

 private:
  void Fail(Clock::time_point arrival, Status status, const ResponseCallback& done) {
    stats_->RecordFailure(Nanos(Clock::now() - arrival));
    done(std::move(status));
  }

  std::shared_ptr<GenerativeModel> model_;
  ModelStats* stats_;
};

}  // namespace

std::unique_ptr<Scheduler> CreateGenerateScheduler(std::shared_ptr<GenerativeModel> model, ModelStats* stats) {
  return std::make_unique<GenerateScheduler>(std::move(model), stats);
}

}  // namespace hone::serve
