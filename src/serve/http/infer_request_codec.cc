#include "serve/http/infer_request_codec.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "client/json_nonfinite.h"
#include "client/tensor_json.h"

namespace hone::serve::http {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Headers up to this size parse with a parser kept per thread (its buffers reused across requests); larger ones
// get a parser of their own, so that one huge JSON request does not pin its buffers to an io thread for good.
constexpr size_t kReusedParserLimit = size_t{1} << 20;

Status Bad(std::string message) { return Status::InvalidArgument(std::move(message)); }

std::string Quote(std::string_view s) {
  std::string q;
  q.reserve(s.size() + 2);
  q += '\'';
  q += s;
  q += '\'';
  return q;
}

// One entry of "inputs" before its data is looked at.
struct InputHeader {
  std::string name;
  DataType type = DataType::kInvalid;
  Shape shape;
  int64_t elements = 0;
  std::optional<uint64_t> binary_size;
  std::optional<element> data;
};

Result<uint64_t> AsUint(const element& e, std::string_view what) {
  if (e.type() == element_type::INT64 && e.get_int64().value_unsafe() >= 0)
    return static_cast<uint64_t>(e.get_int64().value_unsafe());
  if (e.type() == element_type::UINT64) return e.get_uint64().value_unsafe();
  return Bad(std::string(what) + ": expected a non-negative integer, got " + simdjson::minify(e));
}

Result<bool> AsBool(const element& e, std::string_view what) {
  if (e.type() != element_type::BOOL) return Bad(std::string(what) + ": expected true or false, got " +
                                                 simdjson::minify(e));
  return e.get_bool().value_unsafe();
}

Status ParseRequestParameters(const element& params, DecodedInferRequest& out) {
  object obj;
  if (params.get_object().get(obj)) return Bad("'parameters' must be an object");
  for (auto [key, value] : obj) {
    if (key == "binary_data_output") {
      HONE_ASSIGN_OR_RETURN(out.format.binary_default, AsBool(value, "parameter 'binary_data_output'"));
    } else if (key == "priority") {
      HONE_ASSIGN_OR_RETURN(uint64_t p, AsUint(value, "parameter 'priority'"));
      if (p > std::numeric_limits<uint32_t>::max()) return Bad("parameter 'priority': expected at most 4294967295");
      out.request.priority = static_cast<uint32_t>(p);
    } else if (key == "timeout") {
      HONE_ASSIGN_OR_RETURN(out.request.timeout_us, AsUint(value, "parameter 'timeout' (microseconds)"));
    } else if (key == "sequence_id" || key == "sequence_start" || key == "sequence_end") {
      const bool unset = (value.type() == element_type::BOOL && !value.get_bool().value_unsafe()) ||
                         (value.type() == element_type::INT64 && value.get_int64().value_unsafe() == 0) ||
                         (value.type() == element_type::STRING && value.get_string().value_unsafe().empty());
      if (!unset) return Bad("parameter " + Quote(key) + ": sequence batching is not supported");
    }
    // Other keys are model parameters in KServe v2; hone's models take none, so they are ignored.
  }
  return Status::Ok();
}

Result<InputHeader> ParseInputHeader(const element& e, size_t index) {
  InputHeader in;
  object obj;
  if (e.get_object().get(obj)) return Bad("inputs[" + std::to_string(index) + "]: expected an object");
  std::string_view name;
  if (obj["name"].get_string().get(name) || name.empty())
    return Bad("inputs[" + std::to_string(index) + "]: expected a non-empty string 'name'");
  in.name = std::string(name);
  const std::string who = "input " + Quote(name);

  std::string_view datatype;
  if (obj["datatype"].get_string().get(datatype)) return Bad(who + ": expected a string 'datatype'");
  auto type = ParseDataType(datatype);
  if (!type || *type == DataType::kInvalid)
    return Bad(who + ": unknown datatype " + Quote(datatype) +
               "; expected BOOL, UINT8..UINT64, INT8..INT64, FP16, BF16, FP32, FP64 or BYTES");
  in.type = *type;

  array shape;
  if (obj["shape"].get_array().get(shape)) return Bad(who + ": expected an array 'shape'");
  for (element d : shape) {
    if (d.type() != element_type::INT64 || d.get_int64().value_unsafe() < 0)
      return Bad(who + ": shape dimension " + std::to_string(in.shape.size()) + " is " + simdjson::minify(d) +
                 "; expected a non-negative integer");
    in.shape.push_back(d.get_int64().value_unsafe());
  }
  auto elements = ElementCount(in.shape);
  if (!elements) return Bad(who + ": shape " + ShapeToString(in.shape) + " has more elements than an int64 holds");
  in.elements = *elements;

  element params;
  if (obj["parameters"].get(params) == simdjson::SUCCESS) {
    object pobj;
    if (params.get_object().get(pobj)) return Bad(who + ": 'parameters' must be an object");
    for (auto [key, value] : pobj) {
      if (key == "binary_data_size") {
        HONE_ASSIGN_OR_RETURN(in.binary_size, AsUint(value, who + ": parameter 'binary_data_size'"));
      } else if (key.starts_with("shared_memory")) {
        return Bad(who + ": parameter " + Quote(key) + ": the shared memory extension is not supported");
      }
    }
  }
  element data;
  if (obj["data"].get(data) == simdjson::SUCCESS) in.data = data;
  if (in.data && in.binary_size) return Bad(who + ": has both 'data' and parameter 'binary_data_size'");
  if (!in.data && !in.binary_size) return Bad(who + ": expected 'data' or parameter 'binary_data_size'");
  return in;
}

Status ParseOutputs(const element& outputs, DecodedInferRequest& out) {
  array arr;
  if (outputs.get_array().get(arr)) return Bad("'outputs' must be an array");
  std::unordered_set<std::string_view> seen;
  size_t index = 0;
  for (element e : arr) {
    object obj;
    std::string_view name;
    if (e.get_object().get(obj) || obj["name"].get_string().get(name) || name.empty())
      return Bad("outputs[" + std::to_string(index) + "]: expected an object with a non-empty string 'name'");
    const std::string who = "output " + Quote(name);
    if (!seen.insert(name).second) return Bad(who + ": requested twice");
    element params;
    if (obj["parameters"].get(params) == simdjson::SUCCESS) {
      object pobj;
      if (params.get_object().get(pobj)) return Bad(who + ": 'parameters' must be an object");
      for (auto [key, value] : pobj) {
        if (key == "binary_data") {
          HONE_ASSIGN_OR_RETURN(bool binary, AsBool(value, who + ": parameter 'binary_data'"));
          out.format.binary_by_output.emplace_back(std::string(name), binary);
        } else if (key == "classification") {
          HONE_ASSIGN_OR_RETURN(uint64_t k, AsUint(value, who + ": parameter 'classification'"));
          if (k == 0 || k > std::numeric_limits<uint32_t>::max())
            return Bad(who + ": parameter 'classification': expected a count of classes >= 1");
          out.request.classifications.emplace_back(std::string(name), static_cast<uint32_t>(k));
        } else if (key.starts_with("shared_memory")) {
          return Bad(who + ": parameter " + Quote(key) + ": the shared memory extension is not supported");
        }
      }
    }
    out.request.requested_outputs.emplace_back(name);
    ++index;
  }
  return Status::Ok();
}

// Checked byte size of `in`'s fixed-size data; InvalidArgument when it does not fit in 64 bits.
Result<uint64_t> FixedByteSize(const InputHeader& in) {
  const uint64_t elem = ElementSize(in.type);
  if (in.elements > 0 && static_cast<uint64_t>(in.elements) > std::numeric_limits<uint64_t>::max() / elem)
    return Bad("input " + Quote(in.name) + ": shape " + ShapeToString(in.shape) + " of " +
               std::string(DataTypeName(in.type)) + " is larger than 2^64 bytes");
  return static_cast<uint64_t>(in.elements) * elem;
}

// The tensor for a binary input: a view when the bytes are aligned for the element type, else a copy.
Result<Tensor> BinaryTensor(const InputHeader& in, const std::byte* bytes, size_t size) {
  HONE_ASSIGN_OR_RETURN(uint64_t expected, FixedByteSize(in));
  if (expected != size)
    return Bad("input " + Quote(in.name) + ": binary_data_size is " + std::to_string(size) + " bytes, expected " +
               std::to_string(expected) + " (shape " + ShapeToString(in.shape) + " of " +
               std::string(DataTypeName(in.type)) + ")");
  if (reinterpret_cast<uintptr_t>(bytes) % ElementSize(in.type) == 0)
    return Tensor::Borrow(in.type, in.shape, const_cast<std::byte*>(bytes), size);
  HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(in.type, in.shape));
  if (size) std::memcpy(t.mutable_data(), bytes, size);
  return t;
}

