#include "serve/grpc/metadata_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/grpc_client_codec.h"  // StatsFromProto, for the round trip

namespace hone::serve::grpc_front {
namespace {

using ::testing::ElementsAre;

client::ModelStatsSnapshot SampleStats() {
  client::ModelStatsSnapshot s;
  s.name = "fashion";
  s.version = 2;
  s.last_inference_ms = 1700000000123;
  s.inference_count = 96;
  s.execution_count = 5;
  s.success = {40, 4000000};
  s.fail = {2, 1000};
  s.queue = {40, 300000};
  s.compute_input = {40, 20000};
  s.compute_infer = {40, 3000000};
  s.compute_output = {40, 10000};
  s.batch_stats = {{1, {3, 30}, {3, 300}, {3, 3}}, {32, {2, 20}, {2, 2000}, {2, 2}}};
  s.pending = 4;
  return s;
}

TEST(MetadataCodecTest, StatisticsKnownAnswer) {
  inference::ModelStatistics m;
  FillModelStatistics(SampleStats(), &m);
  EXPECT_EQ(m.name(), "fashion");
  EXPECT_EQ(m.version(), "2");
  EXPECT_EQ(m.last_inference(), 1700000000123u);
  EXPECT_EQ(m.inference_count(), 96u);
  EXPECT_EQ(m.execution_count(), 5u);
  EXPECT_EQ(m.inference_stats().success().count(), 40u);
  EXPECT_EQ(m.inference_stats().success().ns(), 4000000u);
  EXPECT_EQ(m.inference_stats().fail().count(), 2u);
  EXPECT_EQ(m.inference_stats().queue().ns(), 300000u);
  EXPECT_EQ(m.inference_stats().compute_input().ns(), 20000u);
  EXPECT_EQ(m.inference_stats().compute_infer().ns(), 3000000u);
  EXPECT_EQ(m.inference_stats().compute_output().ns(), 10000u);
  ASSERT_EQ(m.batch_stats_size(), 2);
  EXPECT_EQ(m.batch_stats(1).batch_size(), 32u);
  EXPECT_EQ(m.batch_stats(1).compute_infer().count(), 2u);
  EXPECT_EQ(m.batch_stats(1).compute_infer().ns(), 2000u);
}

TEST(MetadataCodecTest, StatisticsRoundTrip) {
  inference::ModelStatistics m;
  FillModelStatistics(SampleStats(), &m);
  auto back = client::StatsFromProto(m);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  client::ModelStatsSnapshot s = SampleStats();
  EXPECT_EQ(back->name, s.name);
  EXPECT_EQ(back->version, s.version);
  EXPECT_EQ(back->last_inference_ms, s.last_inference_ms);
  EXPECT_EQ(back->inference_count, s.inference_count);
  EXPECT_EQ(back->execution_count, s.execution_count);
  EXPECT_EQ(back->queue.ns, s.queue.ns);
  EXPECT_EQ(back->compute_infer.count, s.compute_infer.count);
  ASSERT_EQ(back->batch_stats.size(), 2u);
  EXPECT_EQ(back->batch_stats[0].batch_size, 1);
  EXPECT_EQ(back->batch_stats[0].compute_output.ns, 3u);
  EXPECT_EQ(back->pending, 0);  // not in the protocol

  m.set_version("two");
  EXPECT_EQ(client::StatsFromProto(m).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client::StatsFromProto(m).status().message(),
            "statistics of model 'fashion': version 'two': expected a positive integer or \"\"");
}

TEST(MetadataCodecTest, ModelMetadata) {
  client::ModelMetadataInfo info{"fashion", {"1", "2"}, "onnxruntime_onnx",
                                 {{"input", DataType::kFp32, {-1, 1, 28, 28}}},
                                 {{"logits", DataType::kFp32, {-1, 10}}, {"mask", DataType::kBool, {-1}}}};
  inference::ModelMetadataResponse m;
  FillModelMetadata(info, &m);
  EXPECT_EQ(m.name(), "fashion");
  EXPECT_THAT(m.versions(), ElementsAre("1", "2"));
  EXPECT_EQ(m.platform(), "onnxruntime_onnx");
  ASSERT_EQ(m.inputs_size(), 1);
  EXPECT_EQ(m.inputs(0).name(), "input");
  EXPECT_EQ(m.inputs(0).datatype(), "FP32");
  EXPECT_THAT(m.inputs(0).shape(), ElementsAre(-1, 1, 28, 28));
  ASSERT_EQ(m.outputs_size(), 2);
  EXPECT_EQ(m.outputs(1).datatype(), "BOOL");
}

TEST(MetadataCodecTest, ServerMetadataAndRepositoryIndex) {
  inference::ServerMetadataResponse server;
  FillServerMetadata({"hone", "0.1.0", {"model_repository", "statistics"}}, &server);
  EXPECT_EQ(server.name(), "hone");
  EXPECT_EQ(server.version(), "0.1.0");
  EXPECT_THAT(server.extensions(), ElementsAre("model_repository", "statistics"));

  inference::RepositoryIndexResponse index;
  FillRepositoryIndex({{"a", "1", "READY", ""}, {"b", "", "UNAVAILABLE", "bad model"}}, &index);
  ASSERT_EQ(index.models_size(), 2);
  EXPECT_EQ(index.models(0).name(), "a");
  EXPECT_EQ(index.models(0).version(), "1");
  EXPECT_EQ(index.models(0).state(), "READY");
  EXPECT_EQ(index.models(1).reason(), "bad model");
}

}  // namespace
}  // namespace hone::serve::grpc_front
