#include "process/tokenizer_vocab.h"

namespace hone::process {


Result<Vocab> Vocab::FromJson(const Json& json, std::string_view path) {
  if (!json.is_object()) {
    return Status::InvalidArgument(std::string(path) + ": expected an object {token: id}, got " +
                                   JsonTypeName(json));
  }
  Vocab v;
  v.ids_.reserve(json.size());
  v.tokens_.reserve(json.size());
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 ||
        it.value().get<int64_t>() > INT32_MAX) {
      return Status::InvalidArgument(JsonPath(path, it.key()) + ": expected an id in [0, 2^31), got " +
                                     it.value().dump());
    }
    const int64_t id = it.value().get<int64_t>();
    auto [entry, inserted] = v.ids_.emplace(it.key(), id);
    v.tokens_[id] = entry->first;  // node keys stay put when the map grows
  }
  return v;
}

}  // namespace hone::process
