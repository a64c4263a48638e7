// The one place where hone's Status and gRPC's status meet. hone's StatusCode values are gRPC's codes one to one
// (base/status.h), so the mapping keeps code and message as they are.
#pragma once

#include <string_view>

#include <grpcpp/support/status.h>

#include "base/status.h"

namespace hone::client {

// The gRPC status a handler returns for `status` (OK for ok).
::grpc::Status ToGrpcStatus(const Status& status);

// The hone Status for a gRPC status a client received; `what` ("ModelInfer to 127.0.0.1:8001") prefixes the
// message of an error, so that a failure names the call and the server.
Status FromGrpcStatus(const ::grpc::Status& status, std::string_view what);

}  // namespace hone::client
