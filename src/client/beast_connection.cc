#include "client/beast_connection.h"

#include <boost/asio/connect.hpp>
#include <boost/beast/http/error.hpp>

namespace hone::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

Status BeastConnection::Open(const std::string& to_host, uint16_t to_port, std::chrono::milliseconds limit) {
  host = to_host;
  port = to_port;
  timeout = limit;
  tcp::resolver resolver(io);
  beast::error_code ec;
  endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) return Status::Unavailable("resolving " + host + ": " + ec.message());
  return ConnectNow();
}

Status BeastConnection::ConnectNow() {
  stream.expires_after(timeout);
  beast::error_code ec = Run([&](auto handler) { stream.async_connect(endpoints, std::move(handler)); });
  if (ec) return TransportError(ec, "connecting to");
  boost::system::error_code ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);
  buffer.clear();
  connected = true;
  return Status::Ok();
}

void BeastConnection::Drop() {
  connected = false;
  beast::error_code ignored;
  stream.socket().close(ignored);
}

Status BeastConnection::TransportError(const beast::error_code& ec, std::string_view doing) {
  Drop();
  const std::string where = host + ":" + std::to_string(port);
  if (ec == beast::error::timeout)
    return Status(StatusCode::kDeadlineExceeded, std::string(doing) + " " + where + ": no reply within " +
                                                      std::to_string(timeout.count()) + " ms");
  return Status::Unavailable(std::string(doing) + " " + where + ": " + ec.message());
}

bool BeastConnection::IsStale(const beast::error_code& ec) {
  return ec == beast::http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe;
}

}  // namespace hone::client
