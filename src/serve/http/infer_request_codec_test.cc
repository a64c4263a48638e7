#include "serve/http/infer_request_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "client/body_buffer.h"
#include "client/float16.h"

namespace hone::serve::http {
namespace {

using ::testing::HasSubstr;

// A body as the HTTP layer hands it over: in a BodyBuffer (aligned binary section, padding) owned by a shared_ptr.
InferBody Body(const std::string& json, const std::string& binary = "", std::optional<uint64_t> header = {}) {
  auto buffer = std::make_shared<client::BodyBuffer>();
  buffer->Reset(json.size() + binary.size(), json.size());
  buffer->Append(json.data(), json.size());
  buffer->Append(binary.data(), binary.size());
  InferBody body;
  body.bytes = buffer->bytes();
  body.readable = buffer->readable();
  body.header_length = header ? header : (binary.empty() ? std::nullopt : std::optional<uint64_t>(json.size()));
  body.owner = buffer;
  return body;
}

template <typename T>
std::string Raw(std::initializer_list<T> values) {
  std::string s(values.size() * sizeof(T), '\0');
  std::memcpy(s.data(), std::data(values), s.size());
  return s;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> v(static_cast<size_t>(t.element_count()));
  if (t.byte_size()) std::memcpy(v.data(), t.data(), t.byte_size());
  return v;
}

Status DecodeError(const std::string& json, const std::string& binary = "", std::optional<uint64_t> header = {}) {
  auto r = DecodeInferRequest(Body(json, binary, header));
  return r.status();
}

void ExpectError(const std::string& json, const std::string& fragment, const std::string& binary = "",
                 std::optional<uint64_t> header = {}) {
  Status s = DecodeError(json, binary, header);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << json;
  EXPECT_THAT(s.message(), HasSubstr(fragment)) << json;
}

TEST(InferRequestCodec, JsonEveryFixedSizeType) {
  auto r = DecodeInferRequest(Body(R"({"id":"r1","inputs":[
    {"name":"b","shape":[3],"datatype":"BOOL","data":[true,false,true]},
    {"name":"u8","shape":[2],"datatype":"UINT8","data":[0,255]},
    {"name":"u16","shape":[1],"datatype":"UINT16","data":[65535]},
    {"name":"u32","shape":[1],"datatype":"UINT32","data":[4294967295]},
    {"name":"u64","shape":[1],"datatype":"UINT64","data":[18446744073709551615]},
    {"name":"i8","shape":[2],"datatype":"INT8","data":[-128,127]},
    {"name":"i16","shape":[1],"datatype":"INT16","data":[-32768]},
    {"name":"i32","shape":[1],"datatype":"INT32","data":[-2147483648]},
    {"name":"i64","shape":[2],"datatype":"INT64","data":[-9223372036854775808,9223372036854775807]},
    {"name":"f16","shape":[3],"datatype":"FP16","data":[1.5,-2,65504]},
    {"name":"bf16","shape":[2],"datatype":"BF16","data":[1.5,-3.0e38]},
    {"name":"f32","shape":[2],"datatype":"FP32","data":[0.1,-7]},
    {"name":"f64","shape":[1],"datatype":"FP64","data":[0.1]}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& in = r->request.inputs;
  ASSERT_EQ(in.size(), 13u);
  EXPECT_EQ(r->request.id, "r1");
  EXPECT_EQ(Values<uint8_t>(in[0].tensor), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(Values<uint8_t>(in[1].tensor), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Values<uint16_t>(in[2].tensor), (std::vector<uint16_t>{65535}));
  EXPECT_EQ(Values<uint32_t>(in[3].tensor), (std::vector<uint32_t>{4294967295u}));
  EXPECT_EQ(Values<uint64_t>(in[4].tensor), (std::vector<uint64_t>{18446744073709551615ull}));
  EXPECT_EQ(Values<int8_t>(in[5].tensor), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Values<int16_t>(in[6].tensor), (std::vector<int16_t>{-32768}));
  EXPECT_EQ(Values<int32_t>(in[7].tensor), (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(Values<int64_t>(in[8].tensor), (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
  EXPECT_EQ(Values<uint16_t>(in[9].tensor), (std::vector<uint16_t>{0x3E00, 0xC000, 0x7BFF}));
  EXPECT_EQ(Values<uint16_t>(in[10].tensor)[0], 0x3FC0);
  EXPECT_NEAR(client::Bf16ToFloat(Values<uint16_t>(in[10].tensor)[1]), -3.0e38f, 3.0e38f / 256)
      << "within half a BF16 ulp";
  EXPECT_EQ(Values<float>(in[11].tensor), (std::vector<float>{0.1f, -7.0f}));
  EXPECT_EQ(Values<double>(in[12].tensor), (std::vector<double>{0.1}));
  for (const auto& t : in) EXPECT_TRUE(t.tensor.owns_data()) << t.name << ": JSON data gets a buffer of its own";
  EXPECT_EQ(in[8].tensor.shape(), (Shape{2}));
}

TEST(InferRequestCodec, NestedAndFlatDataAreTheSame) {
  auto nested = DecodeInferRequest(
      Body(R"({"inputs":[{"name":"x","shape":[2,3],"datatype":"INT32","data":[[1,2,3],[4,5,6]]}]})"));
  auto flat =
      DecodeInferRequest(Body(R"({"inputs":[{"name":"x","shape":[2,3],"datatype":"INT32","data":[1,2,3,4,5,6]}]})"));
  ASSERT_TRUE(nested.ok() && flat.ok());
  EXPECT_EQ(Values<int32_t>(nested->request.inputs[0].tensor), Values<int32_t>(flat->request.inputs[0].tensor));
  EXPECT_EQ(nested->request.inputs[0].tensor.shape(), (Shape{2, 3}));
}

TEST(InferRequestCodec, MixedIntegersAndFractionsFillAFloatTensorInOrder) {
  // The fast path (no Status per element) and the checked one must agree on every value.
  auto r = DecodeInferRequest(Body(
      R"({"inputs":[{"name":"x","shape":[2,3],"datatype":"FP32","data":[[1,2.5,-3],[16777217,0.1,-0.0]]}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<float>(r->request.inputs[0].tensor),
            (std::vector<float>{1, 2.5f, -3, static_cast<float>(16777217.0), 0.1f, -0.0f}));
  auto d = DecodeInferRequest(Body(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP64","data":[[0.1],[7]]}]})"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(Values<double>(d->request.inputs[0].tensor), (std::vector<double>{0.1, 7}));
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[1,2147483648]}]})",
              "element 1 of 'data': expected an integer in [-2147483648, 2147483647] for INT32");
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"INT64","data":[[1],[2],[3]]}]})",
              "expected 2 elements");
}

TEST(InferRequestCodec, NanAndInfinitiesAsTritonWritesThem) {
  // perf_analyzer's random FP32 data holds them; Triton reads them (RapidJSON's NaN/Inf extension).
  auto r = DecodeInferRequest(Body(R"({"inputs":[
    {"name":"f","shape":[2,3],"datatype":"FP32","data":[[NaN,Infinity,-Infinity],[Inf,-Inf,1.5]]},
    {"name":"d","shape":[2],"datatype":"FP64","data":[-NaN,2]},
    {"name":"h","shape":[2],"datatype":"FP16","data":[-Infinity,NaN]},
    {"name":"s","shape":[1],"datatype":"BYTES","data":["NaN"]}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<float> f = Values<float>(r->request.inputs[0].tensor);
  EXPECT_TRUE(std::isnan(f[0]));
  EXPECT_EQ(std::vector<float>(f.begin() + 1, f.end()),
            (std::vector<float>{INFINITY, -INFINITY, INFINITY, -INFINITY, 1.5f}));
  std::vector<double> d = Values<double>(r->request.inputs[1].tensor);
  EXPECT_TRUE(std::isnan(d[0]));
  EXPECT_EQ(d[1], 2.0);
  std::vector<uint16_t> h = Values<uint16_t>(r->request.inputs[2].tensor);
  EXPECT_EQ(client::HalfToFloat(h[0]), -INFINITY);
  EXPECT_TRUE(std::isnan(client::HalfToFloat(h[1])));
  // Only floating-point types take them, and a finite number that overflows the type is still an error.
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[1,NaN]}]})",
              "element 1 of 'data': expected an integer in [-2147483648, 2147483647] for INT32, got NaN");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1e39]}]})",
              "expected a number within the type's range for FP32, got 1e+39");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[Nan]}]})", "malformed JSON");
}

