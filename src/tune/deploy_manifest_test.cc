// The InferenceService tune writes: its name is a valid Kubernetes name, its autoscaling target is the load one
// replica holds within the tightest SLO, and its replicas are the expected load's.
#include "tune/deploy_manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hone::tune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SloCapacity Holding(const char* slo_text, Load holds) {
  SloCapacity c;
  c.slo = *ParseSlo(slo_text);
  c.holds_up_to = holds;
  c.throughput_sps = 1000;
  c.percentile_ns = 4000000;
  c.repeats = 3;
  return c;
}

TEST(DeployManifest, KubernetesNamesAreLowerCaseDns1123Labels) {
  EXPECT_EQ(KubernetesName("Fashion_MNIST.v2"), "fashion-mnist-v2");
  EXPECT_EQ(KubernetesName("__"), "model");
  EXPECT_EQ(KubernetesName("-a-"), "a");
  EXPECT_EQ(KubernetesName(std::string(80, 'x')).size(), 63u);
}

TEST(DeployManifest, AModelFileNamedModelDeploysUnderItsFolderName) {
  EXPECT_EQ(ServiceName("models/fashion_mnist/model.onnx", "model"), "fashion-mnist");
  EXPECT_EQ(ServiceName("model.onnx", "model"), "model");
  EXPECT_EQ(ServiceName("a/b/resnet50.onnx", "resnet50"), "resnet50");
  DeployFacts f{"model", "fashion-mnist", "r", "", 2, {}, std::nullopt};
  EXPECT_THAT(InferenceServiceYaml(f), HasSubstr("  name: fashion-mnist\n"));
  EXPECT_THAT(InferenceServiceYaml(f), HasSubstr("pvc://models/fashion-mnist "));
}

TEST(DeployManifest, TheTightestSloSetsTheConcurrencyTargetAndTheReplicasTheMinimum) {
  DeployFacts f{"Model", "", "out/repository", "AMD EPYC", 2,
                {Holding("p99<=20ms@concurrency=8", Load::Closed(12)), Holding("p99<=5ms@concurrency=2", Load::Closed(3))},
                ReplicaPlan{Load::Closed(20), 7, "p99<=5ms@concurrency=2: concurrency 20 / 3 per replica -> 7 replicas"}};
  const std::string y = InferenceServiceYaml(f);
  EXPECT_THAT(y, HasSubstr("kind: InferenceService\n"));
  EXPECT_THAT(y, HasSubstr("  name: model\n"));
  EXPECT_THAT(y, HasSubstr("    minReplicas: 7\n    maxReplicas: 14\n"));
  EXPECT_THAT(y, HasSubstr("    scaleMetric: concurrency\n    scaleTarget: 3\n"));
  // Concurrency is Knative's autoscaler's metric, not the HPA's of KServe's default (Standard) mode.
  EXPECT_THAT(y, HasSubstr("  annotations:\n    serving.kserve.io/deploymentMode: Knative\n"));
  EXPECT_THAT(y, HasSubstr("      runtime: kserve-honeserver\n      protocolVersion: v2\n"));
  EXPECT_THAT(y, HasSubstr("          cpu: \"2\"\n"));
  EXPECT_THAT(y, HasSubstr("# Measured on: AMD EPYC, 2 cores.\n"));
}

TEST(DeployManifest, ARateSloScalesOnRequestsPerSecond) {
  DeployFacts f{"m", "", "r", "", 4, {Holding("p95<=20ms@rate=500", Load::Open(987.6))}, std::nullopt};
  const std::string y = InferenceServiceYaml(f);
  EXPECT_THAT(y, HasSubstr("    scaleMetric: rps\n    scaleTarget: 987\n"));
  EXPECT_THAT(y, HasSubstr("    minReplicas: 1\n"));
}

TEST(DeployManifest, WithoutCapacityThereIsNoTargetAndTheManifestSaysWhy) {
  DeployFacts f{"m", "", "r", "", 2, {}, std::nullopt};
  const std::string y = InferenceServiceYaml(f);
  EXPECT_THAT(y, Not(HasSubstr("scaleTarget")));
  EXPECT_THAT(y, Not(HasSubstr("deploymentMode")));
  EXPECT_THAT(y, HasSubstr("No autoscaling target"));
}

}  // namespace
}  // namespace hone::tune
