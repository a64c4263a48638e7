#include "process/tokenizer_json.h"

#include "process/tokenizer_regex.h"

namespace hone::process {

std::string JsonPath(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string out(path);
  out.push_back('.');
  out.append(key);
  return out;
}

std::string JsonPath(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string JsonTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "object";
    case Json::value_t::array: return "array";
    case Json::value_t::string: return "string";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "integer";
    case Json::value_t::number_float: return "number";
    default: return "other";
  }
}

namespace {

Status Expected(std::string_view path, std::string_view key, std::string_view what, const Json& got) {
  return Status::InvalidArgument(JsonPath(path, key) + ": expected " + std::string(what) + ", got " +
                                 JsonTypeName(got));
}

// The value at obj[key], or null when obj is not an object or has no such key.
const Json* Find(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace

Result<const Json*> RequiredField(const Json& obj, std::string_view key, std::string_view path) {
  if (!obj.is_object()) {
    return Status::InvalidArgument(std::string(path.empty() ? "top level" : path) + ": expected an object, got " +
                                   JsonTypeName(obj));
  }
  const Json* v = Find(obj, key);
  if (v == nullptr) return Status::InvalidArgument(JsonPath(path, key) + ": missing");
  return v;
}

Result<std::string> RequiredString(const Json& obj, std::string_view key, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const Json* v, RequiredField(obj, key, path));
  if (!v->is_string()) return Expected(path, key, "a string", *v);
  return v->get<std::string>();
}

Result<std::optional<std::string>> OptionalString(const Json& obj, std::string_view key, std::string_view path) {
  const Json* v = Find(obj, key);
  if (v == nullptr || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return Expected(path, key, "a string or null", *v);
  return std::optional<std::string>(v->get<std::string>());
}

Result<bool> OptionalBool(const Json& obj, std::string_view key, std::string_view path, bool fallback) {
  const Json* v = Find(obj, key);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_boolean()) return Expected(path, key, "true or false", *v);
  return v->get<bool>();
}

Result<int64_t> RequiredInt(const Json& obj, std::string_view key, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const Json* v, RequiredField(obj, key, path));
  if (!v->is_number_integer()) return Expected(path, key, "an integer", *v);
  return v->get<int64_t>();
}

Result<std::optional<int64_t>> OptionalInt(const Json& obj, std::string_view key, std::string_view path) {
  const Json* v = Find(obj, key);
  if (v == nullptr || v->is_null()) return std::optional<int64_t>();
  if (!v->is_number_integer()) return Expected(path, key, "an integer or null", *v);
  return std::optional<int64_t>(v->get<int64_t>());
}

Result<const Json*> RequiredArray(const Json& obj, std::string_view key, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const Json* v, RequiredField(obj, key, path));
  if (!v->is_array()) return Expected(path, key, "an array", *v);
  return v;
}

Result<const Json*> RequiredObject(const Json& obj, std::string_view key, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(const Json* v, RequiredField(obj, key, path));
  if (!v->is_object()) return Expected(path, key, "an object", *v);
  return v;
}

Result<std::string> ComponentType(const Json& component, std::string_view path) {
  if (!component.is_object()) {
    return Status::InvalidArgument(std::string(path) + ": expected an object with a \"type\", got " +
                                   JsonTypeName(component));
  }
  return RequiredString(component, "type", path);
}

Status UnsupportedType(std::string_view path, std::string_view type, std::string_view supported) {
  return Status::InvalidArgument(JsonPath(path, "type") + " '" + std::string(type) + "' is not supported (" +
                                 std::string(supported) + ")");
}

Result<std::unique_ptr<Pattern>> ParsePatternJson(const Json& json, std::string_view path) {
  if (json.is_object() && json.size() == 1) {
    if (auto it = json.find("String"); it != json.end() && it->is_string()) {
      return Pattern::Literal(it->get<std::string>());
    }
    if (auto it = json.find("Regex"); it != json.end() && it->is_string()) {
      return Pattern::Regex(it->get<std::string>(), JsonPath(path, "Regex"));
    }
  }
  return Status::InvalidArgument(std::string(path) + ": expected {\"String\": ...} or {\"Regex\": ...}, got " +
                                 json.dump().substr(0, 80));
}

}  // namespace hone::process
