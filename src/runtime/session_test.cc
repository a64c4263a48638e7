#include "runtime/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace hone::runtime {
namespace {

using ::testing::HasSubstr;

std::string TestModel(const std::string& name) {
  return std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/" + name;
}

Tensor FloatTensor(Shape shape, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DataType::kFp32, std::move(shape));
  std::copy(values.begin(), values.end(), t.mutable_values<float>().begin());
  return t;
}

TEST(SessionTest, ReadsMetadata) {
  auto session = Session::Open(TestModel("two_inputs.onnx"), {});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const ModelMetadata& m = (*session)->metadata();
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.inputs[0].name, "ids");
  EXPECT_EQ(m.inputs[0].type, DataType::kInt64);
  EXPECT_EQ(m.inputs[0].shape, (Shape{-1, -1}));
  EXPECT_EQ(m.inputs[0].symbols, (std::vector<std::string>{"batch", "seq"}));
  EXPECT_EQ(m.inputs[1].ToString(), "mask: INT64 [batch, ?]");
  ASSERT_EQ(m.outputs.size(), 2u);
  EXPECT_EQ(m.outputs[1].name, "count");
  EXPECT_EQ(m.FindInput("mask"), 1);
  EXPECT_EQ(m.FindInput("nope"), -1);
  EXPECT_EQ(m.producer, "hone-tests");
}

TEST(SessionTest, RunsAndReturnsOwnedOutputs) {
  auto session = Session::Open(TestModel("affine.onnx"), {});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<Tensor> inputs = {FloatTensor({2, 4}, {0, 1, 2, 3, -1, -2, 0.5f, 10})};
  auto outputs = (*session)->Run(inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 1u);
  const Tensor& y = (*outputs)[0];
  EXPECT_EQ(y.shape(), (Shape{2, 4}));
  EXPECT_TRUE(y.owns_data());
  std::vector<float> got(y.values<float>().begin(), y.values<float>().end());
  EXPECT_EQ(got, (std::vector<float>{1, 3, 5, 7, -1, -3, 2, 21}));
}

TEST(SessionTest, EveryOptionLoads) {
  for (auto opt : {GraphOptimization::kDisable, GraphOptimization::kBasic, GraphOptimization::kExtended,
                   GraphOptimization::kAll}) {
    SessionOptions o;
    o.graph_optimization = opt;
    o.intra_op_threads = 1;
    o.inter_op_threads = 1;
    o.execution_mode = ExecutionMode::kParallel;
    o.allow_spinning = false;
    o.cpu_arena = false;
    auto session = Session::Open(TestModel("affine.onnx"), o);
    ASSERT_TRUE(session.ok()) << o.ToString() << ": " << session.status().ToString();
    EXPECT_EQ((*session)->options().ToString(), o.ToString());
  }
}

TEST(SessionTest, SavesOptimizedModel) {
  auto out = std::filesystem::temp_directory_path() / "hone_session_test_optimized.onnx";
  std::filesystem::remove(out);
  SessionOptions o;
  o.optimized_model_path = out.string();
  ASSERT_TRUE(Session::Open(TestModel("affine.onnx"), o).ok());
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_TRUE(Session::Open(out.string(), {}).ok());
  std::filesystem::remove(out);
}

TEST(SessionTest, ProfilingWritesATraceWhenEnded) {
  auto dir = std::filesystem::temp_directory_path() / "hone_session_test_profile";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  SessionOptions o;
  o.profile_prefix = (dir / "trace").string();
  EXPECT_THAT(o.ToString(), HasSubstr(" profile=on"));
  auto session = Session::Open(TestModel("affine.onnx"), o);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::vector<Tensor> inputs = {FloatTensor({1, 4}, {0, 1, 2, 3})};
  ASSERT_TRUE((*session)->Run(inputs).ok());
  auto path = (*session)->EndProfiling();
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(*path)) << *path;
  std::ifstream in(*path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("\"model_run\""));
  std::filesystem::remove_all(dir);

  // Off by default: nothing to end, and the summary does not mention it.
  auto plain = Session::Open(TestModel("affine.onnx"), {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((*plain)->EndProfiling().status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(SessionOptions{}.ToString(), ::testing::Not(HasSubstr("profile")));
}

TEST(SessionTest, ConcurrentRunsAreIndependent) {
  auto session = Session::Open(TestModel("affine.onnx"), {});
  ASSERT_TRUE(session.ok());
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        float v = static_cast<float>(t * 1000 + i);
        std::vector<Tensor> in = {FloatTensor({1, 4}, {v, v, v, v})};
        auto out = (*session)->Run(in);
        if (!out.ok() || (*out)[0].values<float>()[3] != 2 * v + 1) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(SessionTest, MissingFileIsNotFound) {
  auto s = Session::Open("/nonexistent/model.onnx", {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(s.status().message(), HasSubstr("/nonexistent/model.onnx"));
}

TEST(SessionTest, NonOnnxFileIsInvalidArgument) {
  auto path = std::filesystem::temp_directory_path() / "hone_not_a_model.onnx";
  std::ofstream(path) << "this is not a protobuf";
  auto s = Session::Open(path.string(), {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << s.status().ToString();
  EXPECT_THAT(s.status().message(), HasSubstr(path.string()));
  EXPECT_THAT(s.status().message(), HasSubstr("is not an ONNX model"));
  std::filesystem::remove(path);
  auto dir = Session::Open(std::filesystem::temp_directory_path().string(), {});
  EXPECT_EQ(dir.status().code(), StatusCode::kInvalidArgument);
}

TEST(SessionTest, BadOptionsAreRejected) {
  SessionOptions o;
  o.intra_op_threads = -1;
  auto s = Session::Open(TestModel("affine.onnx"), o);
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("intra-op threads"));
}

TEST(SessionTest, WrongInputsNameTheInput) {
  auto session = Session::Open(TestModel("affine.onnx"), {});
  ASSERT_TRUE(session.ok());
  std::vector<Tensor> none;
  EXPECT_THAT((*session)->Run(none).status().message(), HasSubstr("expected 1 inputs, got 0"));
  std::vector<Tensor> ints = {*Tensor::Allocate(DataType::kInt64, {1, 4})};
  EXPECT_THAT((*session)->Run(ints).status().message(), HasSubstr("input 'x': expected FP32, got INT64"));
  std::vector<Tensor> rank = {*Tensor::Allocate(DataType::kFp32, {4})};
  EXPECT_THAT((*session)->Run(rank).status().message(), HasSubstr("input 'x': expected rank 2"));
  std::vector<Tensor> dim = {*Tensor::Allocate(DataType::kFp32, {1, 5})};
  auto r = (*session)->Run(dim);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("dimension 1 must be 4"));
}

TEST(SessionTest, ReportsLibraryVersion) { EXPECT_THAT(OrtVersion(), HasSubstr("1.")); }

TEST(SessionOptionsTest, ParsesNames) {
  EXPECT_EQ(ParseExecutionMode("parallel"), ExecutionMode::kParallel);
  EXPECT_FALSE(ParseExecutionMode("fast").has_value());
  EXPECT_EQ(ParseGraphOptimization("extended"), GraphOptimization::kExtended);
  EXPECT_FALSE(ParseGraphOptimization("max").has_value());
  EXPECT_EQ(GraphOptimizationName(GraphOptimization::kDisable), "disable");
}

}  // namespace
}  // namespace hone::runtime
