#include "client/http_client_codec.h"

#include <simdjson.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>
#include <string>

#include "client/http_status.h"
#include "client/json_nonfinite.h"
#include "client/json_writer.h"
#include "client/tensor_json.h"

namespace hone::client {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

Status Bad(std::string message) { return Status::InvalidArgument("server reply: " + std::move(message)); }

Result<element> Parse(simdjson::dom::parser& parser, const char* data, size_t size, size_t readable) {
  element root;
  if (Status s = ParseJsonDocument(parser, data, size, readable, &root); !s.ok())
    return Bad("malformed JSON: " + s.message());
  return root;
}

// The member as an unsigned integer; 0 when absent or of another type (statistics are monitoring data: a
// missing counter reads as zero rather than failing the whole reply).
uint64_t UintField(const object& o, std::string_view key) {
  uint64_t v = 0;
  if (o[key].get_uint64().get(v)) return 0;
  return v;
}

DurationStat Duration(const object& parent, std::string_view key) {
  DurationStat d;
  object o;
  if (parent[key].get_object().get(o)) return d;
  d.count = UintField(o, "count");
  d.ns = UintField(o, "ns");
  return d;
}

Result<std::vector<TensorMetadata>> TensorList(const object& parent, std::string_view key) {
  std::vector<TensorMetadata> out;
  simdjson::dom::array arr;
  if (parent[key].get_array().get(arr)) return out;
  for (element e : arr) {
    TensorMetadata t;
    std::string_view name, datatype;
    simdjson::dom::array shape;
    if (e[std::string_view("name")].get_string().get(name) || e["datatype"].get_string().get(datatype) ||
        e["shape"].get_array().get(shape))
      return Bad("metadata '" + std::string(key) + "': expected name, datatype and shape");
    t.name = std::string(name);
    t.type = ParseDataType(datatype).value_or(DataType::kInvalid);
    for (element d : shape) {
      int64_t v = 0;
      if (d.get_int64().get(v)) return Bad("metadata of '" + t.name + "': a non-integer dimension");
      t.shape.push_back(v);
    }
    out.push_back(std::move(t));
  }
  return out;
}

Result<int64_t> ParseVersion(const element& e) {
  std::string_view text;
  int64_t v = 0;
  if (e.get_int64().get(v) == simdjson::SUCCESS) return v;
  if (e.get_string().get(text)) return Bad("'version' is neither a string nor a number");
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return Bad("version '" + std::string(text) + "'");
  return v;
}

// A BYTES output: its binary part (the length-prefixed layout, checked against the shape) or its JSON strings, as
// a tensor that owns its bytes. Advances `offset` past a binary part.
Result<Tensor> ReadBytesOutput(const simdjson::dom::element& e, std::string_view name, const Shape& shape,
                               std::span<const std::byte> body, size_t& offset) {
  uint64_t binary_size = 0;
  if (e["parameters"]["binary_data_size"].get_uint64().get(binary_size) == simdjson::SUCCESS) {
    if (binary_size > body.size() - offset)
      return Bad("output '" + std::string(name) + "': binary_data_size " + std::to_string(binary_size) +
                 " runs past the body");
    auto view = Tensor::Borrow(DataType::kBytes, shape, const_cast<std::byte*>(body.data() + offset), binary_size);
    if (!view.ok()) return Bad("output '" + std::string(name) + "': " + view.status().message());
    offset += binary_size;
    return view->Clone();
  }
  simdjson::dom::element data;
  if (e["data"].get(data)) return Bad("output '" + std::string(name) + "': neither data nor binary_data_size");
  auto count = ElementCount(shape);
  if (!count) return Bad("output '" + std::string(name) + "': bad shape");
  return ReadJsonBytesTensor(data, shape, *count, name);
}

}  // namespace

