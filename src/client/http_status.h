// The one place where hone's status codes become HTTP statuses (STYLE.md: "hone errors become HTTP statuses and
// gRPC codes in exactly one place in serve"), and back: here, below serve, because the client reads them too.
//
// Triton's mapping, so that clients written against Triton see the same statuses:
//   InvalidArgument, NotFound, FailedPrecondition, OutOfRange, AlreadyExists, Cancelled, Unknown -> 400
//   Unavailable, DeadlineExceeded -> 503   Internal, DataLoss -> 500   Unimplemented -> 501
//   PermissionDenied -> 403   Unauthenticated -> 401   ResourceExhausted -> 429   Aborted -> 409
// NotFound is 400, not 404: the server reports unknown models, versions, inputs and outputs as NotFound, and Triton
// answers all of those with 400 (its core marks an unknown model INVALID_ARG); KServe v2 says errors are "typically
// 400". 404 is kept for paths that name no endpoint. DeadlineExceeded is a queue timeout, which Triton reports as
// UNAVAILABLE (503: the client may retry).
#pragma once

#include "base/status.h"

namespace hone::client {

int HttpStatusFor(StatusCode code);

// The other way, for a client reading an error reply: 400 InvalidArgument, 401 Unauthenticated, 403
// PermissionDenied, 404 NotFound, 409 Aborted, 413/429/431 ResourceExhausted, 501 Unimplemented, 503
// Unavailable, 504 DeadlineExceeded, other 5xx Internal, anything else Unknown.
StatusCode StatusCodeForHttp(int http_status);

}  // namespace hone::client
