#include "client/grpc_client_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/grpc_codec_test_util.h"

namespace hone::client {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;
using ::testing::HasSubstr;

using test::Alternating;
using test::Bytes;

TEST(ClientCodecTest, RequestKnownAnswer) {
  std::vector<NamedTensor> inputs = {{"x", Alternating(DataType::kFp32, {1, 4})}};
  std::vector<std::string> outputs = {"y"};
  ModelInferRequest m;
  ASSERT_TRUE(FillModelInferRequest("fashion", 2, inputs, outputs, &m).ok());
  EXPECT_EQ(m.model_name(), "fashion");
  EXPECT_EQ(m.model_version(), "2");
  ASSERT_EQ(m.inputs_size(), 1);
  EXPECT_EQ(m.inputs(0).name(), "x");
  EXPECT_EQ(m.inputs(0).datatype(), "FP32");
  EXPECT_THAT(m.inputs(0).shape(), ::testing::ElementsAre(1, 4));
  EXPECT_FALSE(m.inputs(0).has_contents());
  ASSERT_EQ(m.raw_input_contents_size(), 1);
  EXPECT_EQ(m.raw_input_contents(0), Bytes(inputs[0].tensor));
  ASSERT_EQ(m.outputs_size(), 1);
  EXPECT_EQ(m.outputs(0).name(), "y");

  ASSERT_TRUE(FillModelInferRequest("fashion", 0, inputs, {}, &m).ok());
  EXPECT_EQ(m.model_version(), "");  // the server picks
  EXPECT_EQ(m.outputs_size(), 0);
}

// The message is reused: a second request of the same shape writes into the storage of the first.
TEST(ClientCodecTest, ReusedRequestKeepsItsBuffers) {
  std::vector<NamedTensor> inputs = {{"x", Alternating(DataType::kFp32, {8, 64})}};
  ModelInferRequest m;
  ASSERT_TRUE(FillModelInferRequest("m", 0, inputs, {}, &m).ok());
  const char* first = m.raw_input_contents(0).data();
  inputs[0].tensor.mutable_values<float>()[0] = 42.0f;
  ASSERT_TRUE(FillModelInferRequest("m", 0, inputs, {}, &m).ok());
  EXPECT_EQ(m.raw_input_contents(0).data(), first);
  EXPECT_EQ(m.raw_input_contents(0), Bytes(inputs[0].tensor));
  EXPECT_EQ(m.inputs_size(), 1);
}

TEST(ClientCodecTest, RequestErrors) {
  ModelInferRequest m;
  std::vector<NamedTensor> twice = {{"x", Alternating(DataType::kFp32, {1})}, {"x", Alternating(DataType::kFp32, {1})}};
  EXPECT_EQ(FillModelInferRequest("m", 0, twice, {}, &m).message(), "input 'x': given twice");
  std::vector<NamedTensor> unnamed = {{"", Alternating(DataType::kFp32, {1})}};
  EXPECT_EQ(FillModelInferRequest("m", 0, unnamed, {}, &m).message(), "input 0: expected a name");
  std::vector<NamedTensor> empty = {{"x", Tensor()}};
  EXPECT_EQ(FillModelInferRequest("m", 0, empty, {}, &m).message(), "input 'x': expected a tensor");
}

// A server that answers with typed contents (Triton does, for some clients' requests) is understood too.
TEST(ClientCodecTest, OutputsFromTypedContents) {
  ModelInferResponse m;
  auto* y = m.add_outputs();
  y->set_name("y");
  y->set_datatype("INT32");
  y->add_shape(2);
  y->mutable_contents()->add_int_contents(-3);
  y->mutable_contents()->add_int_contents(4);
  auto outputs = OutputsFromResponse(m);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  EXPECT_EQ((*outputs)[0].tensor.values<int32_t>()[0], -3);
  EXPECT_EQ((*outputs)[0].tensor.values<int32_t>()[1], 4);
}

TEST(ClientCodecTest, MalformedResponses) {
  ModelInferResponse m;
  auto* y = m.add_outputs();
  y->set_name("y");
  y->set_datatype("FP32");
  y->add_shape(2);
  m.add_raw_output_contents(std::string(4, '\0'));
  auto size = OutputsFromResponse(m);
  EXPECT_EQ(size.status().code(), StatusCode::kInternal);
  EXPECT_EQ(size.status().message(),
            "malformed ModelInfer response: output 'y': expected 8 bytes for FP32 shape 2 in its raw contents, got 4");

  m.add_raw_output_contents("");
  EXPECT_EQ(OutputsFromResponse(m).status().message(),
            "malformed ModelInfer response: 1 outputs but 2 raw_output_contents");

  m.clear_raw_output_contents();
  m.add_raw_output_contents(std::string(8, '\0'));
  y->set_datatype("FLOAT");
  EXPECT_EQ(OutputsFromResponse(m).status().message(),
            "malformed ModelInfer response: output 'y': unknown datatype 'FLOAT'");

  // 8 zero bytes are two empty BYTES elements, which y's shape [2] holds; 9 leave one over.
  y->set_datatype("BYTES");
  auto two_empty = OutputsFromResponse(m);
  ASSERT_TRUE(two_empty.ok()) << two_empty.status().ToString();
  EXPECT_EQ((*two_empty)[0].tensor.bytes_elements(), (std::vector<std::string_view>{"", ""}));
  m.mutable_raw_output_contents(0)->push_back('x');
  EXPECT_THAT(OutputsFromResponse(m).status().message(),
              HasSubstr("malformed ModelInfer response: output 'y': BYTES tensor of shape 2: 1 bytes left over"));
}

}  // namespace
}  // namespace hone::client