Result<Tensor> JsonTensor(const InputHeader& in) {
  const int64_t count = client::CountJsonElements(*in.data);
  if (in.data->type() == element_type::ARRAY && count != in.elements)
    return Bad("input " + Quote(in.name) + ": expected " + std::to_string(in.elements) +
               " elements in 'data' (shape " + ShapeToString(in.shape) + "), got " + std::to_string(count));
  // The count matches the JSON, so the allocation is bounded by the body size.
  HONE_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(in.type, in.shape));
  HONE_RETURN_IF_ERROR(client::ReadJsonTensorData(*in.data, in.type, in.elements, t.mutable_data(), in.name));
  return t;
}

// A BYTES input: binary data is already in the tensor's layout (a view, checked element by element); JSON strings
// are copied out of the parser's buffer.
Result<Tensor> BytesTensor(const InputHeader& in, std::span<const std::byte> binary) {
  Result<Tensor> t = in.binary_size
                         ? Tensor::Borrow(DataType::kBytes, in.shape, const_cast<std::byte*>(binary.data()),
                                          binary.size())
                         : client::ReadJsonBytesTensor(*in.data, in.shape, in.elements, in.name);
  if (!t.ok() && in.binary_size) return Bad("input " + Quote(in.name) + ": " + t.status().message());
  return t;
}

