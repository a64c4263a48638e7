#include "serve/http/infer_response_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "serve/http/api_json.h"

namespace hone::serve::http {
namespace {

template <typename T>
Tensor Make(DataType type, Shape shape, std::vector<T> values) {
  Tensor t = *Tensor::Allocate(type, std::move(shape));
  if (t.byte_size() > 0) std::memcpy(t.mutable_data(), values.data(), t.byte_size());  // no memcpy from null
  return t;
}

// Built in one initializer: assigning the strings one by one draws GCC 12's false -Wstringop-overflow.
InferenceResponse Response(std::vector<NamedTensor> outputs) {
  return InferenceResponse{.model_name = "m", .model_version = 3, .id = "abc", .outputs = std::move(outputs)};
}

TEST(InferResponseCodec, JsonOutputsInEveryType) {
  std::vector<NamedTensor> outs = {
      {"b", Make<uint8_t>(DataType::kBool, {2}, {1, 0})},
      {"u64", Make<uint64_t>(DataType::kUint64, {1}, {18446744073709551615ull})},
      {"i8", Make<int8_t>(DataType::kInt8, {2}, {-128, 5})},
      {"i64", Make<int64_t>(DataType::kInt64, {1}, {INT64_MIN})},
      {"f16", Make<uint16_t>(DataType::kFp16, {2}, {0x3E00, 0x0001})},
      {"bf16", Make<uint16_t>(DataType::kBf16, {1}, {0x3FC0})},
      {"f32", Make<float>(DataType::kFp32, {2, 2}, {0.1f, 1e-30f, 3.4028235e38f, -0.0f})},
      {"f64", Make<double>(DataType::kFp64, {1}, {0.1})},
  };
  auto enc = EncodeInferResponse(Response(std::move(outs)), {});
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  EXPECT_FALSE(enc->has_binary);
  EXPECT_TRUE(enc->binary.empty());
  auto j = nlohmann::json::parse(enc->json);
  EXPECT_EQ(j["model_name"], "m");
  EXPECT_EQ(j["model_version"], "3") << "a string, as KServe v2 has it";
  EXPECT_EQ(j["id"], "abc");
  const auto& o = j["outputs"];
  EXPECT_EQ(o[0]["data"], nlohmann::json({true, false}));
  EXPECT_EQ(o[1]["data"][0].get<uint64_t>(), 18446744073709551615ull);
  EXPECT_EQ(o[2]["data"], nlohmann::json({-128, 5}));
  EXPECT_EQ(o[3]["data"][0].get<int64_t>(), INT64_MIN);
  EXPECT_EQ(o[4]["data"][0].get<double>(), 1.5);
  EXPECT_EQ(o[5]["data"][0].get<double>(), 1.5);
  EXPECT_EQ(o[6]["datatype"], "FP32");
  EXPECT_EQ(o[6]["shape"], nlohmann::json({2, 2}));
  // Shortest digits that read back as the same float: 0.1f is written "0.1", not 0.10000000149011612.
  EXPECT_NE(enc->json.find("[0.1,1e-30,3.4028235e+38,-0]"), std::string::npos) << enc->json;
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(static_cast<float>(o[6]["data"][i].get<double>()), std::vector<float>({0.1f, 1e-30f, 3.4028235e38f, -0.0f})[i]);
  EXPECT_EQ(o[7]["data"][0].get<double>(), 0.1);
  EXPECT_EQ(static_cast<float>(o[4]["data"][1].get<double>()), 0x1p-24f) << "the smallest FP16 subnormal";
}

TEST(InferResponseCodec, NonFiniteValuesAsPythonsJsonReadsThem) {
  auto enc = EncodeInferResponse(
      Response({{"f", Make<float>(DataType::kFp32, {3}, {NAN, INFINITY, -INFINITY})},
                {"h", Make<uint16_t>(DataType::kFp16, {1}, {0xFC00})}}),
      {});
  ASSERT_TRUE(enc.ok());
  EXPECT_NE(enc->json.find("\"data\":[NaN,Infinity,-Infinity]"), std::string::npos) << enc->json;
  EXPECT_NE(enc->json.find("\"data\":[-Infinity]"), std::string::npos) << enc->json;
}

TEST(InferResponseCodec, BinaryOutputsAreViewsInOrder) {
  Tensor a = Make<float>(DataType::kFp32, {3}, {1, 2, 3});
  Tensor b = Make<int32_t>(DataType::kInt32, {2}, {7, 8});
  Tensor c = Make<int32_t>(DataType::kInt32, {0}, {});
  const std::byte* a_data = a.data();
  ResponseFormat format;
  format.binary_default = true;
  format.binary_by_output = {{"b", false}};
  auto enc = EncodeInferResponse(Response({{"a", a}, {"b", b}, {"c", c}}), format);
  ASSERT_TRUE(enc.ok());
  EXPECT_TRUE(enc->has_binary);
  ASSERT_EQ(enc->binary.size(), 1u) << "b goes as JSON, c has no bytes";
  EXPECT_EQ(enc->binary[0].data(), a_data) << "no copy";
  EXPECT_EQ(enc->binary[0].size(), 12u);
  EXPECT_EQ(enc->body_size(), enc->json.size() + 12);
  auto j = nlohmann::json::parse(enc->json);
  EXPECT_EQ(j["outputs"][0]["parameters"]["binary_data_size"], 12);
  EXPECT_FALSE(j["outputs"][0].contains("data"));
  EXPECT_EQ(j["outputs"][1]["data"], nlohmann::json({7, 8}));
  EXPECT_EQ(j["outputs"][2]["parameters"]["binary_data_size"], 0);
}

TEST(InferResponseCodec, NoIdNoField) {
  InferenceResponse r = Response({});
  r.id.clear();
  auto enc = EncodeInferResponse(std::move(r), {});
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->json, R"({"model_name":"m","model_version":"3","outputs":[]})");
}

TEST(ApiJson, StatisticsHaveTritonsShape) {
  client::ModelStatsSnapshot s;
  s.name = "m";
  s.version = 2;
  s.inference_count = 5;
  s.success = {5, 500};
  client::BatchSizeStats b;
  b.batch_size = 4;
  b.compute_infer = {1, 99};
  s.batch_stats = {b};
  auto j = nlohmann::json::parse(StatisticsJson({s}));
  const auto& m = j["model_stats"][0];
  EXPECT_EQ(m["name"], "m");
  EXPECT_EQ(m["version"], "2");
  EXPECT_EQ(m["inference_count"], 5);
  EXPECT_EQ(m["inference_stats"]["success"]["ns"], 500);
  for (const char* k : {"success", "fail", "queue", "compute_input", "compute_infer", "compute_output", "cache_hit",
                        "cache_miss"})
    EXPECT_TRUE(m["inference_stats"][k].contains("count")) << k;
  EXPECT_EQ(m["batch_stats"][0]["batch_size"], 4);
  EXPECT_EQ(m["batch_stats"][0]["compute_infer"]["ns"], 99);
}

TEST(ApiJson, MetadataAndIndex) {
  client::ModelMetadataInfo info;
  info.name = "m";
  info.versions = {"1", "2"};
  info.platform = "onnxruntime_onnx";
  info.inputs = {{"x", DataType::kFp32, {-1, 3}}};
  auto j = nlohmann::json::parse(ModelMetadataJson(info));
  EXPECT_EQ(j["versions"], nlohmann::json({"1", "2"}));
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({-1, 3}));
  EXPECT_EQ(j["inputs"][0]["datatype"], "FP32");
  EXPECT_EQ(j["outputs"], nlohmann::json::array());
  auto index = nlohmann::json::parse(RepositoryIndexJson({{"a", "1", "READY", ""}, {"b", "", "UNAVAILABLE", "no"}}));
  EXPECT_EQ(index[0], nlohmann::json({{"name", "a"}, {"version", "1"}, {"state", "READY"}}));
  EXPECT_EQ(index[1]["reason"], "no");
  EXPECT_FALSE(index[1].contains("version"));
}

}  // namespace
}  // namespace hone::serve::http
