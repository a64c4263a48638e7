#include "runtime/session.h"

#include <filesystem>
#include <system_error>

#include "runtime/custom_ops.h"
#include "runtime/ort_bridge.h"

namespace hone::runtime {

struct Session::Impl {
  std::string path;
  SessionOptions options;
  ModelMetadata metadata;
  std::unique_ptr<Ort::Session> session;
  // Names as C strings in metadata order, built once: Run passes them on every call.
  std::vector<const char*> input_names;
  std::vector<const char*> output_names;
  Ort::MemoryInfo cpu_memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
};

namespace {

Ort::SessionOptions ToOrtOptions(const SessionOptions& o) {
  Ort::SessionOptions ort;
  ort.SetIntraOpNumThreads(o.intra_op_threads);
  ort.SetInterOpNumThreads(o.inter_op_threads);
  ort.SetExecutionMode(o.execution_mode == ExecutionMode::kParallel ? ORT_PARALLEL : ORT_SEQUENTIAL);
  GraphOptimizationLevel level = ORT_ENABLE_ALL;
  switch (o.graph_optimization) {
    case GraphOptimization::kDisable: level = ORT_DISABLE_ALL; break;
    case GraphOptimization::kBasic: level = ORT_ENABLE_BASIC; break;
    case GraphOptimization::kExtended: level = ORT_ENABLE_EXTENDED; break;
    case GraphOptimization::kAll: level = ORT_ENABLE_ALL; break;
  }
  ort.SetGraphOptimizationLevel(level);
  const char* spin = o.allow_spinning ? "1" : "0";
  ort.AddConfigEntry("session.intra_op.allow_spinning", spin);
  ort.AddConfigEntry("session.inter_op.allow_spinning", spin);
  if (o.allow_spinning && o.stop_spinning_after_run) ort.AddConfigEntry("session.force_spinning_stop", "1");
  if (o.cpu_arena)
    ort.EnableCpuMemArena();
  else
    ort.DisableCpuMemArena();
  if (!o.optimized_model_path.empty()) ort.SetOptimizedModelFilePath(o.optimized_model_path.c_str());
  if (!o.profile_prefix.empty()) ort.EnableProfiling(o.profile_prefix.c_str());
  ort.Add(HoneOpDomain());  // hone's operators (custom_ops.h), for the models that use them
  return ort;
}

IoSpec DescribeIo(const std::string& name, const Ort::TypeInfo& info) {
  IoSpec spec;
  spec.name = name;
  if (info.GetONNXType() != ONNX_TYPE_TENSOR) {
    spec.onnx_type = "non-tensor";
    return spec;
  }
  auto tensor = info.GetTensorTypeAndShapeInfo();
  spec.type = FromOrtElementType(tensor.GetElementType());
  spec.onnx_type = OrtElementTypeName(tensor.GetElementType());
  spec.shape = tensor.GetShape();
  for (const char* symbol : tensor.GetSymbolicDimensions()) spec.symbols.emplace_back(symbol ? symbol : "");
  spec.symbols.resize(spec.shape.size());
  return spec;
}

ModelMetadata ReadMetadata(Ort::Session& session) {
  ModelMetadata m;
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session.GetInputCount(); ++i)
    m.inputs.push_back(DescribeIo(session.GetInputNameAllocated(i, allocator).get(), session.GetInputTypeInfo(i)));
  for (size_t i = 0; i < session.GetOutputCount(); ++i)
    m.outputs.push_back(
        DescribeIo(session.GetOutputNameAllocated(i, allocator).get(), session.GetOutputTypeInfo(i)));
  auto model_meta = session.GetModelMetadata();
  m.producer = model_meta.GetProducerNameAllocated(allocator).get();
  m.graph_name = model_meta.GetGraphNameAllocated(allocator).get();
  for (const auto& key : model_meta.GetCustomMetadataMapKeysAllocated(allocator)) {
    auto value = model_meta.LookupCustomMetadataMapAllocated(key.get(), allocator);
    m.custom.emplace_back(key.get(), value ? value.get() : "");
  }
  return m;
}

}  // namespace

