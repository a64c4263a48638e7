// One error model for all of hone: a code (gRPC's canonical codes, one to one) and a message that names the thing
// at fault and what was expected. Results cannot be dropped silently ([[nodiscard]]).
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace hone {

// Same numbers as grpc::StatusCode, so that serve maps them without a table.
enum class StatusCode {
  kOk = 0,
  kCancelled = 1,           // the caller gave up; retry is the caller's choice
  kUnknown = 2,             // an error from a layer that gave no better code
  kInvalidArgument = 3,     // bad input (wrong shape, dtype, malformed file); do not retry
  kDeadlineExceeded = 4,    // a timeout expired; may retry
  kNotFound = 5,            // a file, model, input or output that does not exist
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,   // a limit was hit (body size, memory)
  kFailedPrecondition = 9,  // the system is not in a state to do this (model not ready)
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,      // a feature, data type or operator hone does not support
  kInternal = 13,           // a bug or an invariant broken inside hone or ONNX Runtime
  kUnavailable = 14,        // transient (a full queue); retry
  kDataLoss = 15,
  kUnauthenticated = 16,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
  static Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
  static Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
  static Status Unknown(std::string m) { return {StatusCode::kUnknown, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: input 'x': expected FP32, got INT64", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "context: message"; ok stays ok.
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace hone

#define HONE_STATUS_CONCAT_INNER(a, b) a##b
#define HONE_STATUS_CONCAT(a, b) HONE_STATUS_CONCAT_INNER(a, b)

// Evaluates expr (a Status); returns it from the enclosing function when it is not ok.
#define HONE_RETURN_IF_ERROR(expr)              \
  do {                                          \
    ::hone::Status hone_status_ = (expr);       \
    if (!hone_status_.ok()) return hone_status_; \
  } while (0)

// Evaluates expr (a Result<T>); on error returns its status, else moves the value into lhs ("auto x" works).
#define HONE_ASSIGN_OR_RETURN(lhs, expr) \
  HONE_ASSIGN_OR_RETURN_IMPL(HONE_STATUS_CONCAT(hone_result_, __LINE__), lhs, expr)
#define HONE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
