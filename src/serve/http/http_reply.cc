#include "serve/http/http_reply.h"

#include "client/http_status.h"
#include "client/json_writer.h"

namespace hone::serve::http {

HttpReply HttpReply::Json(int status, std::string body) {
  HttpReply r;
  r.status = status;
  r.content_type = "application/json";
  r.body = std::move(body);
  return r;
}

HttpReply HttpReply::Error(int status, std::string_view message) { return Json(status, client::ErrorJson(message)); }

HttpReply HttpReply::FromStatus(const Status& status) {
  return Error(client::HttpStatusFor(status.code()), status.message());
}

HttpReply HttpReply::Empty(int status) {
  HttpReply r;
  r.status = status;
  return r;
}

size_t HttpReply::body_size() const {
  size_t n = body.size();
  for (const auto& t : tail) n += t.size();
  return n;
}

}  // namespace hone::serve::http
