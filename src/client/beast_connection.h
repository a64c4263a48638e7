// One client-side HTTP/1.1 connection over Boost.Beast, run synchronously on the calling thread (internal to this
// part): what HttpInferClient and OpenAiClient share. Each call runs one asynchronous operation to completion on
// the connection's own io_context, so that the stream's expiry bounds it (Beast's synchronous calls have no
// timeout).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace hone::client {

struct BeastConnection {
  std::string host;
  uint16_t port = 0;
  std::chrono::milliseconds timeout{0};  // bounds every operation
  boost::asio::io_context io;
  boost::beast::tcp_stream stream{io};
  boost::beast::flat_buffer buffer;
  boost::asio::ip::tcp::resolver::results_type endpoints;
  bool connected = false;

  // Resolves host:port and connects. Unavailable naming the address when either fails.
  Status Open(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);
  Status ConnectNow();
  // Closes the socket; the next call connects again.
  void Drop();
  // Drops the connection and says what failed: DeadlineExceeded after `timeout`, else Unavailable.
  Status TransportError(const boost::beast::error_code& ec, std::string_view doing);
  // Whether `ec` is what a kept-alive connection the server closed meanwhile fails with (send again once).
  static bool IsStale(const boost::beast::error_code& ec);

  // Runs one asynchronous operation to completion on this thread.
  template <typename Start>
  boost::beast::error_code Run(Start start) {
    boost::beast::error_code result = boost::asio::error::would_block;
    start([&](boost::beast::error_code ec, auto&&...) { result = ec; });
    io.restart();
    io.run();
    return result;
  }
};

}  // namespace hone::client
