// One accepted HTTP/1.1 connection (internal to this part): reads a request, hands it to the ApiHandler, writes the
// reply, and reads the next one while the client keeps the connection alive.
//
// One request at a time per connection. HTTP/1.1 requires responses in request order, so a pipelining client's
// later requests wait in the read buffer until the earlier reply has been written; the order is then structural
// rather than bookkept. Concurrency comes from connections (tritonclient, perf_analyzer and hone bench open one
// per outstanding request), not from pipelining, which no mainstream client enables.
//
// Everything a connection does runs on its strand. The reply to an inference comes from a scheduler thread and is
// posted back to the strand; the io threads never wait for a model.
//
// Limits: headers up to 64 KiB (else 431), bodies up to max_body_bytes (413 before the body is read when
// Content-Length says so, or as soon as a chunked body passes it); `Expect: 100-continue` is answered only for
// bodies within the limit. A connection that idles past idle_timeout, or takes longer than request_timeout to send
// a request or to read a reply, is closed. After a malformed request or a 413 the connection is closed, since the
// stream can no longer be trusted to be at a message boundary.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <optional>

#include "client/beast_body.h"
#include "serve/http/api_handler.h"
#include "serve/http/http_reply.h"
#include "serve/http/reply_stream.h"

namespace hone::serve::http {

// A reply goes out as one gather write: its body, then its tail (output tensors) from their own buffers.
using ReplyBody = client::GatherBody<HttpReply>;

struct ConnectionLimits {
  size_t max_body_bytes = size_t{64} << 20;
  std::chrono::seconds idle_timeout{300};
  std::chrono::seconds request_timeout{60};
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // `socket` runs on a strand of the server's io_context; `handler` outlives every connection.
  HttpConnection(boost::asio::ip::tcp::socket socket, ApiHandler& handler, ConnectionLimits limits);

  void Start();
  // From any thread: closes the connection once the reply it owes (if any) has been written; an idle connection
  // closes at once.
  void Close();

 private:
  void ReadHeader();
  void OnHeader(boost::beast::error_code ec);
  void ReadBody();
  void OnRequest(boost::beast::error_code ec);
  // Writes a reply to a request that could not be parsed, then closes.
  void Fail(int status, std::string_view message);
  void Send(HttpReply reply, bool close_after);
  // A streamed reply (HttpReply::stream): the header now, then each piece as a chunk (PumpStream).
  void SendStream(HttpReply reply, bool close_after);
  void PumpStream();
  void EndStream(boost::beast::error_code ec);
  void OnWrite(boost::beast::error_code ec, bool close_after);
  void Linger();
  void DrainSome();
  void Shutdown();

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  ApiHandler& handler_;
  const ConnectionLimits limits_;
  std::optional<boost::beast::http::request_parser<client::RequestBody>> parser_;
  std::shared_ptr<boost::beast::http::response<ReplyBody>> response_;  // the one being written
  // A streamed reply in progress: its stream, the header's serializer, the chunk being written.
  struct Streaming;
  std::shared_ptr<Streaming> streaming_;
  // Strand only.
  bool awaiting_reply_ = false;     // a request was handed to the ApiHandler and its reply has not come back
  bool close_after_reply_ = false;  // Close() was called while a reply was owed
  bool linger_ = false;             // drain what the client still sends before closing (after Fail)
  bool closed_ = false;
  std::unique_ptr<std::array<char, 16384>> discard_;  // Linger's scratch
  size_t discarded_ = 0;
};

}  // namespace hone::serve::http
