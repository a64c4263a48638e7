#include "client/http_infer_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <limits>

#include "client/beast_body.h"
#include "client/beast_connection.h"
#include "client/body_buffer.h"

namespace hone::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

struct HttpInferClient::Impl : BeastConnection {
  // Reused from call to call.
  std::string json;
  std::vector<std::span<const std::byte>> binary;
  BodyBuffer reply_body;
  int reply_status = 0;
  std::optional<uint64_t> reply_header_length;
  // Of the last exchange: when the request's last byte was written and when the reply's header had arrived.
  std::chrono::steady_clock::time_point written, header_read;
  CallTimes times;

  // Sends one request (body: `json`, then `binary`) and reads the reply into reply_body/reply_status.
  Status Exchange(bhttp::verb verb, const std::string& target, bool with_body, bool binary_body) {
    for (int attempt = 0;; ++attempt) {
      const bool reused = connected;
      if (!connected) HONE_RETURN_IF_ERROR(ConnectNow());
      bhttp::request<GatherBody<RequestPayload>> req{verb, target, 11};
      req.set(bhttp::field::host, host);
      req.keep_alive(true);
      if (with_body) {
        req.body().body = std::move(json);
        req.body().tail = binary;
        req.set(bhttp::field::content_type, binary_body ? "application/octet-stream" : "application/json");
        if (binary_body) req.set(kInferHeaderLength, std::to_string(req.body().body.size()));
      }
      req.prepare_payload();
      stream.expires_after(timeout);
      beast::error_code ec = Run([&](auto handler) { bhttp::async_write(stream, req, std::move(handler)); });
      written = std::chrono::steady_clock::now();
      json = std::move(req.body().body);  // keep the buffer (and its capacity) for the next call
      bhttp::response_parser<RequestBody> parser(std::piecewise_construct, std::make_tuple(std::move(reply_body)));
      // No limit: the caller asked for this response. (boost::none compares below every length in Beast 1.74, so
      // the largest number says it.)
      parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      // The header first, so that the wait for the server ends where the reply starts to arrive.
      if (!ec) ec = Run([&](auto handler) { bhttp::async_read_header(stream, buffer, parser, std::move(handler)); });
      header_read = std::chrono::steady_clock::now();
      if (!ec && !parser.is_done())
        ec = Run([&](auto handler) { bhttp::async_read(stream, buffer, parser, std::move(handler)); });
      auto message = parser.release();
      reply_body = std::move(message.body());
      // A kept-alive connection the server closed meanwhile fails before any reply byte: reconnect and resend once.
      if (ec && reused && IsStale(ec) && attempt == 0 && !parser.got_some()) {
        Drop();
        continue;
      }
      if (ec) return TransportError(ec, "talking to");
      reply_status = message.result_int();
      reply_header_length.reset();
      if (auto it = message.find(kInferHeaderLength); it != message.end())
        reply_header_length = ParseLengthHeader(it->value());
      if (!message.keep_alive()) Drop();
      return Status::Ok();
    }
  }

  std::string_view ReplyText() const {
    return {reinterpret_cast<const char*>(reply_body.data()), reply_body.size()};
  }

  Result<std::string> GetJson(const std::string& target) {
    HONE_RETURN_IF_ERROR(Exchange(bhttp::verb::get, target, false, false));
    if (reply_status != 200) return ErrorFromReply(reply_status, ReplyText());
    return std::string(ReplyText());
  }

  Result<bool> GetOk(const std::string& target) {
    HONE_RETURN_IF_ERROR(Exchange(bhttp::verb::get, target, false, false));
    // 503 is "not ready" (KServe's model server and hone serve answer it, Triton 400); other 5xx are failures.
    if (reply_status == 503) return false;
    if (reply_status >= 500) return ErrorFromReply(reply_status, ReplyText());
    return reply_status == 200;
  }
};

namespace {

std::string ModelPath(const std::string& model, int64_t version) {
  std::string path = "/v2/models/" + PercentEncode(model);
  if (version > 0) path += "/versions/" + std::to_string(version);
  return path;
}

}  // namespace

HttpInferClient::HttpInferClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpInferClient::~HttpInferClient() = default;

Result<std::unique_ptr<HttpInferClient>> HttpInferClient::Connect(const std::string& host, uint16_t port,
                                                                  std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  HONE_RETURN_IF_ERROR(impl->Open(host, port, timeout));
  return std::unique_ptr<HttpInferClient>(new HttpInferClient(std::move(impl)));
}

Result<InferenceResponse> HttpInferClient::Infer(const std::string& model, int64_t version,
                                                 std::span<const NamedTensor> inputs,
                                                 const ClientInferOptions& options) {
  Impl& s = *impl_;
  const auto start = std::chrono::steady_clock::now();
  HONE_RETURN_IF_ERROR(EncodeInferRequest(inputs, options, s.json, s.binary));
  const bool binary_body = options.binary_inputs && !inputs.empty();
  HONE_RETURN_IF_ERROR(s.Exchange(bhttp::verb::post, ModelPath(model, version) + "/infer", true, binary_body));
  if (s.reply_status != 200) return ErrorFromReply(s.reply_status, s.ReplyText());
  Result<InferenceResponse> response =
      DecodeInferResponse(s.reply_body.bytes(), s.reply_body.readable(), s.reply_header_length);
  s.times.send = s.written - start;
  s.times.recv = std::chrono::steady_clock::now() - s.header_read;
  return response;
}

const HttpInferClient::CallTimes& HttpInferClient::last_call_times() const { return impl_->times; }

Result<std::vector<ModelStatsSnapshot>> HttpInferClient::GetStatistics(const std::string& model, int64_t version) {
  const std::string target = model.empty() ? "/v2/models/stats" : ModelPath(model, version) + "/stats";
  HONE_ASSIGN_OR_RETURN(std::string json, impl_->GetJson(target));
  return ParseStatisticsJson(json);
}

Result<ModelMetadataInfo> HttpInferClient::GetModelMetadata(const std::string& model, int64_t version) {
  HONE_ASSIGN_OR_RETURN(std::string json, impl_->GetJson(ModelPath(model, version)));
  return ParseModelMetadataJson(json);
}

Result<std::string> HttpInferClient::GetModelConfigJson(const std::string& model, int64_t version) {
  return impl_->GetJson(ModelPath(model, version) + "/config");
}

Result<bool> HttpInferClient::IsServerLive() { return impl_->GetOk("/v2/health/live"); }
Result<bool> HttpInferClient::IsServerReady() { return impl_->GetOk("/v2/health/ready"); }
Result<bool> HttpInferClient::IsModelReady(const std::string& model, int64_t version) {
  return impl_->GetOk(ModelPath(model, version) + "/ready");
}

}  // namespace hone::client
