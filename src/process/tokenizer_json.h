// Reading fields of a tokenizer.json with errors that name the JSON path and what was expected, e.g.
// "model.vocab: expected an object, got array" or "pre_tokenizer.type 'Metaspace' is not supported (...)".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace hone::process {

using Json = nlohmann::json;

// "path.key" ("key" at the top level) and "path[i]".
std::string JsonPath(std::string_view path, std::string_view key);
std::string JsonPath(std::string_view path, size_t index);

// The JSON type of `value` in words ("string", "object", "null", ...).
std::string JsonTypeName(const Json& value);

// Each getter reads obj[key] (obj must be an object; path is obj's own path). "Optional" getters accept a missing
// key or null and return the default; the others fail when the key is missing.
Result<const Json*> RequiredField(const Json& obj, std::string_view key, std::string_view path);
Result<std::string> RequiredString(const Json& obj, std::string_view key, std::string_view path);
Result<std::optional<std::string>> OptionalString(const Json& obj, std::string_view key, std::string_view path);
Result<bool> OptionalBool(const Json& obj, std::string_view key, std::string_view path, bool fallback);
Result<int64_t> RequiredInt(const Json& obj, std::string_view key, std::string_view path);
Result<std::optional<int64_t>> OptionalInt(const Json& obj, std::string_view key, std::string_view path);
Result<const Json*> RequiredArray(const Json& obj, std::string_view key, std::string_view path);
Result<const Json*> RequiredObject(const Json& obj, std::string_view key, std::string_view path);

// The "type" of a component object at `path` (the object itself must be one).
Result<std::string> ComponentType(const Json& component, std::string_view path);
// InvalidArgument "path.type 'X' is not supported (supported)".
Status UnsupportedType(std::string_view path, std::string_view type, std::string_view supported);

class Pattern;
// A {"String": "..."} (matched literally) or {"Regex": "..."} pattern object at `path`.
Result<std::unique_ptr<Pattern>> ParsePatternJson(const Json& json, std::string_view path);

}  // namespace hone::process
