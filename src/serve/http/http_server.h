// hone's KServe v2 HTTP/REST front end: the endpoints in route.h over HTTP/1.1 with keep-alive, in front of a
// Server facade.
//
//   auto http = HttpServer::Start(*server, {.host = "127.0.0.1", .port = 8000});
//   (*http)->port();   // the bound port (useful with port 0)
//   (*http)->Stop();   // also done by the destructor
//
// Built on Boost.Beast/Asio rather than libevhtp (Triton's choice): Beast is header-only in Debian's libboost-dev,
// gives a strict HTTP/1.1 parser with header and body limits and per-operation timeouts, lets a body type place
// the request bytes exactly where the infer codec wants them (aligned for zero-copy tensors, padded for simdjson)
// and write outputs from the tensors' own buffers with a gather write; Asio strands make "reply from a scheduler
// thread, write on the connection's thread" a one-line post. libevhtp is unmaintained upstream and would need
// its own thread and buffer plumbing for the same.
//
// Threads: `threads` io threads run every connection (parse, route, answer health/metadata/statistics/metrics,
// write replies); they never wait for inference, so those endpoints stay fast while every model instance is busy.
// Inference replies are serialized on the scheduler thread that completes them. Repository load/unload run on a
// thread of their own.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "serve/core/server.h"

namespace hone::serve::http {

struct HttpServerOptions {
  // Behaviour.
  std::string host = "127.0.0.1";  // listen here only, unless told otherwise ("0.0.0.0": every interface)
  uint16_t port = 8000;            // 0: an ephemeral port (see HttpServer::port())
  bool serve_api = true;           // the KServe v2 endpoints under /v2
  bool serve_metrics = true;       // GET /metrics here (false when metrics have a port of their own)
  // The repository extension (index, load, unload); 403 when off. The server's own options().repository_api
  // must allow it too.
  bool repository_api = true;
  // Largest request body accepted (after decompression too); larger ones get 413 without being read.
  size_t max_body_bytes = size_t{64} << 20;

  // Performance and robustness.
  int threads = 2;                              // io threads; more only helps with many busy connections
  // Up to threads - 1 io threads at a time may run a request's batch themselves when it can start at once (an
  // instance idle, nothing queued): the lowest latency for a lone request (api_handler.h). Off: always the
  // instance's thread.
  bool run_on_io_threads = true;
  std::chrono::seconds idle_timeout{300};       // a keep-alive connection with no new request is closed
  std::chrono::seconds request_timeout{60};     // to receive one request (after its first byte) or send a reply

  // InvalidArgument for threads < 1, timeouts <= 0, max_body_bytes 0, or neither api nor metrics served.
  Status Validate() const;
};

class HttpServer {
 public:
  // Listens and starts serving. `server` must outlive the HttpServer. Unavailable (naming host and port) when the
  // address cannot be bound; InvalidArgument for invalid options or a host that is not an address or resolvable.
  static Result<std::unique_ptr<HttpServer>> Start(Server& server, const HttpServerOptions& options);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();

  // The bound port.
  uint16_t port() const;

  // Stops accepting connections; requests that arrive from now on get 503. Waits for every inference and
  // repository call already started to reply and for those replies to be written, closes every connection and
  // joins the threads. Call Server::Shutdown first to bound how long in-flight inference may take. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hone::serve::http
