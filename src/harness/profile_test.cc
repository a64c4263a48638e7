// The profile: ONNX Runtime's trace parsed from small hand-written traces (fences, warm-up runs, malformed input),
// real profiles of the bundled model and of tiny graphs built here, and the served split of a bench point.
#include "harness/profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/quantize_test_models.h"
#include "onnx/test_models.h"

namespace hone::harness {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kModel = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/model.onnx";

std::string RunEvent(double ts, double dur) {
  return R"({"cat":"Session","ph":"X","name":"model_run","ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + R"(,"args":{}})";
}
std::string Node(const std::string& name, const std::string& op, double ts, double dur,
                 const std::string& suffix = "_kernel_time") {
  return R"({"cat":"Node","ph":"X","name":")" + name + suffix + R"(","ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"op_name":")" + op +
         R"(","provider":"CPUExecutionProvider"}})";
}

// Two runs: a warm-up (conv 1000 us, which must not count) and one profiled run at t=2000: conv1 60, conv2 20,
// relu 20 us, with fences around conv1 and session events that are not runs. Written in ORT's order: a run's
// nodes first, its model_run event after them.
std::string SampleTrace() {
  std::vector<std::string> e = {
      R"({"cat":"Session","ph":"X","name":"model_loading_uri","ts":0,"dur":500,"args":{}})",
      R"({"cat":"Session","ph":"X","name":"session_initialization","ts":500,"dur":500,"args":{}})",
      Node("conv1", "Conv", 1010, 1000),
      R"({"cat":"Session","ph":"X","name":"SequentialExecutor::Execute","ts":1005,"dur":1010,"args":{}})",
      RunEvent(1000, 1020),
      Node("conv1", "Conv", 2001, 5, "_fence_before"),
      Node("conv1", "Conv", 2010, 60),
      Node("conv1", "Conv", 2071, 5, "_fence_after"),
      Node("conv 2", "Conv", 2080, 20),
      Node("relu", "Relu", 2100, 20),
      RunEvent(2000, 130),
      R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"x"}})",  // not ORT's: skipped
  };
  std::string text = "[\n";
  for (size_t i = 0; i < e.size(); ++i) text += e[i] + (i + 1 < e.size() ? ",\n" : "\n");
  return text + "]\n";
}

TEST(ParseOrtTraceTest, SumsKernelTimePerOpTypeAndNodeSkippingWarmUpAndFences) {
  auto p = ParseOrtTrace(SampleTrace(), "t.json", /*warmup_runs=*/1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->runs, 1);
  EXPECT_DOUBLE_EQ(p->run_mean_us, 130);
  EXPECT_DOUBLE_EQ(p->kernel_total_us_per_run, 100);
  ASSERT_EQ(p->op_types.size(), 2u);
  EXPECT_EQ(p->op_types[0].op_type, "Conv");
  EXPECT_EQ(p->op_types[0].nodes, 2);
  EXPECT_DOUBLE_EQ(p->op_types[0].mean_us_per_run, 80);
  EXPECT_DOUBLE_EQ(p->op_types[0].share, 0.8);
  EXPECT_EQ(p->op_types[1].op_type, "Relu");
  EXPECT_DOUBLE_EQ(p->op_types[1].share, 0.2);
  ASSERT_EQ(p->top_nodes.size(), 3u);
  EXPECT_EQ(p->top_nodes[0].node, "conv1");
  EXPECT_DOUBLE_EQ(p->top_nodes[0].mean_us, 60);
  EXPECT_EQ(p->top_nodes[1].node, "conv 2");  // names keep their spaces; ties (20 us) go by name
  EXPECT_EQ(p->top_nodes[2].node, "relu");
  EXPECT_DOUBLE_EQ(p->compute_share, 0.8);
  EXPECT_DOUBLE_EQ(p->matmul_share, 0);
  EXPECT_FALSE(p->matmul_dominated());
  EXPECT_EQ(p->summary,
            "Conv takes 80% of the kernel time (2 nodes), Relu 20%; the model is compute-bound (80% in Conv)");
}