TEST(InferRequestCodec, ScalarAndEmptyShapes) {
  auto r = DecodeInferRequest(Body(R"({"inputs":[{"name":"s","shape":[],"datatype":"FP32","data":[2.5]},
                                                 {"name":"e","shape":[0,4],"datatype":"FP32","data":[]}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<float>(r->request.inputs[0].tensor), (std::vector<float>{2.5f}));
  EXPECT_EQ(r->request.inputs[1].tensor.element_count(), 0);
}

TEST(InferRequestCodec, ParametersAndOutputs) {
  auto r = DecodeInferRequest(Body(R"({"parameters":{"binary_data_output":true,"priority":2,"timeout":1500,
      "custom":"ignored","sequence_id":0},
    "inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]}],
    "outputs":[{"name":"a"},{"name":"b","parameters":{"binary_data":false}}]})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->request.priority, 2u);
  EXPECT_EQ(r->request.timeout_us, 1500u);
  EXPECT_EQ(r->request.requested_outputs, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(r->format.BinaryFor("a"));
  EXPECT_FALSE(r->format.BinaryFor("b"));
  EXPECT_TRUE(r->format.BinaryFor("not-listed"));
}

TEST(InferRequestCodec, BinaryInputsBorrowTheBody) {
  const std::string json = R"({"inputs":[
      {"name":"a","shape":[2,2],"datatype":"UINT32","parameters":{"binary_data_size":16}},
      {"name":"b","shape":[3],"datatype":"BOOL","parameters":{"binary_data_size":3}},
      {"name":"c","shape":[2],"datatype":"FP32","data":[1,2]}],
    "outputs":[{"name":"o","parameters":{"binary_data":true}}]})";
  const std::string binary = Raw<uint32_t>({1, 2, 3, 4}) + std::string("\x01\x00\x01", 3);
  InferBody body = Body(json, binary);
  auto r = DecodeInferRequest(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& in = r->request.inputs;
  EXPECT_EQ(Values<uint32_t>(in[0].tensor), (std::vector<uint32_t>{1, 2, 3, 4}));
  EXPECT_EQ(Values<uint8_t>(in[1].tensor), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_FALSE(in[0].tensor.owns_data());
  EXPECT_EQ(in[0].tensor.data(), body.bytes.data() + json.size()) << "no copy: a view into the body";
  EXPECT_EQ(in[1].tensor.data(), body.bytes.data() + json.size() + 16);
  EXPECT_EQ(r->request.keep_alive, body.owner);
  EXPECT_TRUE(r->format.BinaryFor("o"));
}

TEST(InferRequestCodec, MisalignedBinaryInputIsCopied) {
  // The BOOL input's 3 bytes push the FP32 input off its 4-byte alignment.
  const std::string json = R"({"inputs":[
      {"name":"b","shape":[3],"datatype":"BOOL","parameters":{"binary_data_size":3}},
      {"name":"f","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":8}}]})";
  auto r = DecodeInferRequest(Body(json, std::string("\x01\x00\x01", 3) + Raw<float>({1.5f, -2.0f})));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->request.inputs[1].tensor.owns_data());
  EXPECT_EQ(Values<float>(r->request.inputs[1].tensor), (std::vector<float>{1.5f, -2.0f}));
}

