#include "serve/http/reply_stream.h"

namespace hone::serve::http {

void ReplyStream::Write(std::string piece) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (gone_ || closed_ || piece.empty()) return;
    const bool was_empty = pending_.empty();
    pending_ += piece;
    if (was_empty) wake = wake_;  // a Take is due already otherwise
  }
  if (wake) wake();
}

void ReplyStream::Close() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    closed_ = true;
    wake = wake_;
  }
  if (wake) wake();
}

void ReplyStream::Attach(std::function<void()> wake) {
  bool due = false;
  {
    std::lock_guard lock(mu_);
    wake_ = std::move(wake);
    due = wake_ && (!pending_.empty() || closed_);
  }
  if (due) wake_();
}

bool ReplyStream::Take(std::string* out, bool* closed) {
  std::lock_guard lock(mu_);
  const bool any = !pending_.empty();
  out->append(pending_);
  pending_.clear();
  *closed = closed_;
  return any || closed_;
}

void ReplyStream::Abandon() {
  std::function<void()> gone;
  {
    std::lock_guard lock(mu_);
    if (gone_) return;
    gone_ = true;
    pending_.clear();
    wake_ = nullptr;
    if (!closed_) gone = std::move(on_client_gone_);
    on_client_gone_ = nullptr;
  }
  if (gone) gone();
}

}  // namespace hone::serve::http
