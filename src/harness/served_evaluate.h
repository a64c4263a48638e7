// `hone evaluate MODEL --model-repository DIR`: the quality of a repository's model as hone serve runs it, an
// ensemble with its processing stages included, on raw inputs (text lines, a folder of images) or an .npz.
//
//   classification   the output's scores against labels: a --labels-file of one integer a line, in the order of
//                    the samples (a folder's files sorted by name), or the dataset's label array
//   embedding        the output against the same model's output in another repository (--against-repository,
//                    the float pipeline beside a quantized one, say): cosine, recall@k of nearest neighbours,
//                    how the pairwise similarities shift
//   regression       an .npz's float targets
// The task and the truth are resolved as for a model file (check/truth.h), --labels-file being one more array.
// Both models run in this process (serve's model manager, schedulers and stages, no network). Perturbations,
// slices and the stability probe are for model files (check/evaluate.h); they are refused here.
#pragma once

#include <string>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "check/evaluate.h"

namespace hone::harness {

struct ServedEvaluateSettings {
  std::string repository;
  std::string model;
  int64_t version = 0;
  std::string against_repository;  // the reference: the same model name served from here; empty: none
  std::string labels_file;         // classification truth for raw inputs; empty: the dataset's label array
  // data_path, task, output, labels_key, task_options and gates as for check::Evaluate; batch: samples a request.
  check::EvaluateSettings check;
};

// Errors name what is wrong: a model that does not load (with the server's reason), an output the model lacks,
// labels that do not match the samples, a flag that does not apply.
Result<check::EvaluateReport> EvaluateServed(const ServedEvaluateSettings& settings);

}  // namespace hone::harness