Status EncodeInferRequest(std::span<const NamedTensor> inputs, const ClientInferOptions& options, std::string& json,
                          std::vector<std::span<const std::byte>>& binary) {
  json.clear();
  binary.clear();
  JsonWriter w(json);
  w.BeginObject();
  if (!options.id.empty()) w.Field("id", options.id);
  if (options.binary_outputs) {
    w.Key("parameters");
    w.BeginObject();
    w.Field("binary_data_output", true);
    w.EndObject();
  }
  w.Key("inputs");
  w.BeginArray();
  for (const auto& in : inputs) {
    const Tensor& t = in.tensor;
    if (t.empty()) return Status::InvalidArgument("input '" + in.name + "': expected a tensor");
    w.BeginObject();
    w.Field("name", in.name);
    w.Field("datatype", DataTypeName(t.type()));
    w.Key("shape");
    w.BeginArray();
    for (int64_t d : t.shape()) w.Int(d);
    w.EndArray();
    if (options.binary_inputs) {
      w.Key("parameters");
      w.BeginObject();
      w.Field("binary_data_size", static_cast<uint64_t>(t.byte_size()));
      w.EndObject();
      if (t.byte_size()) binary.emplace_back(t.data(), t.byte_size());
    } else {
      w.Key("data");
      WriteJsonTensorData(w, t);
    }
    w.EndObject();
  }
  w.EndArray();
  if (!options.outputs.empty()) {
    w.Key("outputs");
    w.BeginArray();
    for (const auto& name : options.outputs) {
      w.BeginObject();
      w.Field("name", name);
      w.Key("parameters");
      w.BeginObject();
      w.Field("binary_data", options.binary_outputs);
      w.EndObject();
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return Status::Ok();
}

Result<InferenceResponse> DecodeInferResponse(std::span<const std::byte> body, size_t readable,
                                              std::optional<uint64_t> header_length) {
  const size_t json_size = header_length ? static_cast<size_t>(*header_length) : body.size();
  if (json_size > body.size()) return Bad("Inference-Header-Content-Length is larger than the body");
  thread_local simdjson::dom::parser parser;
  HONE_ASSIGN_OR_RETURN(element root, Parse(parser, reinterpret_cast<const char*>(body.data()), json_size, readable));
  object obj;
  if (root.get_object().get(obj)) return Bad("expected a JSON object");

  InferenceResponse response;
  std::string_view text;
  if (!obj["model_name"].get_string().get(text)) response.model_name = std::string(text);
  if (!obj["id"].get_string().get(text)) response.id = std::string(text);
  element version;
  if (obj["model_version"].get(version) == simdjson::SUCCESS) {
    HONE_ASSIGN_OR_RETURN(response.model_version, ParseVersion(version));
  }
  simdjson::dom::array outputs;
  if (obj["outputs"].get_array().get(outputs)) return Bad("expected an 'outputs' array");
  size_t offset = json_size;
  for (element e : outputs) {
    std::string_view name, datatype;
    simdjson::dom::array shape_json;
    if (e["name"].get_string().get(name) || e["datatype"].get_string().get(datatype) ||
        e["shape"].get_array().get(shape_json))
      return Bad("an output without name, datatype or shape");
    auto type = ParseDataType(datatype);
    if (!type || *type == DataType::kInvalid)
      return Bad("output '" + std::string(name) + "': unsupported datatype '" + std::string(datatype) + "'");
    Shape shape;
    for (element d : shape_json) {
      int64_t v = -1;
      if (d.get_int64().get(v) || v < 0) return Bad("output '" + std::string(name) + "': bad shape");
      shape.push_back(v);
    }
    uint64_t binary_size = 0;
    if (*type == DataType::kBytes) {
      HONE_ASSIGN_OR_RETURN(Tensor t, ReadBytesOutput(e, name, shape, body, offset));
      response.outputs.push_back({std::string(name), std::move(t)});
      continue;
    }
    HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(*type, shape));
    if (e["parameters"]["binary_data_size"].get_uint64().get(binary_size) == simdjson::SUCCESS) {
      if (binary_size != t.byte_size() || binary_size > body.size() - offset)
        return Bad("output '" + std::string(name) + "': binary_data_size " + std::to_string(binary_size) +
                   " does not match its shape or the body");
      if (binary_size) std::memcpy(t.mutable_data(), body.data() + offset, binary_size);
      offset += binary_size;
    } else {
      element data;
      if (e["data"].get(data)) return Bad("output '" + std::string(name) + "': neither data nor binary_data_size");
      HONE_RETURN_IF_ERROR(ReadJsonTensorData(data, *type, t.element_count(), t.mutable_data(), name));
    }
    response.outputs.push_back({std::string(name), std::move(t)});
  }
  if (offset != body.size()) return Bad(std::to_string(body.size() - offset) + " unexpected bytes after the outputs");
  return response;
}

Status ErrorFromReply(int http_status, std::string_view body) {
  std::string message;
  simdjson::dom::parser parser;
  element root;
  std::string_view error;
  if (!parser.parse(body.data(), body.size()).get(root) && !root["error"].get_string().get(error)) {
    message = std::string(error);
  } else {
    message = body.empty() ? "HTTP status " + std::to_string(http_status) : std::string(body);
  }
  StatusCode code = StatusCodeForHttp(http_status);
  if (code == StatusCode::kOk) code = StatusCode::kUnknown;
  return Status(code, std::move(message));
}

Result<std::vector<ModelStatsSnapshot>> ParseStatisticsJson(std::string_view json) {
  simdjson::dom::parser parser;
  HONE_ASSIGN_OR_RETURN(element root, Parse(parser, json.data(), json.size(), 0));
  simdjson::dom::array stats;
  if (root["model_stats"].get_array().get(stats)) return Bad("statistics without 'model_stats'");
  std::vector<ModelStatsSnapshot> out;
  for (element e : stats) {
    object o;
    if (e.get_object().get(o)) return Bad("a model_stats entry that is not an object");
    ModelStatsSnapshot s;
    std::string_view name;
    if (!o["name"].get_string().get(name)) s.name = std::string(name);
    element version;
    if (o["version"].get(version) == simdjson::SUCCESS) {
      HONE_ASSIGN_OR_RETURN(s.version, ParseVersion(version));
    }
    s.last_inference_ms = UintField(o, "last_inference");
    s.inference_count = UintField(o, "inference_count");
    s.execution_count = UintField(o, "execution_count");
    object is;
    if (!o["inference_stats"].get_object().get(is)) {
      s.success = Duration(is, "success");
      s.fail = Duration(is, "fail");
      s.queue = Duration(is, "queue");
      s.compute_input = Duration(is, "compute_input");
      s.compute_infer = Duration(is, "compute_infer");
      s.compute_output = Duration(is, "compute_output");
    }
    simdjson::dom::array batches;
    if (!o["batch_stats"].get_array().get(batches)) {
      for (element b : batches) {
        object bo;
        if (b.get_object().get(bo)) continue;
        BatchSizeStats bs;
        bs.batch_size = static_cast<int64_t>(UintField(bo, "batch_size"));
        bs.compute_input = Duration(bo, "compute_input");
        bs.compute_infer = Duration(bo, "compute_infer");
        bs.compute_output = Duration(bo, "compute_output");
        s.batch_stats.push_back(bs);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<ModelMetadataInfo> ParseModelMetadataJson(std::string_view json) {
  simdjson::dom::parser parser;
  HONE_ASSIGN_OR_RETURN(element root, Parse(parser, json.data(), json.size(), 0));
  object o;
  if (root.get_object().get(o)) return Bad("model metadata is not a JSON object");
  ModelMetadataInfo info;
  std::string_view text;
  if (!o["name"].get_string().get(text)) info.name = std::string(text);
  if (!o["platform"].get_string().get(text)) info.platform = std::string(text);
  simdjson::dom::array versions;
  if (!o["versions"].get_array().get(versions))
    for (element v : versions)
      if (!v.get_string().get(text)) info.versions.emplace_back(text);
  HONE_ASSIGN_OR_RETURN(info.inputs, TensorList(o, "inputs"));
  HONE_ASSIGN_OR_RETURN(info.outputs, TensorList(o, "outputs"));
  return info;
}

std::string PercentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace hone::client