TEST(ParseOrtTraceTest, WithoutWarmUpEveryRunCounts) {
  auto p = ParseOrtTrace(SampleTrace(), "t.json", 0);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->runs, 2);
  EXPECT_DOUBLE_EQ(p->run_mean_us, (1020 + 130) / 2.0);
  EXPECT_DOUBLE_EQ(p->kernel_total_us_per_run, (1000 + 100) / 2.0);
  EXPECT_DOUBLE_EQ(p->top_nodes[0].mean_us, (1000 + 60) / 2.0);
}

TEST(ParseOrtTraceTest, MemoryBoundAndMatMulDominatedSummaries) {
  std::string memory = "[" + Node("add", "Add", 10, 70) + "," + Node("mm", "MatMul", 80, 30) + "," + RunEvent(0, 120) +
                       "]";
  auto m = ParseOrtTrace(memory, "m.json", 0);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_DOUBLE_EQ(m->compute_share, 0.3);
  EXPECT_THAT(m->summary, HasSubstr("Add takes 70% of the kernel time (1 node), MatMul 30%; the model is "
                                    "memory-bound (70% in element-wise, layout and data-movement ops, 30% in "
                                    "MatMul)"));
  std::string matmul = "[" + Node("mm", "FusedMatMul", 10, 60) + "," + Node("g", "Gemm", 80, 20) + "," +
                       Node("s", "Softmax", 100, 20) + "," + RunEvent(0, 130) + "]";
  auto g = ParseOrtTrace(matmul, "g.json", 0);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_DOUBLE_EQ(g->matmul_share, 0.8);
  EXPECT_TRUE(g->matmul_dominated());
  EXPECT_THAT(g->summary, HasSubstr("compute-bound (80% in FusedMatMul/Gemm)"));
  EXPECT_THAT(g->summary, ::testing::Not(HasSubstr("MatMul/Gemm alone")));  // the same share, not said twice
}

TEST(ParseOrtTraceTest, ARunWithoutKernelsSaysSo) {
  auto p = ParseOrtTrace("[" + RunEvent(0, 12) + "," + RunEvent(20, 8) + "]", "c.json", 1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->op_types.empty());
  EXPECT_DOUBLE_EQ(p->kernel_total_us_per_run, 0);
  EXPECT_DOUBLE_EQ(p->compute_share, 0);
  EXPECT_THAT(p->summary, AllOf(StartsWith("No operator kernel ran"), HasSubstr("8.0 us")));
}

TEST(ParseOrtTraceTest, MalformedTracesNameTheFileAndWhatIsWrong) {
  auto error = [](const std::string& text, int warmup = 0) {
    auto p = ParseOrtTrace(text, "bad.json", warmup);
    EXPECT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(p.status().message(), HasSubstr("profile trace 'bad.json'")) << text;
    return p.status().message();
  };
  EXPECT_THAT(error("[{\"cat\":"), HasSubstr("not JSON"));
  EXPECT_THAT(error(""), HasSubstr("not JSON"));
  EXPECT_THAT(error(R"({"traceEvents":[]})"), HasSubstr("expected a JSON array of events, got object"));
  EXPECT_THAT(error("[1]"), HasSubstr("event 0: expected an object"));
  EXPECT_THAT(error(R"([{"cat":"Node","dur":1}])"), HasSubstr("event 0: 'Node' event without a 'name'"));
  EXPECT_THAT(error(R"([{"cat":"Node","name":"a_kernel_time","ts":1,"args":{"op_name":"Add"}}])"),
              HasSubstr("event 0 ('a_kernel_time'): missing 'dur'"));
  EXPECT_THAT(error(R"([{"cat":"Node","name":"a_kernel_time","ts":1,"dur":"5","args":{"op_name":"Add"}}])"),
              HasSubstr("'dur' is not a number"));
  EXPECT_THAT(error(R"([{"cat":"Node","name":"a_kernel_time","ts":1,"dur":2,"args":{}}])"),
              HasSubstr("missing 'args.op_name'"));
  EXPECT_THAT(error(R"([{"cat":"Session","name":"model_run","dur":2}])"), HasSubstr("missing 'ts'"));
  EXPECT_THAT(error("[]"), HasSubstr("0 model_run event(s), expected more than the 0 warm-up run(s)"));
  EXPECT_THAT(error(SampleTrace(), 2), HasSubstr("2 model_run event(s), expected more than the 2 warm-up run(s)"));
}

