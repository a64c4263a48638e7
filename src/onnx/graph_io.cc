#include "onnx/graph_io.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "onnx/checker.h"
#include "onnx/graph_index.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace hone::onnx {
namespace fs = std::filesystem;
namespace {

bool IsExternal(const ::onnx::TensorProto& t) {
  return t.data_location() == ::onnx::TensorProto::EXTERNAL || t.external_data_size() > 0;
}

Status InlineOne(::onnx::TensorProto* t, const fs::path& dir) {
  std::string location;
  uint64_t offset = 0;
  int64_t length = -1;
  const std::string what = "tensor '" + t->name() + "'";
  for (const auto& kv : t->external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() != "offset" && kv.key() != "length") continue;
    uint64_t v = 0;
    const std::string& text = kv.value();
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
      return Status::InvalidArgument(what + ": external data " + kv.key() + " '" + text + "' is not a number");
    if (kv.key() == "offset") offset = v;
    else length = static_cast<int64_t>(v);
  }
  if (location.empty()) return Status::InvalidArgument(what + ": external data without a location");
  fs::path rel(location);
  if (rel.is_absolute() || location.find("..") != std::string::npos)
    return Status::InvalidArgument(what + ": external data location '" + location +
                                   "' must be a relative path inside the model's directory");
  fs::path file = dir / rel;
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::NotFound(what + ": cannot open its external data file '" + file.string() + "'");
  in.seekg(0, std::ios::end);
  uint64_t size = static_cast<uint64_t>(in.tellg());
  if (length < 0) length = static_cast<int64_t>(size - std::min(size, offset));
  if (offset + static_cast<uint64_t>(length) > size)
    return Status::NotFound(what + ": external data file '" + file.string() + "' holds " + std::to_string(size) +
                            " bytes, expected at least " + std::to_string(offset + length));
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), length);
  if (!in) return Status::NotFound(what + ": cannot read its external data from '" + file.string() + "'");
  t->clear_external_data();
  t->set_data_location(::onnx::TensorProto::DEFAULT);
  t->set_raw_data(std::move(bytes));
  return Status::Ok();
}

}  // namespace

Status InlineExternalData(::onnx::ModelProto* model, const std::string& model_dir) {
  for (auto& t : *model->mutable_graph()->mutable_initializer())
    if (IsExternal(t)) HONE_RETURN_IF_ERROR(InlineOne(&t, fs::path(model_dir)));
  return Status::Ok();
}

Status InferShapes(::onnx::ModelProto* model) {
  try {
    ::onnx::shape_inference::InferShapes(*model);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("ONNX shape inference: ") + e.what());
  }
  return Status::Ok();
}