TEST(InferRequestCodec, ParsesWithoutPaddingToo) {
  // A body that is not in a BodyBuffer (no readable padding): simdjson copies the header.
  auto owner = std::make_shared<std::string>(R"({"inputs":[{"name":"x","shape":[1],"datatype":"INT8","data":[3]}]})");
  InferBody body{std::as_bytes(std::span(*owner)), owner->size(), std::nullopt, owner};
  auto r = DecodeInferRequest(body);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Values<int8_t>(r->request.inputs[0].tensor), (std::vector<int8_t>{3}));
}

TEST(InferRequestCodec, MalformedJson) {
  ExpectError("{\"inputs\":[", "malformed JSON");
  ExpectError("not json", "malformed JSON");
  ExpectError("[1,2]", "must be a JSON object");
  ExpectError("", "body is empty");
}

TEST(InferRequestCodec, MissingAndMistypedFields) {
  ExpectError(R"({"id":"x"})", "has no 'inputs'");
  ExpectError(R"({"inputs":{}})", "'inputs' must be an array");
  ExpectError(R"({"id":7,"inputs":[]})", "'id' must be a string");
  ExpectError(R"({"inputs":[5]})", "inputs[0]: expected an object");
  ExpectError(R"({"inputs":[{"shape":[1],"datatype":"FP32","data":[1]}]})", "inputs[0]: expected a non-empty string 'name'");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"data":[1]}]})", "input 'x': expected a string 'datatype'");
  ExpectError(R"({"inputs":[{"name":"x","datatype":"FP32","data":[1]}]})", "input 'x': expected an array 'shape'");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32"}]})",
              "input 'x': expected 'data' or parameter 'binary_data_size'");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":5}]})", "'data' must be an array");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1],"parameters":[]}]})",
              "input 'x': 'parameters' must be an object");
  ExpectError(R"({"parameters":{"priority":-1},"inputs":[]})", "parameter 'priority': expected a non-negative integer");
  ExpectError(R"({"parameters":{"binary_data_output":1},"inputs":[]})", "'binary_data_output': expected true or false");
  ExpectError(R"({"parameters":{"sequence_id":5},"inputs":[]})", "sequence batching is not supported");
  ExpectError(R"({"inputs":[],"outputs":[{"name":"o"},{"name":"o"}]})", "output 'o': requested twice");
  ExpectError(R"({"inputs":[],"outputs":[{"nam":"o"}]})", "outputs[0]: expected an object");
  ExpectError(R"({"inputs":[],"outputs":[{"name":"o","parameters":{"classification":0}}]})",
              "output 'o': parameter 'classification': expected a count of classes >= 1");
  ExpectError(R"({"inputs":[],"outputs":[{"name":"o","parameters":{"classification":"3"}}]})",
              "output 'o': parameter 'classification': expected a non-negative integer");
  ExpectError(R"({"inputs":[],"outputs":[{"name":"o","parameters":{"binary_data":"yes"}}]})",
              "output 'o': parameter 'binary_data': expected true or false");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","parameters":{"shared_memory_region":"r"}}]})",
              "shared memory extension is not supported");
}

