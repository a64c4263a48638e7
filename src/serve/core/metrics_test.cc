#include "serve/core/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/counter.h>

#include "serve/core/model_stats.h"
#include "serve/core/scheduler_test_util.h"

namespace hone::serve {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsTest, LatencyBucketsSpanTenMicrosecondsToTenSecondsFinely) {
  const auto& b = MetricsRegistry::LatencyBuckets();
  ASSERT_FALSE(b.empty());
  EXPECT_DOUBLE_EQ(b.front(), 1e-5);
  EXPECT_DOUBLE_EQ(b.back(), 10.0);
  for (size_t i = 1; i < b.size(); ++i) {
    EXPECT_GT(b[i], b[i - 1]);
    EXPECT_LE(b[i] / b[i - 1], 1.29) << "between " << b[i - 1] << " and " << b[i];
  }
}

TEST(MetricsTest, BatchSizeBucketsEndAtMaxBatchSize) {
  EXPECT_EQ(MetricsRegistry::BatchSizeBuckets(4), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(MetricsRegistry::BatchSizeBuckets(40), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 40}));
  EXPECT_EQ(MetricsRegistry::BatchSizeBuckets(0), (std::vector<double>{1}));
}

TEST(MetricsTest, ModelStatsFeedTritonsSeriesAndHonesHistograms) {
  MetricsRegistry metrics;
  ModelStats stats("resnet", 2, 8, &metrics);
  stats.AddPending(1);
  stats.RecordExecution(3, 1000, 2000, 3000);
  stats.RecordSuccess(50000, 4000, 1000, 2000, 3000, 3);
  stats.RecordFailure(9000);
  const std::string text = metrics.Text();
  const std::string labels = "{model=\"resnet\",version=\"2\"}";
  EXPECT_THAT(text, HasSubstr("# TYPE nv_inference_request_success counter"));
  EXPECT_THAT(text, HasSubstr("nv_inference_request_success" + labels + " 1"));
  EXPECT_THAT(text, HasSubstr("nv_inference_request_failure" + labels + " 1"));
  EXPECT_THAT(text, HasSubstr("nv_inference_count" + labels + " 3"));
  EXPECT_THAT(text, HasSubstr("nv_inference_exec_count" + labels + " 1"));
  EXPECT_THAT(text, HasSubstr("nv_inference_request_duration_us" + labels + " 50"));
  EXPECT_THAT(text, HasSubstr("nv_inference_queue_duration_us" + labels + " 4"));
  EXPECT_THAT(text, HasSubstr("nv_inference_compute_input_duration_us" + labels + " 1"));
  EXPECT_THAT(text, HasSubstr("nv_inference_compute_infer_duration_us" + labels + " 2"));
  EXPECT_THAT(text, HasSubstr("nv_inference_compute_output_duration_us" + labels + " 3"));
  EXPECT_THAT(text, HasSubstr("# TYPE nv_inference_pending_request_count gauge"));
  EXPECT_THAT(text, HasSubstr("nv_inference_pending_request_count" + labels + " 1"));
  EXPECT_THAT(text, HasSubstr("# TYPE hone_request_duration_seconds histogram"));
  EXPECT_THAT(text, HasSubstr("hone_request_duration_seconds_bucket{model=\"resnet\",version=\"2\",le=\"5e-05\"} 1"));
  EXPECT_THAT(text, HasSubstr("hone_request_duration_seconds_bucket{model=\"resnet\",version=\"2\",le=\"4e-05\"} 0"));
  EXPECT_THAT(text, HasSubstr("hone_queue_duration_seconds_count" + labels + " 1"));
  EXPECT_THAT(text, HasSubstr("hone_compute_duration_seconds_sum" + labels + " 6e-06"));
  EXPECT_THAT(text, HasSubstr("hone_batch_size_bucket{model=\"resnet\",version=\"2\",le=\"3\"} 1"));
  EXPECT_THAT(text, HasSubstr("le=\"1.25e-05\""));  // bounds print as written
}

TEST(MetricsTest, SeriesLeaveWhenTheLastHolderOfAVersionGoes) {
  MetricsRegistry metrics;
  auto first = std::make_unique<ModelStats>("m", 1, 4, &metrics);
  auto reload = std::make_unique<ModelStats>("m", 1, 4, &metrics);  // the same version, loaded again
  ModelStats other("m", 2, 4, &metrics);
  first->RecordFailure(1);
  reload->RecordFailure(1);
  EXPECT_THAT(metrics.Text(), HasSubstr("nv_inference_request_failure{model=\"m\",version=\"1\"} 2"));
  first.reset();
  EXPECT_THAT(metrics.Text(), HasSubstr("nv_inference_request_failure{model=\"m\",version=\"1\"} 2"));
  reload.reset();
  const std::string text = metrics.Text();
  EXPECT_THAT(text, Not(HasSubstr("version=\"1\"")));
  EXPECT_THAT(text, HasSubstr("nv_inference_request_failure{model=\"m\",version=\"2\"} 0"));
}

TEST(MetricsTest, HandlesMayOutliveTheRegistry) {
  auto metrics = std::make_unique<MetricsRegistry>();
  std::shared_ptr<ModelMetrics> handle = metrics->ForModel("m", 1, 4);
  ModelStats stats("m", 1, 4, metrics.get());
  stats.RecordFailure(1);
  metrics.reset();
  // Still valid: the handles keep the series alive (ASan reports a use after free if they do not), and they still
  // count.
  stats.RecordFailure(1);
  handle->request_failure.Increment();
  EXPECT_EQ(handle->request_failure.Value(), 3);  // both holders share the series: two from stats, one here
  EXPECT_EQ(stats.Snapshot().fail.count, 2u);
}

TEST(MetricsTest, SchedulerTrafficShowsUpInTheExposition) {
  MetricsRegistry metrics;
  {
    test::Harness h(test::Options("affine", 8), "affine", 1, 0, &metrics);
    ASSERT_NE(h.scheduler, nullptr);
    for (int i = 0; i < 3; ++i) h.Send(test::AffineRequest(2, 0), std::to_string(i));
    ASSERT_TRUE(h.out.WaitFor(3));
    const std::string text = metrics.Text();
    const std::string labels = "{model=\"affine\",version=\"1\"}";
    EXPECT_THAT(text, HasSubstr("nv_inference_request_success" + labels + " 3"));
    EXPECT_THAT(text, HasSubstr("nv_inference_count" + labels + " 6"));
    EXPECT_THAT(text, HasSubstr("nv_inference_pending_request_count" + labels + " 0"));
    EXPECT_THAT(text, HasSubstr("hone_request_duration_seconds_count" + labels + " 3"));
  }
  EXPECT_THAT(metrics.Text(), Not(HasSubstr("model=\"affine\"")));  // unloaded: gone
}

}  // namespace
}  // namespace hone::serve
