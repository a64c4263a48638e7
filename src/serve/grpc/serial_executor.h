// Runs blocking work one task at a time on a thread of its own. The gRPC front end hands it model loads and
// unloads (which block until the model is ready or gone) so that gRPC's callback threads, which also answer
// health and inference, never block on them.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace hone::serve::grpc_front {

class SerialExecutor {
 public:
  SerialExecutor();
  ~SerialExecutor();  // Stop()
  SerialExecutor(const SerialExecutor&) = delete;
  SerialExecutor& operator=(const SerialExecutor&) = delete;

  // Queues `task`; false (and `task` is dropped unrun) once Stop has begun. Thread-safe.
  bool Submit(std::function<void()> task);
  // Runs every task already queued, then joins the thread. Idempotent; call it from one thread at a time, never
  // from a task.
  void Stop();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::thread thread_;
};

}  // namespace hone::serve::grpc_front
