#include "client/http_status.h"

namespace hone::client {

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kOutOfRange:
    case StatusCode::kAlreadyExists:
    case StatusCode::kCancelled:
    case StatusCode::kUnknown: return 400;
    case StatusCode::kUnauthenticated: return 401;
    case StatusCode::kPermissionDenied: return 403;
    case StatusCode::kAborted: return 409;
    case StatusCode::kResourceExhausted: return 429;
    case StatusCode::kInternal:
    case StatusCode::kDataLoss: return 500;
    case StatusCode::kUnimplemented: return 501;
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded: return 503;
  }
  return 500;
}

StatusCode StatusCodeForHttp(int http_status) {
  switch (http_status) {
    case 200: return StatusCode::kOk;
    case 400: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 409: return StatusCode::kAborted;
    case 413:
    case 429:
    case 431: return StatusCode::kResourceExhausted;
    case 501: return StatusCode::kUnimplemented;
    case 503: return StatusCode::kUnavailable;
    case 504: return StatusCode::kDeadlineExceeded;
    default: return http_status >= 500 && http_status < 600 ? StatusCode::kInternal : StatusCode::kUnknown;
  }
}

}  // namespace hone::client
