#include "tune/deploy_manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "base/atomic_file.h"

namespace hone::tune {

std::string KubernetesName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "model" : out;
}

std::string ServiceName(const std::string& model_path, const std::string& model_name) {
  if (model_name != "model") return KubernetesName(model_name);
  const std::string folder = std::filesystem::path(model_path).parent_path().filename().string();
  return KubernetesName(folder.empty() || folder == "." || folder == ".." ? model_name : folder);
}

std::string InferenceServiceYaml(const DeployFacts& f) {
  const std::string name = KubernetesName(f.service_name.empty() ? f.model_name : f.service_name);
  // The tightest SLO's capacity sets the autoscaling target: the load one replica holds within every SLO.
  const SloCapacity* target = nullptr;
  for (const SloCapacity& c : f.capacity) {
    if (!c.holds_up_to) continue;
    if (!target || (c.holds_up_to->open_loop() ? c.holds_up_to->rate : double(c.holds_up_to->concurrency)) <
                       (target->holds_up_to->open_loop() ? target->holds_up_to->rate
                                                         : double(target->holds_up_to->concurrency))) {
      target = &c;
    }
  }
  std::string y;
  y += "# Written by hone tune for " + f.repository + " (report.json beside it holds every measurement).\n";
  y += "# Serves that repository with hone's ServingRuntime \"kserve-honeserver\" (deploy/kserve/ in hone's source).\n";
  y += "# Before applying it: copy the repository where the cluster reads models and set storageUri to it.\n";
  y += fmt::format("# Measured on: {}, {} core{}.\n", f.cpu_model.empty() ? "this machine" : f.cpu_model, f.cores,
                   f.cores == 1 ? "" : "s");
  for (const SloCapacity& c : f.capacity) y += "# Capacity: " + CapacitySentence(c, f.cores) + ".\n";
  if (f.replicas) {
    y += fmt::format("# Replicas for the expected {}: {} ({}).\n", f.replicas->expected.Label(), f.replicas->replicas,
                     f.replicas->arithmetic);
  }
  y += "apiVersion: serving.kserve.io/v1beta1\n";
  y += "kind: InferenceService\n";
  y += "metadata:\n";
  y += fmt::format("  name: {}\n", name);
  if (target) {
    // KServe's default mode (Standard: a Deployment and an HPA) scales on CPU or memory only; concurrency and
    // requests per second are Knative's autoscaler's metrics.
    y += "  annotations:\n";
    y += "    serving.kserve.io/deploymentMode: Knative\n";
  }
  y += "spec:\n";
  y += "  predictor:\n";
  const int min_replicas = f.replicas && f.replicas->replicas > 0 ? f.replicas->replicas : 1;
  y += fmt::format("    minReplicas: {}\n", min_replicas);
  y += fmt::format("    maxReplicas: {}\n", std::max(2 * min_replicas, 2));
  if (target) {
    if (target->holds_up_to->open_loop()) {
      y += "    # Scale out before a replica receives more than the rate it holds within " + target->slo.text + ".\n";
      y += "    scaleMetric: rps\n";
      y += fmt::format("    scaleTarget: {}\n", std::max<int64_t>(1, std::llround(std::floor(target->holds_up_to->rate))));
    } else {
      y += "    # Scale out before a replica holds more requests in flight than it serves within " + target->slo.text +
           ".\n";
      y += "    scaleMetric: concurrency\n";
      y += fmt::format("    scaleTarget: {}\n", target->holds_up_to->concurrency);
    }
  } else {
    y += "    # No autoscaling target: tune did not measure what one replica holds (see report.json's capacity).\n";
  }
  y += "    model:\n";
  y += "      modelFormat:\n";
  y += "        name: onnx\n";
  y += "      runtime: kserve-honeserver\n";
  y += "      protocolVersion: v2\n";
  y += fmt::format("      storageUri: pvc://models/{}  # where the repository is stored: set it\n", name);
  y += "      resources:\n";
  y += "        # The cores tune measured on; hone serve splits them between its instances. Add the memory the pod\n";
  y += "        # needs (hone bench --model-repository on the repository reports its peak RSS).\n";
  y += "        requests:\n";
  y += fmt::format("          cpu: \"{}\"\n", std::max(f.cores, 1));
  y += "        limits:\n";
  y += fmt::format("          cpu: \"{}\"\n", std::max(f.cores, 1));
  return y;
}

Status WriteDeployManifests(const DeployFacts& facts, const std::string& out_dir) {
  const std::filesystem::path dir = std::filesystem::path(out_dir) / "deploy";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::NotFound(fmt::format("cannot create '{}': {}", dir.string(), ec.message()));
  return WriteFileAtomically((dir / "inferenceservice.yaml").string(), InferenceServiceYaml(facts));
}

}  // namespace hone::tune
