// A reply whose body is written piece by piece as it is produced: Server-Sent Events for streamed generations.
// The handler puts one in HttpReply::stream; the connection sends the status and headers at once with chunked
// transfer encoding, then each piece as a chunk as soon as the producer writes it, then the last chunk.
//
// Producer side (any thread): Write and Close. Connection side (its strand): Attach, Take, Abandon. When the client
// goes away before Close (a write failed, the connection closed), the connection calls Abandon, which runs the
// producer's on_client_gone once (say, to cancel the generation and free its KV cache); later Writes are dropped.
#pragma once

#include <functional>
#include <mutex>
#include <string>

namespace hone::serve::http {

class ReplyStream {
 public:
  // `on_client_gone` runs at most once, on the connection's thread.
  explicit ReplyStream(std::function<void()> on_client_gone = {}) : on_client_gone_(std::move(on_client_gone)) {}

  // Queues a piece (dropped once the client is gone or after Close).
  void Write(std::string piece);
  // Ends the body after what was written.
  void Close();

  // Connection side. `wake` is called (from the producer's thread) when there is something to Take; nullptr
  // detaches it.
  void Attach(std::function<void()> wake);
  // Moves what was written since the last Take into `out` (appended); `closed` is true once Close was called and
  // everything was taken. Returns whether anything was taken or the stream is closed.
  bool Take(std::string* out, bool* closed);
  // The client is gone: runs on_client_gone (once) and drops everything after.
  void Abandon();

 private:
  std::mutex mu_;
  std::string pending_;
  bool closed_ = false;
  bool gone_ = false;
  std::function<void()> wake_;
  std::function<void()> on_client_gone_;
};

}  // namespace hone::serve::http
