#include "serve/http/http_connection.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "base/log.h"


namespace hone::serve::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

constexpr uint32_t kHeaderLimit = 64 * 1024;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

bool IsParseError(const beast::error_code& ec) {
  return ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category();
}

Method MethodOf(bhttp::verb verb) {
  switch (verb) {
    case bhttp::verb::get: return Method::kGet;
    case bhttp::verb::post: return Method::kPost;
    default: return Method::kOther;
  }
}

}  // namespace

struct HttpConnection::Streaming {
  std::shared_ptr<ReplyStream> stream;
  bhttp::response<bhttp::empty_body> header;
  std::optional<bhttp::response_serializer<bhttp::empty_body>> serializer;
  std::string chunk;     // being written
  bool writing = false;  // a write (header, chunk or last chunk) is in flight
  bool ended = false;    // the last chunk was written or the stream failed
  bool close_after = false;
};

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, ApiHandler& handler, ConnectionLimits limits)
    : stream_(std::move(socket)), handler_(handler), limits_(limits) {}

void HttpConnection::Start() {
  asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
}

void HttpConnection::Close() {
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    // A reply being written (or awaited) finishes first; an idle connection closes now.
    if (self->response_ || self->awaiting_reply_ || self->streaming_) {
      self->close_after_reply_ = true;
    } else {
      self->Shutdown();
    }
  });
}

void HttpConnection::ReadHeader() {
  if (closed_) return;
  parser_.emplace();
  parser_->header_limit(kHeaderLimit);
  parser_->body_limit(static_cast<uint64_t>(limits_.max_body_bytes));
  stream_.expires_after(limits_.idle_timeout);
  bhttp::async_read_header(stream_, buffer_, *parser_,
                           [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
}

void HttpConnection::OnHeader(beast::error_code ec) {
  if (closed_) return;
  if (ec == bhttp::error::body_limit)
    return Fail(413, "the request body is larger than the server's limit of " +
                         std::to_string(limits_.max_body_bytes) + " bytes");
  if (ec == bhttp::error::header_limit)
    return Fail(431, "the request headers are larger than " + std::to_string(kHeaderLimit) + " bytes");
  if (ec == bhttp::error::end_of_stream || (ec && !IsParseError(ec))) return Shutdown();  // closed, timed out
  if (ec) return Fail(400, "malformed HTTP request: " + ec.message());

  const auto& req = parser_->get();
  if (req.version() >= 11 && beast::iequals(req[bhttp::field::expect], "100-continue")) {
    stream_.expires_after(limits_.request_timeout);
    asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](beast::error_code ec, size_t) {
                        if (ec) return self->Shutdown();
                        self->ReadBody();
                      });
    return;
  }
  ReadBody();
}

void HttpConnection::ReadBody() {
  if (closed_) return;
  // Beast reads into the free room of `buffer_` (at least 512 bytes, at most 64 KiB a read). Left at the few KiB
  // a header needs, a 571 kB JSON body took hundreds of reads, each re-arming the stream's timer and the epoll
  // registration: more server CPU than parsing the JSON. Room for 64 KiB makes that a handful of reads.
  constexpr size_t kBodyReadRoom = 64 * 1024;
  if (auto length = parser_->content_length(); length && *length > buffer_.capacity() - buffer_.size())
    buffer_.reserve(buffer_.size() + std::min<size_t>(*length, kBodyReadRoom));
  stream_.expires_after(limits_.request_timeout);
  bhttp::async_read(stream_, buffer_, *parser_,
                    [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRequest(ec); });
}

void HttpConnection::OnRequest(beast::error_code ec) {
  if (closed_) return;
  if (ec == bhttp::error::body_limit)
    return Fail(413, "the request body is larger than the server's limit of " +
                         std::to_string(limits_.max_body_bytes) + " bytes");
  if (ec && !IsParseError(ec)) return Shutdown();
  if (ec) return Fail(400, "malformed HTTP request: " + ec.message());

  stream_.expires_never();  // the model may take its time; the reply restarts the clock
  auto& req = parser_->get();
  ApiRequest api;
  api.method = MethodOf(req.method());
  api.target = std::string(req.target());
  LogVerbose(2, "http: {} {} ({} body bytes)", std::string_view(req.method_string()), api.target, req.body().size());
  api.body = std::make_shared<client::BodyBuffer>(std::move(req.body()));
  if (auto it = req.find(client::kInferHeaderLength); it != req.end()) api.header_length = std::string(it->value());
  api.content_encoding = std::string(req[bhttp::field::content_encoding]);
  api.accept_encoding = std::string(req[bhttp::field::accept_encoding]);
  const bool keep_alive = req.keep_alive();
  parser_.reset();

  awaiting_reply_ = true;
  handler_.Handle(std::move(api), [self = shared_from_this(), keep_alive](HttpReply reply) {
    // Any thread: onto the strand to write. When the reply comes on this very handler's thread (answered inline,
    // or the io thread ran the inference itself) dispatch writes at once instead of queueing a hop.
    asio::dispatch(self->stream_.get_executor(), [self, keep_alive, reply = std::move(reply)]() mutable {
      self->awaiting_reply_ = false;
      self->Send(std::move(reply), !keep_alive);
    });
  });
}

