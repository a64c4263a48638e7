#include "serve/core/model_instance.h"

#include "process/stage.h"
#include "runtime/session.h"

namespace hone::serve {
namespace {

class SessionModelInstance final : public ModelInstance {
 public:
  explicit SessionModelInstance(std::unique_ptr<runtime::Session> session) : session_(std::move(session)) {}
  const runtime::ModelMetadata& metadata() const override { return session_->metadata(); }
  Result<std::vector<Tensor>> Run(std::span<const Tensor> inputs) const override { return session_->Run(inputs); }
  const std::string& source() const override { return session_->model_path(); }

 private:
  std::unique_ptr<runtime::Session> session_;
};

runtime::IoSpec SpecOf(const process::StageTensorSpec& s) {
  runtime::IoSpec spec;
  spec.name = s.name;
  spec.type = s.type;
  spec.onnx_type = std::string(DataTypeName(s.type));
  spec.shape = s.shape;
  spec.symbols.assign(s.shape.size(), "");
  // Dimension 0 of every stage tensor is the batch (stage.h).
  if (!spec.symbols.empty()) spec.symbols[0] = "batch";
  return spec;
}

class StageModelInstance final : public ModelInstance {
 public:
  explicit StageModelInstance(std::unique_ptr<process::Stage> stage) : stage_(std::move(stage)) {
    for (const auto& in : stage_->inputs()) metadata_.inputs.push_back(SpecOf(in));
    for (const auto& out : stage_->outputs()) metadata_.outputs.push_back(SpecOf(out));
    metadata_.producer = "hone";
    metadata_.graph_name = stage_->description();
  }
  const runtime::ModelMetadata& metadata() const override { return metadata_; }
  Result<std::vector<Tensor>> Run(std::span<const Tensor> inputs) const override {
    // The scheduler checked names, types and ranks against the metadata; the stage checks what it relies on
    // beyond those (shapes agreeing across inputs, the data itself).
    return stage_->Run(inputs);
  }
  const std::string& source() const override { return stage_->description(); }

 private:
  std::unique_ptr<process::Stage> stage_;
  runtime::ModelMetadata metadata_;
};

}  // namespace

std::unique_ptr<ModelInstance> SessionInstance(std::unique_ptr<runtime::Session> session) {
  return std::make_unique<SessionModelInstance>(std::move(session));
}

std::unique_ptr<ModelInstance> StageInstance(std::unique_ptr<process::Stage> stage) {
  return std::make_unique<StageModelInstance>(std::move(stage));
}

std::vector<std::unique_ptr<ModelInstance>> SessionInstances(
    std::vector<std::unique_ptr<runtime::Session>> sessions) {
  std::vector<std::unique_ptr<ModelInstance>> out;
  out.reserve(sessions.size());
  for (auto& s : sessions) out.push_back(SessionInstance(std::move(s)));
  return out;
}

}  // namespace hone::serve
