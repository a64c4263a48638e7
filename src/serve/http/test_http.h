// A plain blocking HTTP/1.1 client for the server tests (tests only): raw requests on one connection, so that
// tests can send exactly the bytes they mean (pipelined, malformed, oversized) and read what comes back. Every
// read gives up after 30 s, so a server bug fails a test instead of hanging it.
#pragma once

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <map>
#include <string>

namespace hone::serve::http::testing {

struct RawReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  bool keep_alive = false;
  bool ok = false;  // a reply was read at all
  std::string error;

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : socket_(io_) {
    boost::asio::ip::tcp::endpoint ep(boost::asio::ip::make_address("127.0.0.1"), port);
    socket_.connect(ep);
    timeval tv{30, 0};
    setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }

  // Sends raw bytes as they are.
  void Send(const std::string& bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes)); }

  // Builds and sends one request; `headers` are "Name: value" lines.
  void SendRequest(const std::string& method, const std::string& target, const std::string& body = "",
                   const std::vector<std::string>& headers = {}) {
    std::string req = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n";
    for (const auto& h : headers) req += h + "\r\n";
    if (!body.empty() || method == "POST") req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    req += "\r\n" + body;
    Send(req);
  }

  RawReply Read() {
    namespace bhttp = boost::beast::http;
    RawReply r;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(boost::none);
    boost::beast::error_code ec;
    bhttp::read(socket_, buffer_, parser, ec);
    if (ec) {
      r.error = ec.message();
      return r;
    }
    auto msg = parser.release();
    r.ok = true;
    r.status = msg.result_int();
    for (const auto& f : msg) {
      std::string name(f.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(c));
      r.headers[name] = std::string(f.value());
    }
    r.body = std::move(msg.body());
    r.keep_alive = msg.keep_alive();
    return r;
  }

  RawReply Roundtrip(const std::string& method, const std::string& target, const std::string& body = "",
                     const std::vector<std::string>& headers = {}) {
    SendRequest(method, target, body, headers);
    return Read();
  }

  // True when the server has closed the connection (a read sees EOF).
  bool ClosedByServer() {
    char c;
    boost::system::error_code ec;
    socket_.read_some(boost::asio::buffer(&c, 1), ec);
    return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
};

inline RawReply Fetch(uint16_t port, const std::string& method, const std::string& target,
                      const std::string& body = "", const std::vector<std::string>& headers = {}) {
  RawConnection c(port);
  return c.Roundtrip(method, target, body, headers);
}

}  // namespace hone::serve::http::testing
