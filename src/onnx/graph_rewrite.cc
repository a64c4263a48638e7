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

namespace {

void CollectValueInfo(const ::onnx::GraphProto& g, std::vector<std::string>* names) {
  for (const auto& v : g.value_info()) names->push_back(v.name());
  for (const auto& node : g.node())
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) CollectValueInfo(attr.g(), names);
      for (const auto& sub : attr.graphs()) CollectValueInfo(sub, names);
    }
}

// FinishRewrite's value_info rule on one graph and its subgraphs; `defined` holds the values of enclosing scopes.
void DropValueInfo(::onnx::GraphProto* graph, const std::unordered_set<std::string>& keep,
                   std::unordered_set<std::string> exists) {
  for (const auto& node : graph->node())
    for (const auto& out : node.output()) exists.insert(out);
  for (const auto& in : graph->input()) exists.insert(in.name());
  for (const auto& t : graph->initializer()) exists.insert(t.name());
  auto* infos = graph->mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i) {
    const std::string& name = infos->Get(i).name();
    if (!keep.count(name) || !exists.count(name)) infos->DeleteSubrange(i, 1);
  }
  for (const Subgraph& sub : DirectSubgraphs(graph)) DropValueInfo(sub.graph, keep, exists);
}

}  // namespace

Status BeginRewrite(::onnx::ModelProto* model, RewriteScope* scope) {
  scope->original_value_info.clear();
  CollectValueInfo(model->graph(), &scope->original_value_info);
  // A body's initializers need not be among its inputs from IR version 4 on; before that they must, and a Loop or
  // Scan body cannot take inputs it does not declare, so older models keep their subgraphs' Constants.
  HoistConstants(model->mutable_graph(), model->ir_version() >= 4);
  NameNodes(model->mutable_graph());
  return InferShapes(model);
}

Status FinishRewrite(::onnx::ModelProto* model, const RewriteScope& scope, const std::string& key,
                     const std::string& description) {
  auto* graph = model->mutable_graph();
  std::unordered_set<std::string> keep(scope.original_value_info.begin(), scope.original_value_info.end());
  DropValueInfo(graph, keep, {});
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

Status SaveAndLoadCheck(const ::onnx::ModelProto& model, const std::string& path, const WriteOptions& write) {
  HONE_RETURN_IF_ERROR(WriteModel(model, path, write));
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  auto session = runtime::Session::Open(path, options);
  if (!session.ok())
    return Status::Internal("hone wrote '" + path + "' but ONNX Runtime does not load it (a bug in hone's rewrite): " +
                            session.status().message());
  return Status::Ok();
}

}  // namespace hone::onnx
