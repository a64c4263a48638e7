// OUT/deploy/inferenceservice.yaml: tune's answer to "how do we run this on our cluster": a KServe
// InferenceService for OUT/repository on hone's serving runtime (kserve-honeserver), with the CPU tune measured
// on as its resources, an autoscaling target from what one replica holds within the SLO (Knative's concurrency,
// or requests per second for a rate SLO), and the replicas the expected load needs. Every figure comes with a
// comment saying where it came from; what tune cannot know (where the repository is stored, the memory the pod
// needs) is marked for the user to fill in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "tune/capacity.h"

namespace hone::tune {

struct DeployFacts {
  std::string model_name;     // the repository's model
  std::string service_name;   // the InferenceService's name (ServiceName); the model's when empty
  std::string repository;     // OUT/repository, for the comment
  std::string cpu_model;      // the machine measured on
  int cores = 0;
  std::vector<SloCapacity> capacity;
  std::optional<ReplicaPlan> replicas;
};

// The manifest's text.
std::string InferenceServiceYaml(const DeployFacts& facts);

// A Kubernetes object name from a model name: lower case letters, digits and '-', starting and ending with a
// letter or digit, at most 63 characters ("Fashion_MNIST.v2" -> "fashion-mnist-v2"; "model" when nothing is left).
std::string KubernetesName(const std::string& name);

// The InferenceService's name for the model at `model_path` served as `model_name`: the model's name, or, when
// that is the generic "model" (a file named model.onnx), the folder holding it ("models/fashion_mnist/model.onnx"
// -> "fashion-mnist"), so that two tuned models do not both deploy as "model".
std::string ServiceName(const std::string& model_path, const std::string& model_name);

// Writes OUT/deploy/inferenceservice.yaml (atomically).
Status WriteDeployManifests(const DeployFacts& facts, const std::string& out_dir);

}  // namespace hone::tune
