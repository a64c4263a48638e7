// What ModelInfer and ModelStreamInfer do alike around Server::Infer: the request as the server takes it, and the
// server's result as the message gRPC sends.
#pragma once

#include <cstdint>
#include <memory>

#include "base/result.h"
#include "client/grpc_service.pb.h"
#include "serve/core/inference.h"
#include "serve/core/server.h"
#include "serve/grpc/infer_call.h"

namespace hone::serve::grpc_front {

// The InferenceRequest for `messages->request` (its tensors borrow the message; `messages` becomes keep_alive),
// asking the server for outputs that fit in `max_message_bytes` with room for the response's own fields.
Result<InferenceRequest> ToServerRequest(std::shared_ptr<InferCallMessages> messages, int64_t max_message_bytes);

// Fills `response` from the server's `result`. A result that does not fit in `max_message_bytes` once encoded is
// RESOURCE_EXHAUSTED, logged and counted as undelivered (Server::RecordUndelivered) rather than left to gRPC, which
// would fail it without a word while the server counted a success; `response` is then cleared.
Status FillInferResponse(Server& server, int64_t max_message_bytes, const Result<InferenceResponse>& result,
                         inference::ModelInferResponse* response);

}  // namespace hone::serve::grpc_front