Status SortTopologically(::onnx::GraphProto* graph, const std::unordered_set<std::string>& outer_scope) {
  GraphIndex index(*graph);
  const int n = graph->node_size();
  std::unordered_set<std::string> available = outer_scope;
  for (const auto& v : graph->input()) available.insert(v.name());
  for (const auto& t : graph->initializer()) available.insert(t.name());
  // A node waits for every value it reads that some node of this graph produces; values nobody produces must be
  // inputs, initializers or values of an enclosing graph (outer_scope).
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> unblocks(n);
  for (int i = 0; i < n; ++i) {
    std::unordered_set<int> deps;
    const auto& node = graph->node(i);
    for (const auto& in : node.input()) {
      if (in.empty() || available.count(in)) continue;
      int p = index.Producer(in);
      if (p < 0)
        return Status::InvalidArgument("node '" + node.name() + "' (" + node.op_type() + ") reads '" + in +
                                       "', which no node, input or initializer provides");
      if (p != i) deps.insert(p);
    }
    waiting[i] = static_cast<int>(deps.size());
    for (int p : deps) unblocks[p].push_back(i);
  }
  // Subgraph bodies' outer reads: GraphIndex lists the owner as a consumer; add those edges too.
  for (int i = 0; i < n; ++i) {
    for (const auto& out : graph->node(i).output()) {
      for (int c : index.Consumers(out)) {
        const auto& ins = graph->node(c).input();
        if (c != i && std::find(ins.begin(), ins.end(), out) == ins.end()) {
          unblocks[i].push_back(c);
          ++waiting[c];
        }
      }
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;  // lowest index first: keeps file order
  for (int i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : unblocks[i])
      if (--waiting[c] == 0) ready.push(c);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (waiting[i] > 0)
        return Status::InvalidArgument("node '" + graph->node(i).name() + "' (" + graph->node(i).op_type() +
                                       ") is part of a cycle");
  }
  google::protobuf::RepeatedPtrField<::onnx::NodeProto> sorted;
  for (int i : order) *sorted.Add() = std::move(*graph->mutable_node(i));
  graph->mutable_node()->Swap(&sorted);
  // Each body sees everything this graph defines (a body may read any value of an enclosing scope).
  std::vector<Subgraph> subgraphs = DirectSubgraphs(graph);
  if (subgraphs.empty()) return Status::Ok();
  std::unordered_set<std::string> inner = available;
  for (const auto& node : graph->node())
    for (const auto& out : node.output()) inner.insert(out);
  for (const Subgraph& sub : subgraphs) HONE_RETURN_IF_ERROR(SortTopologically(sub.graph, inner));
  return Status::Ok();
}

namespace {

int RemoveUnused(::onnx::GraphProto* graph, bool main_graph) {
  int removed_in_subgraphs = 0;
  for (const Subgraph& sub : DirectSubgraphs(graph)) removed_in_subgraphs += RemoveUnused(sub.graph, false);
  GraphIndex index(*graph);
  std::unordered_set<std::string> removed;
  auto* inits = graph->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const std::string& name = inits->Get(i).name();
    if (index.Consumers(name).empty() && !index.IsGraphOutput(name)) {
      removed.insert(name);
      inits->DeleteSubrange(i, 1);
    }
  }
  auto* infos = graph->mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i)
    if (removed.count(infos->Get(i).name())) infos->DeleteSubrange(i, 1);
  // IR < 4 lists initializers as graph inputs too; those inputs go with them. A body's inputs are positional (Loop,
  // Scan), so only the main graph's may go.
  auto* inputs = graph->mutable_input();
  for (int i = inputs->size() - 1; main_graph && i >= 0; --i)
    if (removed.count(inputs->Get(i).name())) inputs->DeleteSubrange(i, 1);
  return static_cast<int>(removed.size()) + removed_in_subgraphs;
}

}  // namespace

int RemoveUnusedInitializers(::onnx::GraphProto* graph) { return RemoveUnused(graph, true); }

Status CheckModel(const ::onnx::ModelProto& model) {
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("ONNX checker: ") + e.what());
  }
  return Status::Ok();
}

Status WriteModel(const ::onnx::ModelProto& model, const std::string& path, const WriteOptions& options) {
  const ::onnx::ModelProto* to_write = &model;
  ::onnx::ModelProto copy;
  std::string data_path;
  if (model.ByteSizeLong() > options.external_threshold_bytes) {
    copy = model;
    fs::path p(path);
    std::string data_name = p.filename().string() + ".data";
    data_path = (p.parent_path() / data_name).string();
    std::ofstream data(data_path, std::ios::binary | std::ios::trunc);
    if (!data) return Status::NotFound("cannot write external data file '" + data_path + "'");
    uint64_t offset = 0;
    for (auto& t : *copy.mutable_graph()->mutable_initializer()) {
      if (!t.has_raw_data() || t.raw_data().size() < options.external_min_bytes) continue;
      // Page-aligned offsets let ONNX Runtime map the file instead of copying it.
      uint64_t aligned = (offset + 4095) / 4096 * 4096;
      data << std::string(aligned - offset, '\0');
      data.write(t.raw_data().data(), static_cast<std::streamsize>(t.raw_data().size()));
      auto add = [&t](const std::string& k, const std::string& v) {
        auto* kv = t.add_external_data();
        kv->set_key(k);
        kv->set_value(v);
      };
      add("location", data_name);
      add("offset", std::to_string(aligned));
      add("length", std::to_string(t.raw_data().size()));
      offset = aligned + t.raw_data().size();
      t.clear_raw_data();
      t.set_data_location(::onnx::TensorProto::EXTERNAL);
    }
    if (!data) return Status::NotFound("cannot write external data file '" + data_path + "'");
    to_write = &copy;
  }
  if (to_write->ByteSizeLong() > (uint64_t{1} << 31) - 1)
    return Status::ResourceExhausted("model for '" + path + "' is over 2 GiB even with its weights in '" +
                                     data_path + "': too many small tensors or too large a graph");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::NotFound("cannot write model file '" + path + "'");
  if (!to_write->SerializeToOstream(&out) || !out.flush())
    return Status::NotFound("cannot write model file '" + path + "'");
  return Status::Ok();
}

}  // namespace hone::onnx
