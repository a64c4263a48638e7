// The client's codec (client/grpc_client_codec.h) against the server's (infer_codec.h): what one side encodes, the
// other reads back, for every fixed-size type. Here rather than beside the client's codec, which may not use serve.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/grpc_client_codec.h"
#include "client/grpc_codec_test_util.h"
#include "serve/grpc/infer_codec.h"

namespace hone::serve::grpc_front {
namespace {

using client::test::Bytes;
using client::test::EveryType;
using inference::ModelInferRequest;
using inference::ModelInferResponse;

// Client request -> server's InferenceRequest: every type arrives with its bytes.
TEST(ClientCodecTest, EveryTypeRoundTripsThroughTheServerCodec) {
  std::vector<NamedTensor> inputs = EveryType();
  ModelInferRequest m;
  ASSERT_TRUE(client::FillModelInferRequest("m", 1, inputs, {}, &m).ok());
  auto request = ToInferenceRequest(m, nullptr);
  ASSERT_TRUE(request.ok()) << request.status().ToString();
  ASSERT_EQ(request->inputs.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(request->inputs[i].name, inputs[i].name);
    EXPECT_EQ(request->inputs[i].tensor.type(), inputs[i].tensor.type());
    EXPECT_EQ(request->inputs[i].tensor.shape(), inputs[i].tensor.shape());
    EXPECT_EQ(Bytes(request->inputs[i].tensor), Bytes(inputs[i].tensor));
  }
}

// Server's InferenceResponse -> client outputs: every type comes back owning its bytes.
TEST(ClientCodecTest, EveryTypeRoundTripsFromTheServerCodec) {
  InferenceResponse response{"m", 1, "", EveryType()};
  ModelInferResponse m;
  ASSERT_TRUE(ToModelInferResponse(response, &m).ok());
  auto outputs = client::OutputsFromResponse(m);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), response.outputs.size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    EXPECT_EQ((*outputs)[i].name, response.outputs[i].name);
    EXPECT_EQ((*outputs)[i].tensor.type(), response.outputs[i].tensor.type());
    EXPECT_EQ((*outputs)[i].tensor.shape(), response.outputs[i].tensor.shape());
    EXPECT_EQ(Bytes((*outputs)[i].tensor), Bytes(response.outputs[i].tensor));
    EXPECT_TRUE((*outputs)[i].tensor.owns_data());
  }
}

}  // namespace
}  // namespace hone::serve::grpc_front