TEST(InferRequestCodec, BadShapesAndTypes) {
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FLOAT32","data":[1]}]})",
              "input 'x': unknown datatype 'FLOAT32'");
  ExpectError(R"({"inputs":[{"name":"x","shape":[2,-1],"datatype":"FP32","data":[1]}]})",
              "input 'x': shape dimension 1 is -1; expected a non-negative integer");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1.5],"datatype":"FP32","data":[1]}]})", "shape dimension 0 is 1.5");
  ExpectError(R"({"inputs":[{"name":"x","shape":[4294967296,4294967296],"datatype":"FP32","data":[1]}]})",
              "has more elements than an int64 holds");
  ExpectError(R"({"inputs":[{"name":"x","shape":[18446744073709551615],"datatype":"FP32","data":[1]}]})",
              "shape dimension 0 is 18446744073709551615");
  // A huge but representable shape must be refused before anything that size is allocated.
  ExpectError(R"({"inputs":[{"name":"x","shape":[100000,100000],"datatype":"FP64","data":[1]}]})",
              "expected 10000000000 elements in 'data' (shape 100000x100000), got 1");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]},
                             {"name":"x","shape":[1],"datatype":"FP32","data":[2]}]})",
              "input 'x': given twice");
}

TEST(InferRequestCodec, DataMismatchesNameTheInputAndElement) {
  ExpectError(R"({"inputs":[{"name":"x","shape":[2,2],"datatype":"FP32","data":[1,2,3]}]})",
              "input 'x': expected 4 elements in 'data' (shape 2x2), got 3");
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[1,2,3]}]})", "expected 2 elements");
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"UINT8","data":[1,256]}]})",
              "input 'x': element 1 of 'data': expected an integer in [0, 255] for UINT8, got 256");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"UINT32","data":[-1]}]})", "got -1");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"INT64","data":[9223372036854775808]}]})",
              "expected an integer in [-9223372036854775808, 9223372036854775807] for INT64");
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"INT32","data":[1,2.5]}]})",
              "element 1 of 'data': expected an integer");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"BOOL","data":[1]}]})",
              "expected true or false for BOOL, got 1");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":["1"]}]})",
              "expected a number for FP32, got a string");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP16","data":[70000]}]})",
              "expected a number within the type's range for FP16");
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1e39]}]})", "within the type's range");
  ExpectError(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","data":[[1],{"a":1}]}]})", "got an object");
}

