// One HTTP response as the handlers produce it, before anything wire-specific: status, content type, a body, and
// optionally a tail of byte ranges written after the body without being copied (the binary outputs of an
// inference response, kept alive by `keep_alive` until written).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace hone::serve::http {

class ReplyStream;

struct HttpReply {
  int status = 200;
  std::string content_type;  // empty: no Content-Type header (an empty body)
  std::string body;
  std::vector<std::span<const std::byte>> tail;
  std::shared_ptr<const void> keep_alive;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // Called (on the connection's thread) when this reply could not be written: the connection failed or was
  // already closed. An inference reply counts and logs itself as a failure there; others need nothing.
  std::function<void(std::string_view why)> on_send_failure;
  // When set, the body is streamed: the status and headers go out at once with chunked transfer encoding, then
  // whatever is written to the stream (reply_stream.h); `body` and `tail` are ignored.
  std::shared_ptr<ReplyStream> stream;

  static HttpReply Json(int status, std::string body);
  // {"error": message} with `status`.
  static HttpReply Error(int status, std::string_view message);
  // The error body for a failed Status, with the HTTP status it maps to (http_status.h).
  static HttpReply FromStatus(const Status& status);
  // No body at all (health checks).
  static HttpReply Empty(int status);

  size_t body_size() const;
};

}  // namespace hone::serve::http
