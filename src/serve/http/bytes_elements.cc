#include "serve/http/bytes_elements.h"

#include <algorithm>
#include <limits>

#include "tensor/little_endian.h"

namespace hone::serve::http {

Result<std::vector<std::string_view>> SplitBytesElements(std::span<const std::byte> data, int64_t count,
                                                         std::string_view input_name) {
  const std::string who = "input '" + std::string(input_name) + "'";
  std::vector<std::string_view> elements;
  // Every element needs at least its 4-byte prefix: bound the reservation by what the data can hold.
  elements.reserve(static_cast<size_t>(std::min<int64_t>(count, static_cast<int64_t>(data.size() / 4))));
  size_t pos = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (data.size() - pos < 4)
      return Status::InvalidArgument(who + ": BYTES element " + std::to_string(i) + " of " + std::to_string(count) +
                                     ": expected a 4-byte length at byte " + std::to_string(pos) + ", only " +
                                     std::to_string(data.size() - pos) + " bytes left");
    const uint32_t len = le::Load32(data.data() + pos);
    pos += 4;
    if (len > data.size() - pos)
      return Status::InvalidArgument(who + ": BYTES element " + std::to_string(i) + " claims " +
                                     std::to_string(len) + " bytes, only " + std::to_string(data.size() - pos) +
                                     " left");
    elements.emplace_back(reinterpret_cast<const char*>(data.data() + pos), len);
    pos += len;
  }
  if (pos != data.size())
    return Status::InvalidArgument(who + ": " + std::to_string(data.size() - pos) + " bytes left after the " +
                                   std::to_string(count) + " BYTES elements the shape holds");
  return elements;
}

void AppendBytesElement(std::string& out, std::string_view element) {
  le::Append32(out, static_cast<uint32_t>(element.size()));
  out.append(element);
}

}  // namespace hone::serve::http
