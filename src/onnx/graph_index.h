// Lookups over one ONNX graph that every rewrite needs: which node produces a value, which nodes use it, which
// values are initializers, graph inputs or outputs, their element types, and fresh names. Built once from the graph
// and not updated by edits: a pass builds a new index after changing the graph's structure.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace onnx {
class GraphProto;
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace hone::onnx {

class GraphIndex {
 public:
  // Indexes `graph` (not copied: it must outlive the index and keep its nodes in place). For a subgraph, `outer`
  // is the index of the enclosing graph (it must outlive this one): Initializer and ElemType then also find the
  // values the subgraph reads from the enclosing scopes (weights that live as outer-scope initializers).
  explicit GraphIndex(const ::onnx::GraphProto& graph, const GraphIndex* outer = nullptr);

  // The initializer named `name` in this graph or an enclosing one, or null.
  const ::onnx::TensorProto* Initializer(const std::string& name) const;
  // Index of the node that outputs `value`, or -1 (a graph input, an initializer, or unknown).
  int Producer(const std::string& value) const;
  // Indices of the nodes that take `value` as an input, each once, in node order. A node whose subgraph (If, Loop,
  // Scan body) reads `value` from this scope counts as a consumer too, so no rewrite breaks a body silently.
  const std::vector<int>& Consumers(const std::string& value) const;
  bool IsGraphInput(const std::string& value) const { return graph_inputs_.count(value) > 0; }
  bool IsGraphOutput(const std::string& value) const { return graph_outputs_.count(value) > 0; }
  // The element type (TensorProto::DataType number) declared for `value` by a graph input or output, an
  // initializer, or value_info (run InferShapes first to have one for every intermediate value), here or in an
  // enclosing graph; 0 when unknown.
  int32_t ElemType(const std::string& value) const;
  // Whether any node has a graph attribute (control flow).
  bool has_subgraphs() const { return has_subgraphs_; }
  // The enclosing graph's index given at construction, or null for the main graph.
  const GraphIndex* outer() const { return outer_; }

 private:
  const ::onnx::GraphProto* graph_;
  const GraphIndex* outer_;
  std::unordered_map<std::string, const ::onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, int> producers_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_map<std::string, int32_t> elem_types_;
  std::unordered_set<std::string> graph_inputs_, graph_outputs_;
  bool has_subgraphs_ = false;
};

// Hands out value and node names that no part of a model uses yet (subgraphs included): `base` itself when it is
// free, else base_1, base_2, ... Each name handed out is reserved.
class NameGenerator {
 public:
  explicit NameGenerator(const ::onnx::ModelProto& model);
  std::string Fresh(const std::string& base);

 private:
  std::unordered_set<std::string> used_;
};

// The opset version the model imports for `domain` ("" is ai.onnx; "ai.onnx" is accepted too); 0 when not imported.
int64_t OpsetVersion(const ::onnx::ModelProto& model, const std::string& domain);
// Imports `domain` at `version` unless the model already imports it (at any version).
void EnsureOpsetImport(::onnx::ModelProto* model, const std::string& domain, int64_t version);

// Replaces every Constant node that holds a tensor (`value` attribute) by an initializer of the same name, so that
// passes find weights in one place whatever the exporter did: in `graph` and, with `subgraphs`, in every If, Loop
// and Scan body within it (those become initializers of that body; IR version 4 or later allows that). Returns how
// many were moved.
int HoistConstants(::onnx::GraphProto* graph, bool subgraphs = true);

// A graph held in a node's graph attribute (If's then_branch/else_branch, Loop's and Scan's body), depth first.
struct Subgraph {
  ::onnx::GraphProto* graph;
  std::string path;  // "if_0/then_branch", "loop_1/body/if_2/else_branch": owner node names and attribute names
};
// The direct subgraphs of `graph`'s nodes (not their own subgraphs), with `path_prefix` + "/" before each path
// when not empty.
std::vector<Subgraph> DirectSubgraphs(::onnx::GraphProto* graph, const std::string& path_prefix = "");

// Renames every use of value `from` as a node input in `graph` (not outputs, not graph outputs) to `to`, except in
// the node at index `skip_node` (-1: none). Subgraph bodies that read `from` from this scope are renamed too.
void RenameInputs(::onnx::GraphProto* graph, const std::string& from, const std::string& to, int skip_node = -1);

}  // namespace hone::onnx
