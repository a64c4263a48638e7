#include "serve/http/http_server.h"

#include <cctype>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>

#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "serve/http/api_handler.h"
#include "serve/http/http_connection.h"

namespace hone::serve::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Status HttpServerOptions::Validate() const {
  if (threads < 1) return Status::InvalidArgument("http threads: expected at least 1, got " + std::to_string(threads));
  if (idle_timeout.count() <= 0 || request_timeout.count() <= 0)
    return Status::InvalidArgument("http timeouts: expected positive durations");
  if (max_body_bytes == 0) return Status::InvalidArgument("http max_body_bytes: expected at least 1 byte");
  if (!serve_api && !serve_metrics) return Status::InvalidArgument("http server: serves neither the API nor metrics");
  return Status::Ok();
}

struct HttpServer::Impl {
  Impl(Server& server, const HttpServerOptions& options)
      : options(options),
        io(options.threads),
        control(1),
        handler(server,
                ApiOptions{options.serve_api, options.serve_metrics, options.repository_api, options.max_body_bytes,
                           options.run_on_io_threads ? options.threads - 1 : 0},
                [this](std::function<void()> task) { asio::post(control, std::move(task)); }),
        acceptor(asio::make_strand(io)),
        work(asio::make_work_guard(io)) {}

  void Accept() {
    acceptor.async_accept(asio::make_strand(io), [this](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) {
        boost::system::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);  // replies are whole messages; do not wait to coalesce
        auto connection = std::make_shared<HttpConnection>(
            std::move(socket), handler,
            ConnectionLimits{options.max_body_bytes, options.idle_timeout, options.request_timeout});
        Track(connection);
        connection->Start();
      }
      // On an accept error (out of file descriptors, say) keep accepting: the listener itself is fine.
      Accept();
    });
  }

  void Track(const std::shared_ptr<HttpConnection>& connection) {
    std::lock_guard<std::mutex> lock(mu);
    if (connections.size() >= 2 * live_after_prune + 64) {
      std::erase_if(connections, [](const auto& weak) { return weak.expired(); });
      live_after_prune = connections.size();
    }
    connections.push_back(connection);
  }

  const HttpServerOptions options;
  asio::io_context io;
  asio::thread_pool control;  // repository load/unload, which block
  ApiHandler handler;
  tcp::acceptor acceptor;
  // Keeps the io threads running while connections wait for inference with no socket operation pending (and
  // during Stop, after the listener has closed, until the replies owed have been written).
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::vector<std::thread> threads;
  uint16_t port = 0;

  std::mutex mu;
  std::vector<std::weak_ptr<HttpConnection>> connections;  // guarded by mu
  size_t live_after_prune = 0;                             // guarded by mu
  bool stopped = false;                                    // guarded by mu
};

namespace {

Result<tcp::endpoint> Resolve(const std::string& host, uint16_t port) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (!ec) return tcp::endpoint(address, port);
  asio::io_context io;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  if (ec || results.empty())
    return Status::InvalidArgument("http host '" + host + "': not an address and not resolvable (" + ec.message() +
                                   ")");
  return results.begin()->endpoint();
}

}  // namespace

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

uint16_t HttpServer::port() const { return impl_->port; }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(Server& server, const HttpServerOptions& options) {
  HONE_RETURN_IF_ERROR(options.Validate());
  HONE_ASSIGN_OR_RETURN(tcp::endpoint endpoint, Resolve(options.host, options.port));
  auto impl = std::make_unique<Impl>(server, options);
  boost::system::error_code ec;
  auto& acceptor = impl->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (!ec) impl->port = acceptor.local_endpoint(ec).port();
  if (ec) {
    std::string why = ec.message();  // "Address already in use"
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Status::Unavailable("cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " + why);
  }
  impl->Accept();
  for (int i = 0; i < options.threads; ++i) impl->threads.emplace_back([io = &impl->io] { io->run(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.stopped) return;
    s.stopped = true;
  }
  // 1. No new connections, and no new inference or repository work on the ones already open.
  std::promise<void> closed;
  asio::post(s.acceptor.get_executor(), [&] {
    boost::system::error_code ignored;
    s.acceptor.close(ignored);
    closed.set_value();
  });
  closed.get_future().wait();
  s.handler.StopAccepting();
  // 2. Every reply already owed has been handed to its connection...
  s.handler.WaitIdle();
  // 3. ...and is written before its connection closes; idle connections close now.
  std::vector<std::shared_ptr<HttpConnection>> open;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto& weak : s.connections)
      if (auto c = weak.lock()) open.push_back(std::move(c));
    s.connections.clear();
  }
  for (const auto& c : open) c->Close();
  open.clear();
  // 4. With the listener, the work guard and every connection gone the io_context runs out of work and its
  //    threads return (a client that stops reading is cut off by request_timeout).
  s.work.reset();
  for (auto& t : s.threads) t.join();
  s.threads.clear();
  s.control.join();
}

}  // namespace hone::serve::http
