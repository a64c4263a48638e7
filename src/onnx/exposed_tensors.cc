#include "onnx/exposed_tensors.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/scratch_dir.h"
#include "onnx/graph_index.h"
#include "onnx/graph_io.h"
#include "onnx/onnx_pb.h"
#include "runtime/input_pool.h"
#include "runtime/session.h"

namespace hone::onnx {

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

Result<ExposedRunInfo> RunExposed(const ::onnx::ModelProto& model, const std::vector<std::string>& tensors,
                                  const ExposedRun& run, const ExposedVisitor& visit) {
  ScratchDir scratch("hone_activations");  // the augmented model, removed when the runs are done
  const std::string path = scratch.File("exposed.onnx");
  HONE_RETURN_IF_ERROR(WriteModel(ExposeTensors(model, tensors), path));
  runtime::SessionOptions session_options;
  session_options.intra_op_threads = run.threads;
  auto session = runtime::Session::Open(path, session_options);
  if (!session.ok())
    return Status::Internal("the model with its activations exposed does not load: " + session.status().message());
  const runtime::Session& s = **session;
  auto pool = runtime::InputPool::Create(s.metadata(), run.data);
  if (!pool.ok()) return pool.status();
  if (pool->sample_count() == 0) return Status::InvalidArgument("it has no samples");

  std::vector<int> output_index;
  for (const auto& name : tensors) {
    output_index.push_back(s.metadata().FindOutput(name));
    if (output_index.back() < 0) return Status::Internal("tensor '" + name + "' is not among the model's outputs");
  }
  std::vector<std::string> input_names;
  for (const auto& in : s.metadata().inputs) input_names.push_back(in.name);

  ExposedRunInfo info;
  info.samples = run.samples > 0 ? std::min(run.samples, pool->sample_count()) : pool->sample_count();
  info.description = pool->description();
  const int64_t batch = pool->CheckBatch(run.batch).ok() ? run.batch : pool->default_batch();
  const auto batches = static_cast<size_t>((info.samples + batch - 1) / batch);
  if (run.progress) run.progress->Start(batches);
  size_t done = 0;
  std::vector<const Tensor*> exposed(tensors.size());
  for (int64_t first = 0; first < info.samples; first += batch) {
    int64_t n = std::min(batch, info.samples - first);
    int64_t from = first;
    if (!pool->CheckBatch(n).ok()) {
      // A fixed batch dimension: the last batch ends at the last sample asked for and repeats a few before it,
      // rather than reading on into rows the caller keeps apart (the held-out rows that verify). With fewer samples
      // than one batch it wraps round them (MakeBatch wraps round the pool).
      from = std::max<int64_t>(0, info.samples - batch);
      n = batch;
    }
    HONE_ASSIGN_OR_RETURN(auto inputs, pool->MakeBatch(from, n));
    HONE_ASSIGN_OR_RETURN(auto outputs, s.Run(inputs));
    for (size_t t = 0; t < tensors.size(); ++t) {
      const Tensor& out = outputs[static_cast<size_t>(output_index[t])];
      if (out.type() != DataType::kFp32)
        return Status::InvalidArgument("tensor '" + tensors[t] + "': expected FP32, got " +
                                       std::string(DataTypeName(out.type())));
      exposed[t] = &out;
    }
    HONE_RETURN_IF_ERROR(visit(input_names, inputs, exposed));
    if (run.progress)
      run.progress->StepDone(++done, fmt::format("samples {}-{} of {}{}", first + 1,
                                                 std::min(first + batch, info.samples), info.samples,
                                                 run.progress_note));
  }
  return info;
}

}  // namespace hone::onnx
