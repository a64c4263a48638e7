#include "serve/http/infer_response_codec.h"

#include "client/json_writer.h"
#include "client/tensor_json.h"

namespace hone::serve::http {

bool ResponseFormat::BinaryFor(std::string_view output_name) const {
  for (const auto& [name, binary] : binary_by_output)
    if (name == output_name) return binary;
  return binary_default;
}

size_t EncodedInferResponse::body_size() const {
  size_t n = json.size();
  for (const auto& b : binary) n += b.size();
  return n;
}

Result<EncodedInferResponse> EncodeInferResponse(InferenceResponse response, const ResponseFormat& format) {
  auto owned = std::make_shared<const InferenceResponse>(std::move(response));
  EncodedInferResponse out;

  // Reserve roughly what the JSON will take, so that large JSON outputs grow the string once or twice at most.
  size_t estimate = 128 + owned->model_name.size() + owned->id.size();
  for (const auto& o : owned->outputs) {
    estimate += 96 + o.name.size() + 12 * o.tensor.shape().size();
    if (!format.BinaryFor(o.name))
      estimate += o.tensor.type() == DataType::kBytes ? o.tensor.byte_size()
                                                      : 14 * static_cast<size_t>(o.tensor.element_count());
  }
  out.json.reserve(estimate);

  client::JsonWriter w(out.json);
  w.BeginObject();
  if (!owned->id.empty()) w.Field("id", owned->id);
  w.Field("model_name", owned->model_name);
  w.Field("model_version", std::to_string(owned->model_version));
  w.Key("outputs");
  w.BeginArray();
  for (const auto& o : owned->outputs) {
    const Tensor& t = o.tensor;
    if (t.type() == DataType::kInvalid)
      return Status::Internal("output '" + o.name + "': cannot serialize a tensor of type " +
                              std::string(DataTypeName(t.type())));
    w.BeginObject();
    w.Field("name", o.name);
    w.Field("datatype", DataTypeName(t.type()));
    w.Key("shape");
    w.BeginArray();
    for (int64_t d : t.shape()) w.Int(d);
    w.EndArray();
    if (format.BinaryFor(o.name)) {
      out.has_binary = true;
      w.Key("parameters");
      w.BeginObject();
      w.Field("binary_data_size", static_cast<uint64_t>(t.byte_size()));
      w.EndObject();
      if (t.byte_size() > 0) out.binary.emplace_back(t.data(), t.byte_size());
    } else {
      w.Key("data");
      client::WriteJsonTensorData(w, t);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  out.keep_alive = std::move(owned);
  return out;
}

}  // namespace hone::serve::http
