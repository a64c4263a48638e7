#include "client/openai_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "client/beast_connection.h"

namespace hone::client {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using nlohmann::json;
using Clock = StreamedCompletion::Clock;

std::string RequestBody(const CompletionCall& call) {
  json body;
  body["model"] = call.model;
  if (call.chat)
    body["messages"] = json::array({{{"role", "user"}, {"content", call.prompt}}});
  else
    body["prompt"] = call.prompt;
  body["max_tokens"] = call.max_tokens;
  body["temperature"] = call.temperature;
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  if (call.ignore_eos) body["ignore_eos"] = true;
  if (call.seed) body["seed"] = *call.seed;
  return body.dump();
}

// The message of an error body: OpenAI's {"error": {"message": ...}}, KServe's {"error": "..."}, or the text.
std::string ErrorMessage(std::string_view body) {
  json doc = json::parse(body, nullptr, false);
  if (!doc.is_discarded() && doc.is_object() && doc.contains("error")) {
    const json& e = doc["error"];
    if (e.is_string()) return e.get<std::string>();
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
  }
  return std::string(body.substr(0, 500));
}

// Reads Server-Sent Events as they arrive, timestamping the ones that carry text.
class EventReader {
 public:
  explicit EventReader(StreamedCompletion& out) : out_(out) {}

  void Feed(std::string_view data) {
    pending_.append(data);
    for (;;) {
      size_t end = pending_.find("\n\n");
      size_t skip = 2;
      if (size_t crlf = pending_.find("\r\n\r\n"); crlf != std::string::npos && crlf < end) {
        end = crlf;
        skip = 4;
      }
      if (end == std::string::npos) return;
      Event(std::string_view(pending_).substr(0, end));
      pending_.erase(0, end + skip);
    }
  }
  const Status& error() const { return error_; }

 private:
  void Event(std::string_view event) {
    const Clock::time_point now = Clock::now();
    std::string payload;
    for (size_t start = 0; start < event.size();) {
      size_t nl = event.find('\n', start);
      std::string_view line = event.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with("data:")) {
        line.remove_prefix(5);
        if (line.starts_with(' ')) line.remove_prefix(1);
        if (!payload.empty()) payload += '\n';
        payload += line;
      }
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    if (payload.empty()) return;  // a comment or keep-alive
    out_.done = now;
    if (payload == "[DONE]") return;
    json doc = json::parse(payload, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      error_ = Status::Internal("the server sent an event that is not JSON: " + payload.substr(0, 200));
      return;
    }
    if (doc.contains("error") && !doc["error"].is_null()) {
      error_ = Status::Unavailable("the server ended the stream with an error: " + ErrorMessage(payload));
      return;
    }
    if (auto usage = doc.find("usage"); usage != doc.end() && usage->is_object()) {
      out_.prompt_tokens = usage->value("prompt_tokens", int64_t{-1});
      out_.completion_tokens = usage->value("completion_tokens", int64_t{-1});
    }
    auto choices = doc.find("choices");
    if (choices == doc.end() || !choices->is_array() || choices->empty()) return;
    const json& choice = (*choices)[0];
    std::string text;
    if (auto t = choice.find("text"); t != choice.end() && t->is_string()) text = t->get<std::string>();
    if (auto d = choice.find("delta"); d != choice.end() && d->is_object())
      if (auto c = d->find("content"); c != d->end() && c->is_string()) text = c->get<std::string>();
    if (!text.empty()) {
      out_.chunks.push_back(now);
      out_.text += text;
    }
    if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) out_.finish_reason = *f;
  }

  StreamedCompletion& out_;
  std::string pending_;
  Status error_;
};

}  // namespace

