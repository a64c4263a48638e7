#include "client/grpc_status.h"

#include <string>

namespace hone::client {

// Both enums follow the canonical code list (google.rpc.Code); pin the ends so that a change on either side breaks
// the build rather than the mapping.
static_assert(static_cast<int>(StatusCode::kInvalidArgument) == ::grpc::StatusCode::INVALID_ARGUMENT);
static_assert(static_cast<int>(StatusCode::kUnavailable) == ::grpc::StatusCode::UNAVAILABLE);
static_assert(static_cast<int>(StatusCode::kUnauthenticated) == ::grpc::StatusCode::UNAUTHENTICATED);

::grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return ::grpc::Status::OK;
  return ::grpc::Status(static_cast<::grpc::StatusCode>(status.code()), status.message());
}

Status FromGrpcStatus(const ::grpc::Status& status, std::string_view what) {
  if (status.ok()) return Status::Ok();
  int code = static_cast<int>(status.error_code());
  // A code outside the canonical list (a non-conforming peer) is reported as UNKNOWN, never cast blindly.
  StatusCode hone_code = code > 0 && code <= static_cast<int>(StatusCode::kUnauthenticated)
                             ? static_cast<StatusCode>(code)
                             : StatusCode::kUnknown;
  return Status(hone_code, std::string(what) + ": " + status.error_message());
}

}  // namespace hone::client
