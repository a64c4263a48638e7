#include "process/tokenizer_options.h"

#include <algorithm>

namespace hone::process {
namespace {

Result<Side> ParseSide(const Json& json, std::string_view path) {
  HONE_ASSIGN_OR_RETURN(auto given, OptionalString(json, "direction", path));
  const std::string name = given.value_or("Right");
  if (name == "Right") return Side::kRight;
  if (name == "Left") return Side::kLeft;
  return Status::InvalidArgument(JsonPath(path, "direction") + " '" + name + "' is not supported (Right, Left)");
}

Result<size_t> NonNegative(const Json& json, std::string_view key, std::string_view path, size_t fallback) {
  HONE_ASSIGN_OR_RETURN(auto value, OptionalInt(json, key, path));
  if (!value) return fallback;
  if (*value < 0) {
    return Status::InvalidArgument(JsonPath(path, key) + ": expected >= 0, got " + std::to_string(*value));
  }
  return static_cast<size_t>(*value);
}

}  // namespace

Result<std::optional<TruncationOptions>> ParseTruncation(const Json* json, std::string_view path) {
  if (json == nullptr || json->is_null()) return std::optional<TruncationOptions>();
  if (!json->is_object()) {
    return Status::InvalidArgument(std::string(path) + ": expected an object or null, got " + JsonTypeName(*json));
  }
  TruncationOptions t;
  HONE_ASSIGN_OR_RETURN(t.max_length, NonNegative(*json, "max_length", path, t.max_length));
  HONE_ASSIGN_OR_RETURN(t.stride, NonNegative(*json, "stride", path, 0));
  HONE_ASSIGN_OR_RETURN(t.direction, ParseSide(*json, path));
  HONE_ASSIGN_OR_RETURN(auto strategy, OptionalString(*json, "strategy", path));
  if (!strategy || *strategy == "LongestFirst") {
    t.strategy = TruncationOptions::Strategy::kLongestFirst;
  } else if (*strategy == "OnlyFirst") {
    t.strategy = TruncationOptions::Strategy::kOnlyFirst;
  } else if (*strategy == "OnlySecond") {
    t.strategy = TruncationOptions::Strategy::kOnlySecond;
  } else {
    return Status::InvalidArgument(JsonPath(path, "strategy") + " '" + *strategy +
                                   "' is not supported (LongestFirst, OnlyFirst, OnlySecond)");
  }
  return std::optional<TruncationOptions>(t);
}

Result<std::optional<PaddingOptions>> ParsePadding(const Json* json, std::string_view path) {
  if (json == nullptr || json->is_null()) return std::optional<PaddingOptions>();
  if (!json->is_object()) {
    return Status::InvalidArgument(std::string(path) + ": expected an object or null, got " + JsonTypeName(*json));
  }
  PaddingOptions p;
  // "strategy": "BatchLongest" or {"Fixed": n}
  if (auto it = json->find("strategy"); it != json->end() && !it->is_null()) {
    if (it->is_object() && it->contains("Fixed")) {
      HONE_ASSIGN_OR_RETURN(size_t n, NonNegative(*it, "Fixed", JsonPath(path, "strategy"), 0));
      p.fixed_length = n;
    } else if (!(it->is_string() && it->get<std::string>() == "BatchLongest")) {
      return Status::InvalidArgument(JsonPath(path, "strategy") + ": expected \"BatchLongest\" or {\"Fixed\": n}, got " +
                                     it->dump().substr(0, 80));
    }
  }
  HONE_ASSIGN_OR_RETURN(p.pad_to_multiple_of, NonNegative(*json, "pad_to_multiple_of", path, 0));
  HONE_ASSIGN_OR_RETURN(p.direction, ParseSide(*json, path));
  HONE_ASSIGN_OR_RETURN(auto pad_id, OptionalInt(*json, "pad_id", path));
  p.pad_id = pad_id.value_or(0);
  HONE_ASSIGN_OR_RETURN(auto pad_type_id, OptionalInt(*json, "pad_type_id", path));
  p.pad_type_id = pad_type_id.value_or(0);
  HONE_ASSIGN_OR_RETURN(auto pad_token, OptionalString(*json, "pad_token", path));
  p.pad_token = pad_token.value_or("[PAD]");
  return std::optional<PaddingOptions>(p);
}

void Truncate(Encoding* e, size_t max_length, Side direction) {
  if (e->size() <= max_length) return;
  auto cut = [&](auto& v) {
    if (direction == Side::kRight) {
      v.resize(max_length);
    } else {
      v.erase(v.begin(), v.end() - static_cast<std::ptrdiff_t>(max_length));
    }
  };
  cut(e->ids);
  cut(e->type_ids);
  cut(e->attention_mask);
  cut(e->tokens);
}

void Pad(std::span<Encoding> encodings, const PaddingOptions& options) {
  if (encodings.empty()) return;
  size_t length = 0;
  if (options.fixed_length) {
    length = *options.fixed_length;
  } else {
    for (const Encoding& e : encodings) length = std::max(length, e.size());
  }
  if (options.pad_to_multiple_of > 0 && length % options.pad_to_multiple_of != 0) {
    length += options.pad_to_multiple_of - length % options.pad_to_multiple_of;
  }
  for (Encoding& e : encodings) {
    if (e.size() >= length) continue;
    const size_t n = length - e.size();
    auto pad = [&](auto& v, const auto& value) {
      if (options.direction == Side::kRight) {
        v.insert(v.end(), n, value);
      } else {
        v.insert(v.begin(), n, value);
      }
    };
    pad(e.ids, options.pad_id);
    pad(e.type_ids, options.pad_type_id);
    pad(e.attention_mask, int64_t{0});
    pad(e.tokens, options.pad_token);
  }
}

}  // namespace hone::process
