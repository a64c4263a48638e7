// How the cores are split among the ONNX Runtime intra-op threads of every instance of every model a server holds:
// each instance's threads are busy at once under load, so the instances of all models together, not of each
// model alone, must fit the cores. A pure function, so the split is tested without loading anything.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hone::serve {

struct ThreadDemand {
  std::string model;
  int instances = 1;  // every instance of every loaded version; 0: none runs an ONNX Runtime session
  // The config's parameters { intra_op_thread_count }: the user's choice, kept as is (0: ONNX Runtime's default,
  // one thread per core). nullopt: the config leaves it to hone.
  std::optional<int> explicit_threads;
};

struct ThreadShare {
  int threads_per_instance = 1;
  std::string why;  // for the log: "2 core(s) split over 4 instance(s) of 2 model(s)"
};

// Models with explicit threads keep them and their threads (cores for 0) come off the cores first; the cores
// left are split evenly over the instances of the other models, at least one thread each (so with more instances
// than cores, each gets 1), and the cores an even split leaves over go one more per instance to the models in
// name order while a whole model's instances can take one more each. Keyed by model.
std::map<std::string, ThreadShare> SplitThreads(int cores, const std::vector<ThreadDemand>& demands);

}  // namespace hone::serve
