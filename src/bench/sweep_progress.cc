#include "bench/sweep_progress.h"

namespace hone::bench {

SweepProgress::SweepProgress(Progress* progress, const std::atomic<bool>* stop, std::vector<BenchPoint> all,
                             std::vector<std::string> session_labels)
    : progress_(progress), stop_(stop), all_(std::move(all)), session_labels_(std::move(session_labels)) {
  if (progress_) progress_->Start(all_.size());
}

bool SweepProgress::stopped() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

std::string SweepProgress::Label(size_t index) const {
  const BenchPoint& p = all_.at(index);
  if (session_labels_.size() < 2 || p.session_index >= session_labels_.size()) return p.Label();
  return p.Label() + " (" + session_labels_[p.session_index] + ")";
}

void SweepProgress::Window(size_t index, const WindowProgress& window) {
  if (progress_) progress_->Update(Label(index) + ": " + DescribeWindow(window));
}

void SweepProgress::Done(size_t index) {
  if (progress_) progress_->StepDone(index + 1, Label(index));
}

void SweepProgress::Interrupted(size_t index, BenchReport& report) const {
  report.interrupted = true;
  for (size_t i = index; i < all_.size(); ++i) report.points_not_run.push_back(all_[i]);
}

}  // namespace hone::bench