Result<element> ParseJson(const InferBody& body, size_t json_size, simdjson::dom::parser& parser) {
  element root;
  if (Status s = client::ParseJsonDocument(parser, reinterpret_cast<const char*>(body.bytes.data()), json_size,
                                           body.readable, &root);
      !s.ok())
    return Bad("malformed JSON in the inference request: " + s.message());
  if (root.type() != element_type::OBJECT) return Bad("the inference request must be a JSON object");
  return root;
}

Status Decode(const InferBody& body, size_t json_size, simdjson::dom::parser& parser, DecodedInferRequest& out) {
  HONE_ASSIGN_OR_RETURN(element root, ParseJson(body, json_size, parser));
  object obj = root.get_object().value_unsafe();

  element field;
  if (obj["id"].get(field) == simdjson::SUCCESS) {
    std::string_view id;
    if (field.get_string().get(id)) return Bad("'id' must be a string");
    out.request.id = std::string(id);
  }
  if (obj["parameters"].get(field) == simdjson::SUCCESS) HONE_RETURN_IF_ERROR(ParseRequestParameters(field, out));

  array inputs;
  if (obj["inputs"].get(field) != simdjson::SUCCESS) return Bad("the inference request has no 'inputs'");
  if (field.get_array().get(inputs)) return Bad("'inputs' must be an array");

  std::unordered_set<std::string> names;
  size_t offset = json_size;  // where the next binary input starts
  size_t index = 0;
  for (element e : inputs) {
    HONE_ASSIGN_OR_RETURN(InputHeader in, ParseInputHeader(e, index++));
    if (!names.insert(in.name).second) return Bad("input " + Quote(in.name) + ": given twice");
    std::span<const std::byte> binary;
    if (in.binary_size) {
      if (!body.header_length)
        return Bad("input " + Quote(in.name) +
                   ": binary_data_size given but the request has no Inference-Header-Content-Length header");
      const size_t left = body.bytes.size() - offset;
      if (*in.binary_size > left)
        return Bad("input " + Quote(in.name) + ": binary_data_size is " + std::to_string(*in.binary_size) +
                   " bytes but only " + std::to_string(left) + " bytes of the body are left");
      binary = body.bytes.subspan(offset, static_cast<size_t>(*in.binary_size));
      offset += binary.size();
    }
    Result<Tensor> tensor = in.type == DataType::kBytes ? BytesTensor(in, binary)
                            : in.binary_size          ? BinaryTensor(in, binary.data(), binary.size())
                                                      : JsonTensor(in);
    if (!tensor.ok()) return tensor.status();
    out.request.inputs.push_back({std::move(in.name), std::move(tensor).value()});
  }
  if (offset != body.bytes.size())
    return Bad(std::to_string(body.bytes.size() - offset) +
               " unexpected bytes after the JSON header and the binary inputs it describes");

  if (obj["outputs"].get(field) == simdjson::SUCCESS) HONE_RETURN_IF_ERROR(ParseOutputs(field, out));
  return Status::Ok();
}

}  // namespace

Result<DecodedInferRequest> DecodeInferRequest(const InferBody& body) {
  size_t json_size = body.bytes.size();
  if (body.header_length) {
    if (*body.header_length > body.bytes.size())
      return Bad("Inference-Header-Content-Length is " + std::to_string(*body.header_length) +
                 " but the body has only " + std::to_string(body.bytes.size()) + " bytes");
    if (*body.header_length == 0)
      return Bad("Inference-Header-Content-Length is 0: a request without a JSON header is not supported");
    json_size = static_cast<size_t>(*body.header_length);
  }
  if (json_size == 0) return Bad("the inference request body is empty");

  DecodedInferRequest out;
  Status s;
  if (json_size <= kReusedParserLimit) {
    thread_local simdjson::dom::parser parser;
    s = Decode(body, json_size, parser, out);
  } else {
    simdjson::dom::parser parser;
    s = Decode(body, json_size, parser, out);
  }
  if (!s.ok()) return s;
  out.request.keep_alive = body.owner;
  return out;
}

}  // namespace hone::serve::http
