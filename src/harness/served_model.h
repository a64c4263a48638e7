// A model repository served by hone serve inside this process, on an ephemeral loopback port, for as long as the
// object lives: how tune measures a candidate through the server a user will run (the same scheduler, batcher,
// front ends and wire format), with the load generator on the same machine, as perf_analyzer would be.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "bench/remote_client.h"
#include "harness/server_assembly.h"
#include "serve/core/server.h"

namespace hone::harness {

class ServedModel {
 public:
  // Loads every model of `repository` (warm-up included) and starts the front end `protocol` speaks. A model that
  // does not load is FailedPrecondition with the server's reason.
  static Result<std::unique_ptr<ServedModel>> Start(const std::string& repository, const std::string& model,
                                                    bench::RemoteProtocol protocol);
  ~ServedModel() = default;  // drains in-flight requests (up to 5 s) and stops
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  // "127.0.0.1:PORT"
  const std::string& url() const { return url_; }
  bench::RemoteSettings Remote() const;
  serve::Server& server() { return assembled_->server(); }
  // The time from Start's call to every model ready (repository read, sessions open, warm-up done).
  double ready_s() const { return ready_s_; }

 private:
  ServedModel() = default;
  std::unique_ptr<AssembledServer> assembled_;
  std::string url_, model_;
  bench::RemoteProtocol protocol_ = bench::RemoteProtocol::kHttp;
  double ready_s_ = 0;
};

}  // namespace hone::harness