TEST(ProfileModelTest, ProfilesTheBundledModel) {
  ProfileSettings s;
  s.model_path = kModel;
  s.session.intra_op_threads = 1;
  s.warmup_runs = 2;
  s.runs = 5;
  s.batch = 4;
  auto p = ProfileModel(s);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->runs, 5);
  EXPECT_EQ(p->warmup_runs, 2);
  EXPECT_EQ(p->batch, 4);
  EXPECT_GT(p->run_mean_us, 0);
  EXPECT_GT(p->kernel_total_us_per_run, 0);
  ASSERT_FALSE(p->op_types.empty());
  double shares = 0;
  bool conv = false;
  for (const OpTypeTime& t : p->op_types) {
    shares += t.share;
    conv = conv || t.op_type == "Conv";
    EXPECT_GE(t.nodes, 1) << t.op_type;
  }
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_TRUE(conv);
  EXPECT_GT(p->compute_share, 0);
  EXPECT_LE(p->top_nodes.size(), 10u);
  EXPECT_GT(p->process_threads, 0);
  EXPECT_GT(p->peak_rss_bytes, 0u);
  EXPECT_THAT(p->summary, HasSubstr(" of the kernel time ("));
  EXPECT_THAT(p->session.ToString(), HasSubstr("profile=on"));
  // The trace went with its folder.
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(p->session.profile_prefix).parent_path()));

  nlohmann::json j = ProfileToJson(*p);
  EXPECT_EQ(j["op_types"].size(), p->op_types.size());
  EXPECT_EQ(j["matmul_dominated"], p->matmul_dominated());
  EXPECT_EQ(j["summary"], p->summary);
  std::string text = ProfileToText(*p);
  EXPECT_THAT(text, AllOf(HasSubstr("operator types"), HasSubstr("Conv"), HasSubstr("#"), HasSubstr("slowest nodes"),
                          HasSubstr(p->summary + ".")));
}

TEST(ProfileModelTest, KeepsNothingInItsWorkFolder) {
  onnx::testing::TempDir dir;
  ProfileSettings s;
  s.model_path = dir.WriteModel("mm.onnx", onnx::testing::MatMulModel());
  s.work_dir = dir.File("work");
  s.runs = 3;
  s.warmup_runs = 0;
  EXPECT_EQ(ProfileModel(s).status().code(), StatusCode::kInvalidArgument);  // the folder must exist
  std::filesystem::create_directories(s.work_dir);
  auto p = ProfileModel(s);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(std::filesystem::is_empty(s.work_dir));
  ASSERT_EQ(p->op_types.size(), 1u);
  EXPECT_EQ(p->op_types[0].op_type, "MatMul");
  EXPECT_DOUBLE_EQ(p->op_types[0].share, 1.0);
  EXPECT_TRUE(p->matmul_dominated());
  EXPECT_EQ(p->batch, 1);
}

TEST(ProfileModelTest, AGraphOfOneIdentityOrOnlyAConstant) {
  onnx::testing::TempDir dir;
  ProfileSettings s;
  s.model_path = dir.WriteModel("tiny.onnx", onnx::testing::TinyModel());
  s.runs = 3;
  auto tiny = ProfileModel(s);
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_FALSE(tiny->summary.empty());

  // y = Constant: ONNX Runtime folds it away, so no kernel runs at all.
  auto m = onnx::testing::EmptyModel("constant");
  auto* g = m.mutable_graph();
  onnx::testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {1, 2});
  onnx::testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {2});
  auto* node = onnx::testing::AddNode(g, "Constant", {}, {"y"});
  auto* value = node->add_attribute();
  value->set_name("value");
  value->set_type(::onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_float_data(1);
  value->mutable_t()->add_float_data(2);
  s.model_path = dir.WriteModel("constant.onnx", m);
  auto constant = ProfileModel(s);
  ASSERT_TRUE(constant.ok()) << constant.status().ToString();
  EXPECT_EQ(constant->runs, 3);
  EXPECT_DOUBLE_EQ(constant->kernel_total_us_per_run, 0);
  EXPECT_TRUE(constant->op_types.empty());
  EXPECT_THAT(constant->summary, StartsWith("No operator kernel ran"));
  EXPECT_THAT(ProfileToText(*constant), Not(HasSubstr("operator types")));
}

