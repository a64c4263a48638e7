#include "client/http_client_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <string>

namespace hone::client {
namespace {

using ::testing::HasSubstr;

TEST(ClientCodec, ErrorsAndMalformedReplies) {
  Status s = ErrorFromReply(503, R"({"error":"queue full"})");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "queue full");
  EXPECT_EQ(ErrorFromReply(400, "plain text").message(), "plain text");
  EXPECT_EQ(ErrorFromReply(502, "").code(), StatusCode::kInternal);
  const std::string bad = R"({"outputs":[{"name":"o","datatype":"FP32","shape":[2],"parameters":{"binary_data_size":8}}]})";
  auto r = DecodeInferResponse(std::as_bytes(std::span(bad)), bad.size(), bad.size());
  EXPECT_THAT(r.status().message(), HasSubstr("binary_data_size 8 does not match"));
  EXPECT_EQ(PercentEncode("a b/c~"), "a%20b%2Fc~");
}

TEST(ClientCodec, NanAndInfinitiesInOutputsReadBack) {
  // As Triton and hone serve write non-finite outputs in JSON.
  const std::string json =
      R"({"model_name":"m","outputs":[{"name":"o","datatype":"FP32","shape":[3],"data":[NaN,Infinity,-Infinity]}]})";
  auto r = DecodeInferResponse(std::as_bytes(std::span(json)), json.size(), json.size());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outputs.size(), 1u);
  const float* v = reinterpret_cast<const float*>(r->outputs[0].tensor.data());
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], INFINITY);
  EXPECT_EQ(v[2], -INFINITY);
}

TEST(ClientCodec, StatisticsParseBackIntoSnapshots) {
  const std::string json = R"({"model_stats":[{"name":"m","version":"3","last_inference":17,"inference_count":9,
    "execution_count":2,"inference_stats":{"success":{"count":9,"ns":900},"fail":{"count":1,"ns":5},
    "queue":{"count":9,"ns":90},"compute_input":{"count":9,"ns":9},"compute_infer":{"count":9,"ns":800},
    "compute_output":{"count":9,"ns":1}},"batch_stats":[{"batch_size":8,"compute_input":{"count":1,"ns":4},
    "compute_infer":{"count":1,"ns":400},"compute_output":{"count":1,"ns":2}}]}]})";
  auto stats = ParseStatisticsJson(json);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_EQ(stats->size(), 1u);
  const auto& s = (*stats)[0];
  EXPECT_EQ(s.name, "m");
  EXPECT_EQ(s.version, 3);
  EXPECT_EQ(s.inference_count, 9u);
  EXPECT_EQ(s.success.ns, 900u);
  EXPECT_EQ(s.fail.count, 1u);
  EXPECT_EQ(s.compute_infer.ns, 800u);
  ASSERT_EQ(s.batch_stats.size(), 1u);
  EXPECT_EQ(s.batch_stats[0].batch_size, 8);
  EXPECT_EQ(s.batch_stats[0].compute_infer.ns, 400u);
  EXPECT_FALSE(ParseStatisticsJson("{}").ok());
}

}  // namespace
}  // namespace hone::client
