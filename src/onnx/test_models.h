// Small ONNX models built in code for the tests of this folder, and a temporary directory to write them to.
// Header-only so that it stays out of the hone_onnx library.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/temp_dir_test_util.h"
#include "onnx/onnx_pb.h"

namespace hone::onnx::testing {

// The scratch directory of every part's tests, and a model written into it.
class TempDir : public hone::testing_util::TempDir {
 public:
  std::string WriteModel(const std::string& name, const ::onnx::ModelProto& model) const {
    return Write(name, model.SerializeAsString());
  }
};

// A dimension spec for ValueInfo: a number >= 0 is fixed, -1 is unnamed dynamic; a name makes it a dim_param.
struct TestDim {
  TestDim(int64_t v) : value(v) {}  // NOLINT: implicit so that {1, "batch", -1} reads naturally
  TestDim(const char* s) : symbol(s) {}  // NOLINT
  int64_t value = -1;
  std::string symbol;
};

inline void SetTensorType(::onnx::ValueInfoProto* v, const std::string& name, int32_t elem_type,
                          std::initializer_list<TestDim> dims) {
  v->set_name(name);
  auto* tensor = v->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  auto* shape = tensor->mutable_shape();  // creates the shape, so {} is a scalar
  for (const TestDim& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.symbol.empty())
      dim->set_dim_param(d.symbol);
    else if (d.value >= 0)
      dim->set_dim_value(d.value);
  }
}

inline ::onnx::NodeProto* AddNode(::onnx::GraphProto* g, const std::string& op, std::vector<std::string> inputs,
                                  std::vector<std::string> outputs, const std::string& domain = "") {
  auto* node = g->add_node();
  node->set_op_type(op);
  node->set_domain(domain);
  for (auto& in : inputs) node->add_input(in);
  for (auto& out : outputs) node->add_output(out);
  return node;
}

inline ::onnx::TensorProto* AddFloatInitializer(::onnx::GraphProto* g, const std::string& name,
                                                std::vector<int64_t> dims) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  t->set_raw_data(std::string(static_cast<size_t>(n) * 4, '\0'));
  return t;
}

// The smallest model ReadModelProto accepts: Identity from x [N, 2] FP32 to y, opset 17.
inline ::onnx::ModelProto TinyModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("tiny");
  SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {"N", 2});
  SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {"N", 2});
  AddNode(g, "Identity", {"x"}, {"y"});
  return m;
}

}  // namespace hone::onnx::testing
