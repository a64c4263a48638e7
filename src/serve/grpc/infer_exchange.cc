#include "serve/grpc/infer_exchange.h"

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "serve/grpc/infer_codec.h"

namespace hone::serve::grpc_front {

Result<InferenceRequest> ToServerRequest(std::shared_ptr<InferCallMessages> messages, int64_t max_message_bytes) {
  const inference::ModelInferRequest& message = messages->request;
  HONE_ASSIGN_OR_RETURN(InferenceRequest request, ToInferenceRequest(message, std::move(messages)));
  // Room for the response's own fields (names, shapes, the echoed id) beside the output bytes; the exact size is
  // checked again once the response is encoded.
  const int64_t reserve =
      std::min<int64_t>(64 << 10, max_message_bytes / 16) + static_cast<int64_t>(message.id().size());
  request.max_response_bytes = static_cast<uint64_t>(std::max<int64_t>(max_message_bytes - reserve, 1));
  return request;
}

Status FillInferResponse(Server& server, int64_t max_message_bytes, const Result<InferenceResponse>& result,
                         inference::ModelInferResponse* response) {
  Status status = result.ok() ? ToModelInferResponse(*result, response) : result.status();
  if (status.ok() && response->ByteSizeLong() > static_cast<size_t>(max_message_bytes)) {
    status = Status::ResourceExhausted(fmt::format(
        "model '{}' version {}: the response message is {} bytes, more than the {} bytes gRPC may send (raise "
        "hone serve --grpc-max-message-bytes)",
        result->model_name, result->model_version, response->ByteSizeLong(), max_message_bytes));
  }
  if (!status.ok() && result.ok()) {
    LogWarning("gRPC: response to '{}' not sent: {}", result->id, status.message());
    server.RecordUndelivered(result->model_name, result->model_version);
    response->Clear();
  }
  return status;
}

}  // namespace hone::serve::grpc_front