struct OpenAiClient::Impl : BeastConnection {
  // Sends a request and reads the reply; a 200 text/event-stream body goes to `events` as it arrives.
  Status Exchange(bhttp::verb verb, const std::string& target, std::string body, EventReader* events,
                  std::string* reply_body, Clock::time_point* sent) {
    for (int attempt = 0;; ++attempt) {
      const bool reused = connected;
      if (!connected) HONE_RETURN_IF_ERROR(ConnectNow());
      bhttp::request<bhttp::string_body> req{verb, target, 11};
      req.set(bhttp::field::host, host);
      req.set(bhttp::field::content_type, "application/json");
      req.set(bhttp::field::accept, events ? "text/event-stream" : "application/json");
      req.keep_alive(true);
      req.body() = body;
      req.prepare_payload();
      stream.expires_after(timeout);
      if (sent) *sent = Clock::now();
      beast::error_code ec = Run([&](auto handler) { bhttp::async_write(stream, req, std::move(handler)); });
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(64 << 20);
      bool streaming = false;
      std::string error_body;
      auto on_chunk = [&](uint64_t, std::string_view data, beast::error_code&) -> size_t {
        if (streaming && events)
          events->Feed(data);
        else
          error_body.append(data);
        return data.size();
      };
      parser.on_chunk_body(on_chunk);
      if (!ec) ec = Run([&](auto handler) { bhttp::async_read_header(stream, buffer, parser, std::move(handler)); });
      if (!ec) {
        streaming = parser.get().result_int() == 200 && parser.get().chunked();
        ec = Run([&](auto handler) { bhttp::async_read(stream, buffer, parser, std::move(handler)); });
      }
      if (ec) {
        // A kept-alive connection the server closed meanwhile fails before any reply byte: send again once.
        if (reused && attempt == 0 && IsStale(ec) && !parser.got_some()) {
          Drop();
          continue;
        }
        return TransportError(ec, "calling");
      }
      const auto& res = parser.get();
      if (!res.keep_alive()) Drop();
      std::string whole = error_body + res.body();
      if (res.result_int() != 200) {
        const int status = res.result_int();
        const std::string message = fmt::format("HTTP {}: {}", status, ErrorMessage(whole));
        if (status == 404) return Status::NotFound(message);
        if (status == 503 || status == 429) return Status::Unavailable(message);
        if (status >= 500) return Status::Internal(message);
        return Status::InvalidArgument(message);
      }
      if (events && !streaming && reply_body == nullptr)
        return Status::Internal("the server answered a streamed request without streaming (no chunked event "
                                "stream)");
      if (reply_body) *reply_body = std::move(whole);
      return Status::Ok();
    }
  }
};

OpenAiClient::OpenAiClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OpenAiClient::~OpenAiClient() = default;

Result<std::unique_ptr<OpenAiClient>> OpenAiClient::Connect(const std::string& host, uint16_t port,
                                                          std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  HONE_RETURN_IF_ERROR(impl->Open(host, port, timeout));
  return std::unique_ptr<OpenAiClient>(new OpenAiClient(std::move(impl)));
}

Result<StreamedCompletion> OpenAiClient::Stream(const CompletionCall& call) {
  StreamedCompletion out;
  EventReader events(out);
  HONE_RETURN_IF_ERROR(impl_->Exchange(bhttp::verb::post, call.chat ? "/v1/chat/completions" : "/v1/completions",
                                       RequestBody(call), &events, nullptr, &out.sent));
  if (!events.error().ok()) return events.error();
  if (out.done < out.sent) out.done = StreamedCompletion::Clock::now();
  return out;
}

Result<std::vector<std::string>> OpenAiClient::Models() {
  std::string body;
  HONE_RETURN_IF_ERROR(impl_->Exchange(bhttp::verb::get, "/v1/models", "", nullptr, &body, nullptr));
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.contains("data") || !doc["data"].is_array())
    return Status::Internal("GET /v1/models: not an OpenAI model list: " + body.substr(0, 200));
  std::vector<std::string> ids;
  for (const json& m : doc["data"])
    if (m.contains("id") && m["id"].is_string()) ids.push_back(m["id"].get<std::string>());
  return ids;
}

}  // namespace hone::client