TEST(ProfileModelTest, RefusesWhatBenchRefuses) {
  ProfileSettings s;
  s.model_path = kModel;
  s.runs = 0;
  EXPECT_THAT(ProfileModel(s).status().message(), HasSubstr("--runs 0"));
  s.runs = 2;
  s.model_path = "/nonexistent/model.onnx";
  EXPECT_EQ(ProfileModel(s).status().code(), StatusCode::kNotFound);

  // A batch for a model whose dimension 0 is not a batch: the error bench gives.
  onnx::testing::TempDir dir;
  auto m = onnx::testing::EmptyModel("fixed");
  auto* g = m.mutable_graph();
  onnx::testing::SetTensorType(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {3, 2});
  onnx::testing::SetTensorType(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {3, 2});
  onnx::testing::AddNode(g, "Relu", {"x"}, {"y"});
  s.model_path = dir.WriteModel("fixed.onnx", m);
  s.batch = 4;
  auto fixed = ProfileModel(s);
  ASSERT_FALSE(fixed.ok());
  EXPECT_EQ(fixed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(fixed.status().message(), HasSubstr("--batch 4"));
}

bench::PointResult Point(double mean_us, std::optional<bench::ServerBreakdown> server,
                         std::optional<bench::ClientBreakdown> client) {
  bench::PointResult p;
  for (int i = 0; i < 10; ++i) p.latency.Record(static_cast<uint64_t>(mean_us * 1000));
  p.requests = 10;
  p.server = server;
  p.client = client;
  return p;
}

TEST(ServedSplitTest, SplitsTheLatencyAndNamesTheLargestPart) {
  bench::ServerBreakdown b;
  b.requests = 10;
  b.inferences = 40;
  b.executions = 10;
  b.request_us = 800;
  b.queue_us = 500;
  b.compute_input_us = 20;
  b.compute_infer_us = 200;
  b.compute_output_us = 10;
  bench::ClientBreakdown c{10, 30, 20};
  ServedSplit s = ServedSplitFrom(Point(1000, b, c));
  EXPECT_NEAR(s.total_us, 1000, 5);  // the histogram keeps values to within its bucket
  EXPECT_EQ(s.queue_us, 500);
  EXPECT_EQ(s.client_send_us, 30);
  EXPECT_NEAR(s.server_overhead_us, 70, 1e-9);
  EXPECT_NEAR(s.other_us, s.total_us - 780, 1e-9);
  EXPECT_EQ(s.average_batch, 4);
  EXPECT_EQ(s.dominant, "queueing");
  EXPECT_TRUE(s.queue_dominated());
  EXPECT_THAT(s.summary, AllOf(HasSubstr("queueing is 50%"), HasSubstr("compute 23%"), HasSubstr("batches of 4.0"),
                               HasSubstr("batching comes first")));
  nlohmann::json j = ServedSplitToJson(s);
  EXPECT_EQ(j["dominant"], "queueing");
  EXPECT_EQ(j["queue_dominated"], true);
  EXPECT_THAT(ServedSplitToText(s), AllOf(HasSubstr("server: queue"), HasSubstr("client: parse response")));

  // Compute-bound: queueing is small, batching is not the answer.
  b.queue_us = 10;
  ServedSplit compute = ServedSplitFrom(Point(300, b, c));
  EXPECT_EQ(compute.dominant, "compute");
  EXPECT_FALSE(compute.queue_dominated());
}

TEST(ServedSplitTest, WithoutServerStatisticsOrRequests) {
  ServedSplit none = ServedSplitFrom(Point(500, std::nullopt, std::nullopt));
  EXPECT_EQ(none.dominant, "unknown");
  EXPECT_FALSE(none.queue_dominated());
  EXPECT_THAT(none.summary, HasSubstr("reported no statistics"));
  EXPECT_THAT(ServedSplitToText(none), HasSubstr("not timed"));
  ServedSplit empty = ServedSplitFrom(bench::PointResult{});
  EXPECT_EQ(empty.total_us, 0);
  EXPECT_THAT(empty.summary, HasSubstr("No request completed"));
}

}  // namespace
}  // namespace hone::harness
