// Answers one routed request against the Server facade; knows nothing of sockets (the connection hands it a
// request and a callback, and writes whatever reply comes back).
//
// Threads: status, metadata, config, statistics, index and metrics are answered inline on the calling (io)
// thread; the facade promises never to make them wait behind inference. Inference is asynchronous: the reply
// comes from the scheduler thread that finished the request (the response is serialized there, not on the io
// thread). Repository load and unload block until the model is loaded, so they run on `run_blocking`'s thread.
//
// One exception, for latency: up to `caller_runs` io threads at a time may run a request's batch themselves when
// an instance is idle and nothing is queued (InferenceRequest::may_run_on_caller), saving the hand-off to the
// instance's thread and back (two thread wake-ups, most of a lone request's overhead). The server keeps
// caller_runs below its io thread count, so one io thread is always free for health checks and other connections.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/body_buffer.h"
#include "serve/core/caller_run_slots.h"
#include "serve/core/server.h"
#include "serve/http/http_reply.h"
#include "serve/http/route.h"

namespace hone::serve::http {

struct ApiOptions {
  bool serve_api = true;       // the /v2 endpoints
  bool serve_metrics = true;   // GET /metrics
  bool repository_api = true;  // the repository extension (also needs the server's options().repository_api)
  size_t max_body_bytes = size_t{64} << 20;  // also bounds a decompressed body
  int caller_runs = 0;  // io threads that may run inference at once (see the header comment); 0: none
};

struct ApiRequest {
  Method method = Method::kOther;
  std::string target;
  std::shared_ptr<client::BodyBuffer> body;  // never null
  std::optional<std::string> header_length;  // the raw Inference-Header-Content-Length value, when sent
  std::string content_encoding;
  std::string accept_encoding;
};

using ReplyCallback = std::function<void(HttpReply)>;

class GenerateHandler;  // generate_handler.h

class ApiHandler {
 public:
  // `server` outlives the handler. `run_blocking` runs a task on a thread that may block (for load/unload).
  ApiHandler(Server& server, ApiOptions options, std::function<void(std::function<void()>)> run_blocking);
  ~ApiHandler();

  // Calls `reply` exactly once, on this thread or another (see the header comment).
  void Handle(ApiRequest request, ReplyCallback reply);

  // From now on, inference and repository requests are answered 503 at once (the server is going away).
  void StopAccepting();
  // While the server drains (Server::BeginDrain), every reply says `Connection: close` and the connection closes
  // after it: a client or balancer holding a keep-alive connection opens its next one elsewhere.
  bool CloseConnections() const { return server_.IsDraining(); }
  // Blocks until every reply that Handle started asynchronously has been delivered.
  void WaitIdle();

 private:
  HttpReply HandleSync(const Route& route, const ApiRequest& request);
  void HandleInfer(const Route& route, ApiRequest request, ReplyCallback reply);
  void HandleRepositoryControl(const Route& route, const ApiRequest& request, ReplyCallback reply);
  // Wraps `reply`, which another thread will call, so that it is counted until delivered. False, leaving `reply`
  // as it was, once StopAccepting has been called.
  bool Track(ReplyCallback& reply);

  Server& server_;
  const ApiOptions options_;
  std::function<void(std::function<void()>)> run_blocking_;

  CallerRunSlots caller_runs_;  // options_.caller_runs of them
  std::unique_ptr<GenerateHandler> generate_;  // the OpenAI endpoints and the generate extension

  std::mutex mu_;
  std::condition_variable idle_;
  int64_t in_flight_ = 0;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
};

}  // namespace hone::serve::http
