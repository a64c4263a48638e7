#include "serve_binding.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <nanobind/stl/string.h>

#include "harness/server_assembly.h"
#include "status_binding.h"

namespace nb = nanobind;

namespace hone::python {
namespace {

class ServerHandle {
 public:
  // Opens the repository, binds the ports (0: any free one) and loads every model; a model that fails to load
  // stops the server and raises with the server's message (a Python caller wants all or nothing).
  ServerHandle(const std::string& repository, const std::string& host, int http_port, int grpc_port) {
    for (auto [name, port] : {std::pair{"http_port", http_port}, std::pair{"grpc_port", grpc_port}})
      if (port < 0 || port > 65535)
        ThrowIfError(Status::InvalidArgument(std::string(name) + " must be in [0, 65535] (0: any free port), got " +
                                             std::to_string(port)));
    harness::ServerAssemblyOptions o;
    o.server.model_repository = repository;
    o.http.emplace();
    o.http->host = host;
    o.http->port = static_cast<uint16_t>(http_port);
    o.grpc.emplace();
    o.grpc->host = host;
    o.grpc->port = grpc_port;
    nb::gil_scoped_release unlocked;
    server_ = ValueOrThrow(harness::AssembledServer::Open(o));
    if (Status loaded = server_->LoadModels(); !loaded.ok()) {
      server_->Abort();
      server_.reset();
      ThrowIfError(loaded);
    }
  }
  ~ServerHandle() { Stop(5.0); }

  int http_port() const { return server_ ? server_->http()->port() : 0; }
  int grpc_port() const { return server_ ? server_->grpc()->port() : 0; }
  bool running() const { return server_ != nullptr; }

  // Stops taking requests, lets those in flight finish for up to `grace_s`, then closes. Idempotent.
  // Taken out of the handle while the GIL is held, so that two threads stopping at once (a `with` block and a
  // watchdog) cannot both shut it down, and the ports read as 0 from then on.
  void Stop(double grace_s) {
    std::unique_ptr<harness::AssembledServer> server = std::move(server_);
    if (!server) return;
    nb::gil_scoped_release unlocked;
    server->Shutdown(std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(std::max(grace_s, 0.0) * 1000)));
  }

 private:
  std::unique_ptr<harness::AssembledServer> server_;
};

}  // namespace

void RegisterServe(nb::module_& m) {
  nb::class_<ServerHandle>(m, "Server")
      .def(nb::init<const std::string&, const std::string&, int, int>(), nb::arg("repository"), nb::arg("host"),
           nb::arg("http_port"), nb::arg("grpc_port"))
      .def_prop_ro("http_port", &ServerHandle::http_port)
      .def_prop_ro("grpc_port", &ServerHandle::grpc_port)
      .def_prop_ro("running", &ServerHandle::running)
      .def("stop", &ServerHandle::Stop, nb::arg("grace_s"));
}

}  // namespace hone::python
