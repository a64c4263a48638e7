// A model's vocabulary: token <-> id, read from a JSON object {"token": id, ...}.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/result.h"
#include "process/tokenizer_json.h"

namespace hone::process {

class Vocab {
 public:
  // Ids must be integers in [0, 2^31); `path` names the object in errors ("model.vocab").
  static Result<Vocab> FromJson(const Json& json, std::string_view path);

  Vocab() = default;
  Vocab(Vocab&&) = default;
  Vocab& operator=(Vocab&&) = default;
  Vocab(const Vocab&) = delete;  // tokens_ points into ids_'s keys
  Vocab& operator=(const Vocab&) = delete;

  std::optional<int64_t> Find(std::string_view token) const {
    auto it = ids_.find(token);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::string_view> Token(int64_t id) const {
    auto it = tokens_.find(id);
    if (it == tokens_.end()) return std::nullopt;
    return it->second;
  }
  size_t size() const { return ids_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
  std::unordered_map<int64_t, std::string_view> tokens_;
};

}  // namespace hone::process