TEST(InferRequestCodec, BinarySizesMustAddUp) {
  const std::string one = R"({"inputs":[{"name":"x","shape":[2],"datatype":"FP32","parameters":{"binary_data_size":8}}]})";
  EXPECT_TRUE(DecodeInferRequest(Body(one, Raw<float>({1, 2}))).ok());
  ExpectError(one, "input 'x': binary_data_size is 8 bytes but only 4 bytes of the body are left", Raw<float>({1}));
  ExpectError(one, "4 unexpected bytes after the JSON header", Raw<float>({1, 2, 3}));
  ExpectError(R"({"inputs":[{"name":"x","shape":[3],"datatype":"FP32","parameters":{"binary_data_size":8}}]})",
              "input 'x': binary_data_size is 8 bytes, expected 12 (shape 3 of FP32)", Raw<float>({1, 2}));
  // Header length beyond the body, zero, and binary data without the header at all.
  ExpectError(one, "Inference-Header-Content-Length is 999 but the body has only", Raw<float>({1, 2}), 999);
  ExpectError(one, "Inference-Header-Content-Length is 0", Raw<float>({1, 2}), 0);
  auto owner = std::make_shared<std::string>(one);
  InferBody no_header{std::as_bytes(std::span(*owner)), owner->size(), std::nullopt, owner};
  EXPECT_THAT(DecodeInferRequest(no_header).status().message(),
              HasSubstr("binary_data_size given but the request has no Inference-Header-Content-Length header"));
  // A header length that cuts the JSON short.
  ExpectError(one, "malformed JSON", Raw<float>({1, 2}), 10);
  ExpectError(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1],
                             "parameters":{"binary_data_size":4}}]})",
              "has both 'data' and parameter 'binary_data_size'", Raw<float>({1}));
}

// The KServe binary layout of `elements` (what a client sends for a BYTES input).
std::string BytesLayout(std::vector<std::string_view> elements) {
  Tensor t = *Tensor::FromStrings({static_cast<int64_t>(elements.size())}, elements);
  return std::string(reinterpret_cast<const char*>(t.data()), t.byte_size());
}

TEST(InferRequestCodec, BinaryBytesInputsAreViewsCheckedElementByElement) {
  const std::string two = BytesLayout({"hi", ""});
  const std::string json =
      R"({"inputs":[{"name":"s","shape":[2],"datatype":"BYTES","parameters":{"binary_data_size":)" +
      std::to_string(two.size()) + "}}]}";
  auto decoded = DecodeInferRequest(Body(json, two));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const Tensor& s = decoded->request.inputs[0].tensor;
  EXPECT_EQ(s.type(), DataType::kBytes);
  EXPECT_FALSE(s.owns_data()) << "a view over the body";
  EXPECT_EQ(s.bytes_elements(), (std::vector<std::string_view>{"hi", ""}));

  std::string cut = two.substr(0, 5);  // "hi" claims 2 bytes but only 1 is there
  const std::string cut_json =
      R"({"inputs":[{"name":"s","shape":[2],"datatype":"BYTES","parameters":{"binary_data_size":5}}]})";
  ExpectError(cut_json, "input 's': BYTES element 0: length 2 runs past the end of the data (1 bytes left)", cut);
  const std::string one_json =
      R"({"inputs":[{"name":"s","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":)" +
      std::to_string(two.size()) + "}}]}";
  ExpectError(one_json, "input 's': BYTES tensor of shape 1: 4 bytes left over after its 1 elements", two);
}

TEST(InferRequestCodec, JsonBytesInputsAreStrings) {
  auto decoded = DecodeInferRequest(Body(
      R"({"inputs":[{"name":"s","shape":[2,2],"datatype":"BYTES","data":[["a","b\u00e9"],["","\u4e2d"]]}]})"));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  const Tensor& s = decoded->request.inputs[0].tensor;
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_EQ(s.bytes_elements(), (std::vector<std::string_view>{"a", "b\xc3\xa9", "", "\xe4\xb8\xad"}));
  ExpectError(R"({"inputs":[{"name":"s","shape":[2],"datatype":"BYTES","data":["a",1]}]})",
              "input 's': element 1 of BYTES data is 1; expected a string");
  ExpectError(R"({"inputs":[{"name":"s","shape":[2],"datatype":"BYTES","data":["a"]}]})",
              "input 's': expected 2 elements in 'data' (shape 2), got 1");
  ExpectError(R"({"inputs":[{"name":"s","shape":[1],"datatype":"BYTES","data":["a","b"]}]})",
              "input 's': more than the 1 elements its shape holds");
}

TEST(InferRequestCodec, ClassificationAsksForAnOutputsTopClasses) {
  auto decoded = DecodeInferRequest(Body(
      R"({"inputs":[],"outputs":[{"name":"logits","parameters":{"classification":3}},{"name":"other"}]})"));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->request.requested_outputs, (std::vector<std::string>{"logits", "other"}));
  ASSERT_EQ(decoded->request.classifications.size(), 1u);
  EXPECT_EQ(decoded->request.classifications[0], (std::pair<std::string, uint32_t>{"logits", 3}));
}

}  // namespace
}  // namespace hone::serve::http
