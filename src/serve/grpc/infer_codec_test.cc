#include "serve/grpc/infer_codec.h"

#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/grpc_codec_test_util.h"

namespace hone::serve::grpc_front {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;
using ::testing::HasSubstr;

using client::test::Bytes;
using client::test::kFixedTypes;

// A request with one FP32 input "x" [1, 2] = {1, 2} as raw contents.
ModelInferRequest SimpleRequest() {
  ModelInferRequest m;
  m.set_model_name("echo");
  auto* x = m.add_inputs();
  x->set_name("x");
  x->set_datatype("FP32");
  x->add_shape(1), x->add_shape(2);
  float values[2] = {1.0f, 2.0f};
  m.add_raw_input_contents(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  return m;
}

Status ErrorOf(const ModelInferRequest& m) { return ToInferenceRequest(m, nullptr).status(); }

TEST(InferCodecTest, RawInputsOfEveryTypeAreViewsOverTheMessage) {
  ModelInferRequest m;
  m.set_model_name("all_types");
  m.set_model_version("3");
  m.set_id("req-7");
  for (DataType type : kFixedTypes) {
    auto* input = m.add_inputs();
    input->set_name("in_" + std::string(DataTypeName(type)));
    input->set_datatype(std::string(DataTypeName(type)));
    input->add_shape(2), input->add_shape(4);
    std::string raw(8 * ElementSize(type), '\0');
    for (size_t i = 0; i < raw.size(); i += ElementSize(type)) raw[i] = static_cast<char>(i % 2);  // 0/1: BOOL-safe
    m.add_raw_input_contents(raw);
  }
  auto owner = std::make_shared<int>(1);
  auto r = ToInferenceRequest(m, owner);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->model_name, "all_types");
  EXPECT_EQ(r->model_version, 3);
  EXPECT_EQ(r->id, "req-7");
  EXPECT_EQ(r->keep_alive, owner);
  ASSERT_EQ(r->inputs.size(), std::size(kFixedTypes));
  for (size_t i = 0; i < r->inputs.size(); ++i) {
    SCOPED_TRACE(r->inputs[i].name);
    const Tensor& t = r->inputs[i].tensor;
    EXPECT_EQ(r->inputs[i].name, m.inputs(static_cast<int>(i)).name());
    EXPECT_EQ(t.type(), kFixedTypes[i]);
    EXPECT_EQ(t.shape(), (Shape{2, 4}));
    EXPECT_EQ(Bytes(t), m.raw_input_contents(static_cast<int>(i)));
    EXPECT_EQ(static_cast<const void*>(t.data()),
              static_cast<const void*>(m.raw_input_contents(static_cast<int>(i)).data()));  // no copy
  }
  EXPECT_TRUE(r->requested_outputs.empty());
  EXPECT_EQ(r->priority, 0u);
  EXPECT_EQ(r->timeout_us, 0u);
}

TEST(InferCodecTest, ContentsInputs) {
  ModelInferRequest m;
  m.set_model_name("m");
  auto* a = m.add_inputs();
  a->set_name("a");
  a->set_datatype("INT16");
  a->add_shape(3);
  for (int v : {-5, 0, 5}) a->mutable_contents()->add_int_contents(v);
  auto* b = m.add_inputs();
  b->set_name("b");
  b->set_datatype("FP64");
  b->add_shape(1);
  b->mutable_contents()->add_fp64_contents(2.5);
  auto r = ToInferenceRequest(m, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->inputs[0].tensor.values<int16_t>()[0], -5);
  EXPECT_EQ(r->inputs[0].tensor.values<int16_t>()[2], 5);
  EXPECT_EQ(r->inputs[1].tensor.values<double>()[0], 2.5);
}

TEST(InferCodecTest, ParametersAndRequestedOutputs) {
  ModelInferRequest m = SimpleRequest();
  (*m.mutable_parameters())["priority"].set_int64_param(2);
  (*m.mutable_parameters())["timeout"].set_uint64_param(1500);
  (*m.mutable_parameters())["sequence_id"].set_int64_param(0);  // zero: no sequence, fine
  (*m.mutable_parameters())["binary_data_output"].set_bool_param(true);  // ignored
  m.add_outputs()->set_name("y");
  m.add_outputs()->set_name("n");
  auto r = ToInferenceRequest(m, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->priority, 2u);
  EXPECT_EQ(r->timeout_us, 1500u);
  EXPECT_EQ(r->requested_outputs, (std::vector<std::string>{"y", "n"}));

  ModelInferRequest u = SimpleRequest();
  (*u.mutable_parameters())["priority"].set_uint64_param(1);
  (*u.mutable_parameters())["timeout"].set_int64_param(9);
  auto ru = ToInferenceRequest(u, nullptr);
  ASSERT_TRUE(ru.ok());
  EXPECT_EQ(ru->priority, 1u);
  EXPECT_EQ(ru->timeout_us, 9u);
}

TEST(InferCodecTest, BadParametersAreNamed) {
  ModelInferRequest m = SimpleRequest();
  (*m.mutable_parameters())["priority"].set_int64_param(-1);
  EXPECT_EQ(ErrorOf(m).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrorOf(m).message(),
            "parameter 'priority': expected a non-negative integer (int64_param or uint64_param)");

  (*m.mutable_parameters())["priority"].set_string_param("high");
  EXPECT_THAT(ErrorOf(m).message(), HasSubstr("parameter 'priority': expected a non-negative integer"));

  (*m.mutable_parameters())["priority"].set_uint64_param(uint64_t{1} << 40);
  EXPECT_THAT(ErrorOf(m).message(), HasSubstr("parameter 'priority': 1099511627776 is larger than"));

  ModelInferRequest t = SimpleRequest();
  (*t.mutable_parameters())["timeout"].set_double_param(1.5);
  EXPECT_THAT(ErrorOf(t).message(), HasSubstr("parameter 'timeout': expected a non-negative integer"));

  ModelInferRequest s = SimpleRequest();
  (*s.mutable_parameters())["sequence_id"].set_string_param("abc");
  EXPECT_EQ(ErrorOf(s).code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(ErrorOf(s).message(), HasSubstr("parameter 'sequence_id'"));
}

TEST(InferCodecTest, ModelAndVersion) {
  ModelInferRequest m = SimpleRequest();
  m.set_model_name("");
  EXPECT_EQ(ErrorOf(m).message(), "expected a model_name");

  m = SimpleRequest();
  for (const char* bad : {"abc", "0", "-2", "1.5", "07", " 1"}) {
    m.set_model_version(bad);
    EXPECT_EQ(ErrorOf(m).code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(ErrorOf(m).message(),
              "model 'echo': version '" + std::string(bad) + "': expected a positive integer or \"\"");
  }
  m.set_model_version("-1");  // Triton's "latest"
  EXPECT_EQ(ToInferenceRequest(m, nullptr)->model_version, 0);
  m.set_model_version("12");
  EXPECT_EQ(ToInferenceRequest(m, nullptr)->model_version, 12);
}

TEST(InferCodecTest, MalformedInputsAreNamed) {
  struct Case {
    const char* what;
    std::function<void(ModelInferRequest*)> mutate;
    std::string message;
  };
  std::vector<Case> cases = {
      {"raw count", [](ModelInferRequest* m) { m->add_raw_input_contents("xxxx"); },
       "expected 1 raw_input_contents (one per input, in order), got 2"},
      {"raw and contents", [](ModelInferRequest* m) { m->mutable_inputs(0)->mutable_contents()->add_fp32_contents(1); },
       "input 'x': has contents, but the request carries raw_input_contents; expected one or the other for all "
       "inputs"},
      {"raw size", [](ModelInferRequest* m) { m->mutable_raw_input_contents(0)->resize(7); },
       "input 'x': expected 8 bytes for FP32 shape 1x2 in its raw contents, got 7"},
      {"shape", [](ModelInferRequest* m) { m->mutable_inputs(0)->set_shape(1, -2); },
       "input 'x': shape 1x-2: expected non-negative dimensions"},
      {"datatype", [](ModelInferRequest* m) { m->mutable_inputs(0)->set_datatype("FLOAT32"); },
       "input 'x': unknown datatype 'FLOAT32', expected one of BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, "
       "INT32, INT64, FP16, BF16, FP32, FP64, BYTES"},
      {"lower-case datatype", [](ModelInferRequest* m) { m->mutable_inputs(0)->set_datatype("fp32"); },
       "input 'x': unknown datatype 'fp32', expected one of BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, "
       "INT32, INT64, FP16, BF16, FP32, FP64, BYTES"},
      // Two floats' raw bytes read as a BYTES length prefix: a length far past the data.
      {"bytes", [](ModelInferRequest* m) { m->mutable_inputs(0)->set_datatype("BYTES"); },
       "input 'x': BYTES element 0: length 1065353216 runs past the end of the data (4 bytes left) (raw contents)"},
      {"empty name", [](ModelInferRequest* m) { m->mutable_inputs(0)->set_name(""); },
       "input 0: expected a name"},
      {"duplicate", [](ModelInferRequest* m) {
         *m->add_inputs() = m->inputs(0);
         m->add_raw_input_contents(m->raw_input_contents(0));
       }, "input 'x': given twice"},
      {"no data", [](ModelInferRequest* m) { m->clear_raw_input_contents(); },
       "input 'x': no data, expected raw_input_contents or contents"},
      {"output name", [](ModelInferRequest* m) { m->add_outputs(); }, "requested output 0: expected a name"},
      {"output twice", [](ModelInferRequest* m) {
         m->add_outputs()->set_name("y");
         m->add_outputs()->set_name("y");
       }, "requested output 'y': given twice"},
      {"classification", [](ModelInferRequest* m) {
         (*m->add_outputs()->mutable_parameters())["classification"].set_int64_param(0);
         m->mutable_outputs(0)->set_name("y");
       }, "requested output 'y': parameter 'classification': expected a count of classes >= 1, got 0"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ModelInferRequest m = SimpleRequest();
    c.mutate(&m);
    Status s = ErrorOf(m);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(InferCodecTest, ResponseOfEveryTypeAsRawOutputs) {
  InferenceResponse response{"all_types", 4, "req-9", {}};
  for (DataType type : kFixedTypes) {
    Tensor t = *Tensor::Allocate(type, {1, 3});
    for (size_t i = 0; i < t.byte_size(); i += ElementSize(type)) t.mutable_data()[i] = std::byte{1};
    response.outputs.push_back({"out_" + std::string(DataTypeName(type)), t});
  }
  ModelInferResponse m;
  m.add_raw_output_contents("stale");  // cleared first
  ASSERT_TRUE(ToModelInferResponse(response, &m).ok());
  EXPECT_EQ(m.model_name(), "all_types");
  EXPECT_EQ(m.model_version(), "4");
  EXPECT_EQ(m.id(), "req-9");
  ASSERT_EQ(m.outputs_size(), static_cast<int>(std::size(kFixedTypes)));
  ASSERT_EQ(m.raw_output_contents_size(), m.outputs_size());
  for (int i = 0; i < m.outputs_size(); ++i) {
    SCOPED_TRACE(m.outputs(i).name());
    EXPECT_EQ(m.outputs(i).name(), response.outputs[static_cast<size_t>(i)].name);
    EXPECT_EQ(m.outputs(i).datatype(), DataTypeName(kFixedTypes[i]));
    EXPECT_THAT(m.outputs(i).shape(), ::testing::ElementsAre(1, 3));
    EXPECT_EQ(m.raw_output_contents(i), Bytes(response.outputs[static_cast<size_t>(i)].tensor));
    EXPECT_FALSE(m.outputs(i).has_contents());
  }
}

TEST(InferCodecTest, ResponseWithAnEmptyTensorIsAServerBug) {
  InferenceResponse response{"m", 1, "", {{"y", Tensor()}}};
  ModelInferResponse m;
  Status s = ToModelInferResponse(response, &m);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("output 'y'"));
}

}  // namespace
}  // namespace hone::serve::grpc_front
