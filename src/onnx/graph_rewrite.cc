#include "onnx/graph_rewrite.h"

#include <filesystem>
#include <unordered_set>

#include "onnx/graph_index.h"
#include "onnx/graph_io.h"
#include "onnx/model_file.h"
#include "onnx/onnx_pb.h"
#include "onnx/quantize_select.h"
#include "runtime/session.h"

namespace hone::onnx {

Status LoadModelForRewrite(const std::string& path, ::onnx::ModelProto* model) {
  HONE_RETURN_IF_ERROR(ReadModelProto(path, model));
  std::string dir = std::filesystem::path(path).parent_path().string();
  return InlineExternalData(model, dir.empty() ? "." : dir);
}

Status BeginRewrite(::onnx::ModelProto* model, RewriteScope* scope) {
  scope->original_value_info.clear();
  for (const auto& v : model->graph().value_info()) scope->original_value_info.push_back(v.name());
  HoistConstants(model->mutable_graph());
  NameNodes(model->mutable_graph());
  return InferShapes(model);
}

Status FinishRewrite(::onnx::ModelProto* model, const RewriteScope& scope, const std::string& key,
                     const std::string& description) {
  auto* graph = model->mutable_graph();
  std::unordered_set<std::string> keep(scope.original_value_info.begin(), scope.original_value_info.end());
  std::unordered_set<std::string> exists;
  for (const auto& node : graph->node())
    for (const auto& out : node.output()) exists.insert(out);
  for (const auto& in : graph->input()) exists.insert(in.name());
  auto* infos = graph->mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i) {
    const std::string& name = infos->Get(i).name();
    if (!keep.count(name) || !exists.count(name)) infos->DeleteSubrange(i, 1);
  }
  HONE_RETURN_IF_ERROR(SortTopologically(graph));
  RemoveUnusedInitializers(graph);
  auto* props = model->mutable_metadata_props();
  for (int i = props->size() - 1; i >= 0; --i)
    if (props->Get(i).key() == key) props->DeleteSubrange(i, 1);
  auto* prop = model->add_metadata_props();
  prop->set_key(key);
  prop->set_value(description);
  return CheckModel(*model);
}

Status SaveAndLoadCheck(const ::onnx::ModelProto& model, const std::string& path) {
  HONE_RETURN_IF_ERROR(WriteModel(model, path));
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  auto session = runtime::Session::Open(path, options);
  if (!session.ok())
    return Status::Internal("hone wrote '" + path + "' but ONNX Runtime does not load it (a bug in hone's rewrite): " +
                            session.status().message());
  return Status::Ok();
}

}  // namespace hone::onnx
