// ApiHandler::HandleInfer: the POST .../infer path, from received body to serialized reply.
#include "serve/http/api_handler.h"

#include "base/log.h"
#include "client/beast_body.h"
#include "serve/http/content_coding.h"
#include "serve/http/infer_request_codec.h"
#include "serve/http/infer_response_codec.h"

namespace hone::serve::http {
namespace {

// The reply for a finished inference; runs on the scheduler thread that completed it.
HttpReply InferReply(Result<InferenceResponse> result, const ResponseFormat& format, ContentCoding coding) {
  if (!result.ok()) return HttpReply::FromStatus(result.status());
  auto encoded = EncodeInferResponse(std::move(result).value(), format);
  if (!encoded.ok()) return HttpReply::FromStatus(encoded.status());
  HttpReply reply;
  if (encoded->has_binary) {
    reply.content_type = "application/octet-stream";
    reply.headers.emplace_back(std::string(client::kInferHeaderLength), std::to_string(encoded->json.size()));
  } else {
    reply.content_type = "application/json";
  }
  if (coding == ContentCoding::kIdentity) {
    reply.body = std::move(encoded->json);
    reply.tail = std::move(encoded->binary);
    reply.keep_alive = std::move(encoded->keep_alive);
  } else {
    // Compression copies anyway; one buffer holds the compressed JSON and binary sections. The
    // Inference-Header-Content-Length stays the uncompressed JSON size, as Triton sends it.
    std::vector<std::span<const std::byte>> pieces;
    pieces.push_back(std::as_bytes(std::span(encoded->json)));
    pieces.insert(pieces.end(), encoded->binary.begin(), encoded->binary.end());
    reply.body = Compress(coding, pieces);
    reply.headers.emplace_back("Content-Encoding", std::string(CodingName(coding)));
  }
  return reply;
}

}  // namespace

void ApiHandler::HandleInfer(const Route& route, ApiRequest request, ReplyCallback reply) {
  std::optional<uint64_t> header_length;
  if (request.header_length) {
    header_length = client::ParseLengthHeader(*request.header_length);
    if (!header_length)
      return reply(HttpReply::Error(400, "Inference-Header-Content-Length '" + *request.header_length +
                                             "' is not a byte count"));
  }

  std::shared_ptr<client::BodyBuffer> body = std::move(request.body);
  const ContentCoding request_coding = RequestCoding(request.content_encoding);
  if (request_coding == ContentCoding::kUnsupported) {
    HttpReply r = HttpReply::Error(415, "unsupported Content-Encoding '" + request.content_encoding +
                                            "'; supported: gzip, deflate, identity");
    r.headers.emplace_back("Accept-Encoding", "gzip, deflate");
    return reply(std::move(r));
  }
  if (request_coding != ContentCoding::kIdentity) {
    auto inflated = std::make_shared<client::BodyBuffer>();
    Status s = Decompress(request_coding, body->bytes(), options_.max_body_bytes,
                          static_cast<size_t>(header_length.value_or(0)), *inflated);
    if (s.code() == StatusCode::kResourceExhausted) return reply(HttpReply::Error(413, s.message()));
    if (!s.ok()) return reply(HttpReply::FromStatus(s));
    body = std::move(inflated);
  }

  InferBody in{body->bytes(), body->readable(), header_length, body};
  auto decoded = DecodeInferRequest(in);
  if (!decoded.ok()) return reply(HttpReply::FromStatus(decoded.status()));
  decoded->request.model_name = route.model;
  decoded->request.model_version = route.version;

  ReplyCallback done = std::move(reply);
  if (!Track(done)) return done(HttpReply::Error(503, "the server is shutting down"));
  // A slot lets this io thread run the batch itself if the request can start at once (api_handler.h); it is held
  // for the whole call, which returns only after such a run.
  CallerRunSlots::Held slot(caller_runs_);
  decoded->request.may_run_on_caller = slot.held();
  server_.Infer(std::move(decoded->request),
                [&server = server_, format = std::move(decoded->format),
                 coding = ResponseCoding(request.accept_encoding), done = std::move(done)](
                    Result<InferenceResponse> result) {
                  if (!result.ok()) return done(InferReply(std::move(result), format, coding));
                  // The server counted a success; if the client does not get it, count and log a failure too.
                  auto undelivered = [&server, model = result->model_name, version = result->model_version,
                                      id = result->id](std::string_view why) {
                    LogWarning("HTTP infer '{}' for model '{}' version {}: response not sent: {}", id, model,
                               version, why);
                    server.RecordUndelivered(model, version);
                  };
                  HttpReply reply = InferReply(std::move(result), format, coding);
                  if (reply.status != 200) {
                    undelivered(reply.body);
                  } else {
                    reply.on_send_failure = std::move(undelivered);
                  }
                  done(std::move(reply));
                });
}

}  // namespace hone::serve::http
