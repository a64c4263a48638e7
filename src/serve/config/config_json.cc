#include "serve/config/config_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>

#include <charconv>
#include <nlohmann/json.hpp>

namespace hone::serve {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Json = nlohmann::ordered_json;

bool Is64Bit(const FieldDescriptor* f) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      return true;
    default:
      return false;
  }
}

// "123" -> 123 for a 64-bit field's value; anything else is left as it is.
void Unquote(const FieldDescriptor* f, Json& value) {
  if (!value.is_string()) return;
  const std::string& s = value.get_ref<const std::string&>();
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_INT64) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) value = v;
  } else {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) value = v;
  }
}

void FixMessage(const Descriptor* type, Json& object);

// One field's JSON value: recurse into messages (and map values), unquote 64-bit integers.
void FixField(const FieldDescriptor* f, Json& value) {
  if (f->is_map()) {
    const FieldDescriptor* value_field = f->message_type()->map_value();
    if (!value.is_object()) return;
    for (auto& [key, item] : value.items()) FixField(value_field, item);
    return;
  }
  if (f->is_repeated() && value.is_array()) {
    for (Json& item : value) {
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) FixMessage(f->message_type(), item);
      else if (Is64Bit(f)) Unquote(f, item);
    }
    return;
  }
  if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) FixMessage(f->message_type(), value);
  else if (Is64Bit(f)) Unquote(f, value);
}

void FixMessage(const Descriptor* type, Json& object) {
  if (!object.is_object()) return;
  for (int i = 0; i < type->field_count(); ++i) {
    const FieldDescriptor* f = type->field(i);
    auto it = object.find(f->name());
    if (it != object.end()) FixField(f, *it);
  }
}

}  // namespace

std::string ModelConfigToJson(const inference::ModelConfig& config) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  if (!google::protobuf::util::MessageToJsonString(config, &text, options).ok()) return "{}";
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return text;
  FixMessage(inference::ModelConfig::descriptor(), json);
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace hone::serve