void HttpConnection::Fail(int status, std::string_view message) {
  linger_ = true;
  Send(HttpReply::Error(status, message), true);
}

void HttpConnection::Send(HttpReply reply, bool close_after) {
  if (closed_) {
    if (reply.on_send_failure) reply.on_send_failure("the connection closed before the response was ready");
    return;
  }
  close_after = close_after || close_after_reply_ || handler_.CloseConnections();
  if (reply.stream) return SendStream(std::move(reply), close_after);
  const int status = reply.status;
  auto res = std::make_shared<bhttp::response<ReplyBody>>(static_cast<bhttp::status>(status), 11, std::move(reply));
  const HttpReply& body = res->body();
  if (!body.content_type.empty()) res->set(bhttp::field::content_type, body.content_type);
  for (const auto& [name, value] : body.headers) res->set(name, value);
  res->keep_alive(!close_after);
  res->prepare_payload();
  response_ = res;
  stream_.expires_after(limits_.request_timeout);
  bhttp::async_write(stream_, *res, [self = shared_from_this(), close_after](beast::error_code ec, size_t) {
    self->OnWrite(ec, close_after);
  });
}

void HttpConnection::SendStream(HttpReply reply, bool close_after) {
  auto st = std::make_shared<Streaming>();
  st->stream = std::move(reply.stream);
  st->close_after = close_after;
  st->header.result(static_cast<bhttp::status>(reply.status));
  st->header.version(11);
  if (!reply.content_type.empty()) st->header.set(bhttp::field::content_type, reply.content_type);
  for (const auto& [name, value] : reply.headers) st->header.set(name, value);
  st->header.keep_alive(!close_after);
  st->header.chunked(true);
  st->serializer.emplace(st->header);
  streaming_ = st;
  st->writing = true;
  stream_.expires_after(limits_.request_timeout);
  bhttp::async_write_header(stream_, *st->serializer, [self = shared_from_this()](beast::error_code ec, size_t) {
    self->streaming_->writing = false;
    if (ec) return self->EndStream(ec);
    // From now on the producer wakes the strand whenever it writes (Attach runs it at once if something waits).
    // The wake holds the connection: between chunks no read or write is pending to keep it alive. EndStream and
    // Shutdown detach it, which breaks the cycle; the producer always ends its stream (Close).
    self->streaming_->stream->Attach([self] {
      asio::post(self->stream_.get_executor(), [self] { self->PumpStream(); });
    });
    self->PumpStream();
  });
}

void HttpConnection::PumpStream() {
  if (!streaming_ || streaming_->writing || streaming_->ended) return;
  Streaming& st = *streaming_;
  st.chunk.clear();
  bool closed = false;
  if (!st.stream->Take(&st.chunk, &closed)) return;

  st.writing = true;
  stream_.expires_after(limits_.request_timeout);
  auto done = [self = shared_from_this(), closed](beast::error_code ec, size_t) {
    self->streaming_->writing = false;
    if (ec) return self->EndStream(ec);
    if (closed && self->streaming_->chunk.empty()) return self->EndStream({});
    self->PumpStream();
  };
  if (!st.chunk.empty()) {
    asio::async_write(stream_, bhttp::make_chunk(asio::buffer(st.chunk)), std::move(done));
  } else {
    asio::async_write(stream_, bhttp::make_chunk_last(), std::move(done));
  }
}

void HttpConnection::EndStream(beast::error_code ec) {
  std::shared_ptr<Streaming> st = std::move(streaming_);
  st->ended = true;
  st->stream->Attach(nullptr);
  if (ec) {
    st->stream->Abandon();  // the client is gone: the producer stops (a generation is cancelled)
    return Shutdown();
  }
  if (st->close_after || close_after_reply_) return Shutdown();
  ReadHeader();
}

void HttpConnection::OnWrite(beast::error_code ec, bool close_after) {
  if (ec && response_ && response_->body().on_send_failure) response_->body().on_send_failure(ec.message());
  response_.reset();
  if (!ec && linger_) return Linger();
  if (ec || close_after || close_after_reply_) return Shutdown();
  ReadHeader();
}

void HttpConnection::Linger() {
  // The client may still be sending the body we refused. Closing with unread bytes makes the kernel answer with a
  // reset, which can destroy our reply before the client reads it; so stop sending, then read and discard for a
  // little while (bounded in time and bytes) before closing.
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream_.expires_after(std::chrono::seconds(2));
  discard_ = std::make_unique<std::array<char, 16384>>();
  DrainSome();
}

void HttpConnection::DrainSome() {
  stream_.async_read_some(asio::buffer(*discard_), [self = shared_from_this()](beast::error_code ec, size_t n) {
    self->discarded_ += n;
    if (ec || self->closed_ || self->discarded_ > (size_t{8} << 20)) return self->Shutdown();
    self->DrainSome();
  });
}

void HttpConnection::Shutdown() {
  if (closed_) return;
  closed_ = true;
  if (streaming_) {
    streaming_->stream->Attach(nullptr);
    streaming_->stream->Abandon();
  }
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream_.close();
}

}  // namespace hone::serve::http