Result<std::unique_ptr<Session>> Session::Open(const std::string& model_path, const SessionOptions& options) {
  const std::string context = "model '" + model_path + "'";
  HONE_RETURN_IF_ERROR(options.Validate().WithContext(context));
  std::error_code ec;
  if (!std::filesystem::exists(model_path, ec)) return Status::NotFound(context + ": no such file");
  if (std::filesystem::is_directory(model_path, ec))
    return Status::InvalidArgument(context + ": is a directory, expected an .onnx file");

  auto impl = std::make_unique<Impl>();
  impl->path = model_path;
  impl->options = options;
  try {
    impl->session = std::make_unique<Ort::Session>(Environment(), model_path.c_str(), ToOrtOptions(options));
    impl->metadata = ReadMetadata(*impl->session);
  } catch (const Ort::Exception& e) {
    if (e.GetOrtErrorCode() == ORT_INVALID_PROTOBUF)
      return Status::InvalidArgument("'" + model_path + "' is not an ONNX model (ONNX Runtime: " + e.what() + ")");
    return FromOrtException(e, context);
  }
  for (const auto& in : impl->metadata.inputs) impl->input_names.push_back(in.name.c_str());
  for (const auto& out : impl->metadata.outputs) impl->output_names.push_back(out.name.c_str());
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

const ModelMetadata& Session::metadata() const { return impl_->metadata; }
const SessionOptions& Session::options() const { return impl_->options; }
const std::string& Session::model_path() const { return impl_->path; }

Status ValidateInputs(const ModelMetadata& metadata, std::span<const Tensor> inputs) {
  if (inputs.size() != metadata.inputs.size())
    return Status::InvalidArgument("expected " + std::to_string(metadata.inputs.size()) + " inputs, got " +
                                   std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const IoSpec& spec = metadata.inputs[i];
    const Tensor& t = inputs[i];
    if (t.type() != spec.type)
      return Status::InvalidArgument("input '" + spec.name + "': expected " + std::string(DataTypeName(spec.type)) +
                                     ", got " + std::string(DataTypeName(t.type())));
    if (t.shape().size() != spec.shape.size())
      return Status::InvalidArgument("input '" + spec.name + "': expected rank " + std::to_string(spec.shape.size()) +
                                     " (" + spec.ToString() + "), got shape " + ShapeToString(t.shape()));
    for (size_t d = 0; d < spec.shape.size(); ++d)
      if (spec.shape[d] >= 0 && spec.shape[d] != t.shape()[d])
        return Status::InvalidArgument("input '" + spec.name + "': dimension " + std::to_string(d) + " must be " +
                                       std::to_string(spec.shape[d]) + ", got shape " + ShapeToString(t.shape()));
  }
  return Status::Ok();
}

Result<std::vector<Tensor>> Session::Run(std::span<const Tensor> inputs) const {
  HONE_RETURN_IF_ERROR(ValidateInputs(impl_->metadata, inputs));
  try {
    std::vector<Ort::Value> ort_inputs;
    ort_inputs.reserve(inputs.size());
    for (const Tensor& t : inputs) {
      // ONNX Runtime only reads inputs; the const_cast is its API's, not a write.
      ort_inputs.push_back(Ort::Value::CreateTensor(impl_->cpu_memory, const_cast<std::byte*>(t.data()),
                                                    t.byte_size(), t.shape().data(), t.shape().size(),
                                                    ToOrtElementType(t.type())));
    }
    std::vector<Ort::Value> ort_outputs =
        impl_->session->Run(Ort::RunOptions{nullptr}, impl_->input_names.data(), ort_inputs.data(),
                            ort_inputs.size(), impl_->output_names.data(), impl_->output_names.size());
    std::vector<Tensor> outputs;
    outputs.reserve(ort_outputs.size());
    for (size_t i = 0; i < ort_outputs.size(); ++i) {
      auto info = ort_outputs[i].GetTensorTypeAndShapeInfo();
      DataType type = FromOrtElementType(info.GetElementType());
      if (type == DataType::kInvalid || type == DataType::kBytes)
        return Status::Unimplemented("output '" + impl_->metadata.outputs[i].name + "': element type " +
                                     std::string(OrtElementTypeName(info.GetElementType())) +
                                     " is not supported by hone yet");
      size_t bytes = info.GetElementCount() * ElementSize(type);
      auto owner = std::make_shared<Ort::Value>(std::move(ort_outputs[i]));
      void* data = owner->GetTensorMutableRawData();
      HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Share(type, info.GetShape(), std::move(owner), data, bytes));
      outputs.push_back(std::move(t));
    }
    return outputs;
  } catch (const Ort::Exception& e) {
    return FromOrtException(e, "model '" + impl_->path + "'");
  }
}

Result<std::string> Session::EndProfiling() const {
  const std::string context = "model '" + impl_->path + "'";
  if (impl_->options.profile_prefix.empty())
    return Status::FailedPrecondition(context + ": profiling is off (SessionOptions::profile_prefix is empty)");
  try {
    Ort::AllocatorWithDefaultOptions allocator;
    Ort::AllocatedStringPtr path = impl_->session->EndProfilingAllocated(allocator);
    return std::string(path ? path.get() : "");
  } catch (const Ort::Exception& e) {
    return FromOrtException(e, context + ": ending the profile");
  }
}

std::string OrtVersion() { return Ort::GetVersionString(); }

}  // namespace hone::runtime
