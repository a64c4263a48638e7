// The check part end to end on the bundled Fashion-MNIST model: a model compared with itself passes, PyTorch's
// logits match ONNX Runtime's, a model with changed weights fails compare and the gate, the accuracy equals what
// the export script measured in PyTorch, and bad datasets get clear errors.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "check/compare_report.h"
#include "check/compare_runner.h"
#include "check/evaluate.h"
#include "check/evaluate_report.h"
#include "check/model_outputs.h"
#include "check/test_models.h"
#include "tensor/npy.h"
#include "tensor/npz.h"

namespace hone::check {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kDir = std::string(HONE_SOURCE_DIR) + "/models/fashion_mnist/";
const std::string kModel = kDir + "model.onnx";
const std::string kData = kDir + "test.npz";
const std::string kLogits = kDir + "reference_logits.npy";

class ModelCheckTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("hone_check_test_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
  }
  static std::string Path(const std::string& name) { return (*dir_ / name).string(); }

  // fc2.weight scaled by 1.001: logits move by about 0.1%, predictions hardly at all.
  static std::string Scaled() {
    std::string path = Path("scaled.onnx");
    if (!fs::exists(path)) {
      EXPECT_EQ(testing::ScaleWeights(kModel, "fc2.weight", 1.001f, path), "");
    }
    return path;
  }
  // fc2.weight's row for class 0 (T-shirt/top) zeroed: that class is rarely predicted any more.
  static std::string Broken() {
    std::string path = Path("broken.onnx");
    if (!fs::exists(path)) {
      EXPECT_EQ(testing::EditWeights(kModel, "fc2.weight", path,
                                     [](std::span<float> w) { std::fill(w.begin(), w.begin() + 64, 0.0f); }),
                "");
    }
    return path;
  }

  static CompareJob Job(const std::string& reference, const std::string& candidate) {
    CompareJob job;
    job.reference_path = reference;
    job.candidate_path = candidate;
    job.inputs.data_path = kData;
    job.session.intra_op_threads = 1;
    job.batch = 100;
    return job;
  }
  static EvaluateSettings Settings(const std::string& model) {
    EvaluateSettings s;
    s.model_path = model;
    s.inputs.data_path = kData;
    s.session.intra_op_threads = 1;
    s.batch = 100;
    return s;
  }

  static fs::path* dir_;
};
fs::path* ModelCheckTest::dir_ = nullptr;

TEST_F(ModelCheckTest, ModelComparedWithItselfPasses) {
  auto r = RunCompare(Job(kModel, kModel));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->passed());
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].reference_shape, (Shape{2000, 10}));
  EXPECT_EQ(r->outputs[0].errors.max_abs, 0);
  EXPECT_THAT(r->inputs, HasSubstr("2000 samples"));
}

TEST_F(ModelCheckTest, PyTorchLogitsMatchWithinTheExportTolerance) {
  CompareJob job = Job(kLogits, kModel);
  job.settings.tolerances.defaults = {1e-4, 0, {}};
  auto r = RunCompare(job);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->passed()) << CompareReportToText(*r);
  EXPECT_EQ(r->outputs[0].reference_name, "logits");  // the .npy's array takes the model's output name
  EXPECT_EQ(r->reference, "saved outputs '" + kLogits + "'");
}

TEST_F(ModelCheckTest, ScaledWeightsFailElementwiseCompare) {
  CompareJob job = Job(kModel, Scaled());
  ASSERT_TRUE(job.settings.tolerances.ParseAtol("1e-5").ok());
  EXPECT_TRUE(RunCompare(Job(kModel, Scaled()))->passed());  // the default rule: the same behaviour
  auto r = RunCompare(job);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->passed());
  const OutputComparison& o = r->outputs[0];
  EXPECT_GT(o.match.mismatched, 0);
  EXPECT_GT(o.errors.max_abs, 1e-4);
  EXPECT_LT(o.errors.mean_abs, 0.05);
  EXPECT_GT(o.errors.cosine_similarity, 0.9999);
  // The smallest atol it reports is the one that passes.
  CompareJob loose = Job(kModel, Scaled());
  loose.settings.tolerances.defaults.atol = o.match.min_atol;
  loose.settings.tolerances.defaults.rule = ToleranceRule::kAtolRtol;
  EXPECT_TRUE(RunCompare(loose)->passed());
}

TEST_F(ModelCheckTest, SavedOutputsServeAsEitherSide) {
  CompareJob save = Job(kModel, Scaled());
  save.save_reference_outputs = Path("reference.npz");
  save.save_candidate_outputs = Path("candidate.npy");
  ASSERT_TRUE(RunCompare(save).ok());
  auto r = RunCompare(Job(Path("reference.npz"), kModel));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->passed());
  EXPECT_TRUE(RunCompare(Job(Path("candidate.npy"), Scaled()))->passed());
  CompareJob elementwise = Job(Path("reference.npz"), Path("candidate.npy"));
  ASSERT_TRUE(elementwise.settings.tolerances.ParseAtol("1e-5").ok());
  EXPECT_FALSE(RunCompare(elementwise)->passed());
  CompareJob generated = Job(Path("reference.npz"), kModel);
  generated.inputs.data_path.clear();  // 64 generated samples: not what the outputs were made from
  EXPECT_THAT(RunCompare(generated).status().message(), HasSubstr("has 2000 rows, but the inputs"));
}

TEST_F(ModelCheckTest, AccuracyEqualsPyTorchsWithinATenthOfAPoint) {
  std::ifstream in(kDir + "export_report.json");
  const double pytorch = nlohmann::json::parse(in)["accuracy_held_out_2000"].get<double>();
  EvaluateSettings s = Settings(kModel);
  s.stability_epsilon = 0;
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->task, Task::kClassification);
  ASSERT_TRUE(r->candidate.metrics.classification);
  const ClassificationMetrics& c = *r->candidate.metrics.classification;
  EXPECT_NEAR(c.accuracy, pytorch, 0.001);
  EXPECT_EQ(c.samples, 2000);
  EXPECT_EQ(c.scores, ScoreKind::kLogits);
  EXPECT_EQ(c.calibration.reliability.size(), 15u);
  int64_t binned = 0;
  for (const auto& b : c.calibration.reliability) binned += b.count;
  EXPECT_EQ(binned, 2000);
  EXPECT_GT(c.macro_f1, 0.85);
  EXPECT_GT(c.top_k_accuracy, c.accuracy);
  EXPECT_EQ(r->truth, "labels 'label' (INT64 [2000])");
}

TEST_F(ModelCheckTest, SlicesPerturbationsAndStability) {
  EvaluateSettings s = Settings(kModel);
  s.slice_key = "label";
  s.perturbations = *ParsePerturbations("gaussian:0.05,brightness:0.2");
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->slices);
  ASSERT_EQ(r->slices->slices.size(), 10u);
  const auto& c = *r->candidate.metrics.classification;
  for (const SliceResult& slice : r->slices->slices)  // slicing by the true class gives per-class recall
    EXPECT_DOUBLE_EQ(slice.value, *c.recall[slice.id]);
  EXPECT_GT(r->slices->worst_gap, 0);
  ASSERT_EQ(r->candidate.perturbations.size(), 2u);
  EXPECT_GT(r->candidate.perturbations[0].drop, -0.01);
  ASSERT_TRUE(r->candidate.stability);
  EXPECT_EQ(r->candidate.stability->non_finite.total(), 0);
  EXPECT_LT(r->candidate.stability->max_change_ratio, 0.01);
  EXPECT_TRUE(FindMetric(r->metrics, "accuracy@gaussian:0.05"));
  EXPECT_TRUE(FindMetric(r->metrics, "accuracy_drop@brightness:0.2"));
  EXPECT_TRUE(FindMetric(r->metrics, "worst_slice_accuracy"));
  // The same seed gives the same numbers.
  auto again = Evaluate(s);
  EXPECT_EQ(again->candidate.perturbations[0].primary, r->candidate.perturbations[0].primary);
  EXPECT_THAT(EvaluateReportToText(*r), HasSubstr("slices by 'label'"));
}

TEST_F(ModelCheckTest, ChangedWeightsFailTheGate) {
  EvaluateSettings s = Settings(Broken());
  s.against_path = kModel;
  s.slice_key = "label";
  s.stability_epsilon = 0;
  s.gates = *ParseGates("accuracy_drop<=0.005,ece_increase<=0.01,worst_slice_drop<=0.01");
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->passed());
  EXPECT_FALSE(r->gates[0].passed);
  EXPECT_GT(r->gates[0].value, 0.01);
  EXPECT_FALSE(r->gates[2].passed);
  EXPECT_EQ(r->slices->worst_drop_id, 0);  // class 0 lost its weights
  ASSERT_TRUE(r->prediction_agreement);
  EXPECT_LT(*r->prediction_agreement, 0.99);

  EvaluateSettings same = Settings(kModel);
  same.against_path = kModel;
  same.stability_epsilon = 0;
  same.gates = s.gates;
  same.slice_key = "label";
  auto pass = Evaluate(same);
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  EXPECT_TRUE(pass->passed());
  EXPECT_EQ(FindMetric(pass->metrics, "accuracy_drop")->value, 0);
}

TEST_F(ModelCheckTest, AgainstSavedPyTorchLogits) {
  EvaluateSettings s = Settings(kModel);
  s.against_path = kLogits;
  s.stability_epsilon = 0;
  s.gates = *ParseGates("accuracy_drop<=0.001,prediction_agreement>=0.999");
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->passed()) << EvaluateReportToText(*r);
  EXPECT_EQ(r->reference->source, "saved outputs '" + kLogits + "'");
}

TEST_F(ModelCheckTest, OutputsGivenElsewhereAreWhatIsGated) {
  // The broken model's outputs, saved, stand for the intact model's clean run: the gate sees them, not the model.
  auto broken = Evaluate(Settings(Broken()));
  ASSERT_TRUE(broken.ok());
  auto session = runtime::Session::Open(Broken(), {});
  ASSERT_TRUE(session.ok());
  auto inputs = LoadInputs((*session)->metadata(), Settings(Broken()).inputs);
  ASSERT_TRUE(inputs.ok());
  auto outputs = RunOnAllSamples(**session, *inputs, RunOptions{100, nullptr});
  ASSERT_TRUE(outputs.ok());
  std::string saved = Path("broken_outputs.npz");
  ASSERT_TRUE(WriteSavedOutputs(saved, *outputs).ok());

  EvaluateSettings s = Settings(kModel);
  s.candidate_outputs_path = saved;
  s.against_path = kModel;
  s.stability_epsilon = 0;
  s.gates = *ParseGates("accuracy_drop<=0.005");
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->passed());
  EXPECT_DOUBLE_EQ(FindMetric(r->metrics, "accuracy")->value, FindMetric(broken->metrics, "accuracy")->value);
  EXPECT_THAT(r->candidate.source, HasSubstr("saved outputs '" + saved + "'"));

  // Outputs of fewer samples than the dataset's are refused, naming the file.
  std::vector<NamedTensor> fewer = {{(*outputs)[0].name, *(*outputs)[0].tensor.SliceRows(0, 10)}};
  std::string short_path = Path("short_outputs.npz");
  ASSERT_TRUE(WriteSavedOutputs(short_path, fewer).ok());
  s.candidate_outputs_path = short_path;
  auto bad = Evaluate(s);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(short_path));
}

TEST_F(ModelCheckTest, EmbeddingAgainstAReference) {
  // The logits stand in for embeddings: no labels, a reference model.
  NamedTensor image;
  std::vector<NamedTensor> arrays = *ReadNpz(kData);
  for (auto& a : arrays)
    if (a.name == "image") image = {"image", *a.tensor.SliceRows(0, 300)};
  ASSERT_TRUE(WriteNpz(Path("images.npz"), {image}, false).ok());
  EvaluateSettings s = Settings(Scaled());
  s.inputs.data_path = Path("images.npz");
  s.against_path = kModel;
  s.stability_epsilon = 0;
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->task, Task::kEmbedding);
  ASSERT_TRUE(r->candidate.metrics.embedding);
  EXPECT_GT(r->candidate.metrics.embedding->cosine_mean, 0.9999);
  EXPECT_GT(r->candidate.metrics.embedding->recall_at_k, 0.9);
  s.against_path.clear();
  EXPECT_THAT(Evaluate(s).status().message(), HasSubstr("has no labels"));
}

TEST_F(ModelCheckTest, RegressionAgainstFloatTargets) {
  // PyTorch's logits as regression targets: the errors are the export's numerical differences.
  std::vector<NamedTensor> arrays = *ReadNpz(kData);
  arrays[1] = {"target", *ReadNpy(kLogits)};
  NamedTensor group{"group", *Tensor::Allocate(DataType::kInt32, {2000})};
  for (int i = 0; i < 2000; ++i) group.tensor.mutable_values<int32_t>()[i] = i % 3;
  arrays.push_back(group);
  ASSERT_TRUE(WriteNpz(Path("regression.npz"), arrays, false).ok());
  EvaluateSettings s = Settings(kModel);
  s.inputs.data_path = Path("regression.npz");
  s.slice_key = "group";
  s.stability_epsilon = 0;
  s.gates = *ParseGates("mae<=1e-4,worst_slice_mae<=1e-4");
  auto r = Evaluate(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->task, Task::kRegression);
  ASSERT_TRUE(r->candidate.metrics.regression);
  EXPECT_GT(r->candidate.metrics.regression->mae, 0);
  EXPECT_LT(r->candidate.metrics.regression->rmse, 1e-4);
  EXPECT_EQ(r->candidate.metrics.regression->elements, 20000);
  EXPECT_TRUE(r->passed()) << EvaluateReportToText(*r);
  EXPECT_EQ(r->slices->slices.size(), 3u);
  EXPECT_EQ(r->slices->metric.better, Better::kLower);
}

// Datasets that are wrong in one way each, all with the model's image array.
class BadDatasetTest : public ModelCheckTest {
 protected:
  static std::vector<NamedTensor> Arrays() { return *ReadNpz(kData); }
  std::string Evaluated(const std::vector<NamedTensor>& arrays, Task task = Task::kAuto) {
    std::string path = Path("bad.npz");
    EXPECT_TRUE(WriteNpz(path, arrays, false).ok());
    EvaluateSettings s = Settings(kModel);
    s.inputs.data_path = path;
    s.task = task;
    s.stability_epsilon = 0;
    auto r = Evaluate(s);
    EXPECT_FALSE(r.ok());
    return r.status().message();
  }
};

TEST_F(BadDatasetTest, LabelsForFewerSamples) {
  auto arrays = Arrays();
  arrays[1].tensor = *arrays[1].tensor.SliceRows(0, 1999);
  EXPECT_THAT(Evaluated(arrays), HasSubstr("labels 'label' in '" + Path("bad.npz") +
                                           "': 1999 labels, but the dataset's inputs have 2000 samples"));
}

TEST_F(BadDatasetTest, LabelOutOfRange) {
  auto arrays = Arrays();
  arrays[1].tensor = arrays[1].tensor.Clone();
  arrays[1].tensor.mutable_values<int64_t>()[7] = 10;
  EXPECT_THAT(Evaluated(arrays), HasSubstr("sample 7 has label 10, but output 'logits' scores 10 classes (0..9)"));
}

TEST_F(BadDatasetTest, FloatLabelsForClassification) {
  auto arrays = Arrays();
  arrays[1].tensor = *Tensor::Allocate(DataType::kFp32, {2000});
  EXPECT_THAT(Evaluated(arrays, Task::kClassification), HasSubstr("expected integer class ids, got FP32"));
}

TEST_F(BadDatasetTest, RegressionTargetsOfTheWrongShape) {
  auto arrays = Arrays();
  arrays[1].tensor = *Tensor::Allocate(DataType::kFp32, {2000, 3});
  EXPECT_THAT(Evaluated(arrays), HasSubstr("does not fit output 'logits' of shape"));
}

TEST_F(BadDatasetTest, NoLabelsAndNoReference) {
  auto arrays = Arrays();
  arrays.pop_back();
  EXPECT_THAT(Evaluated(arrays), HasSubstr("has no labels (arrays: image"));
}

TEST_F(BadDatasetTest, NotAnNpz) {
  std::ofstream(Path("garbage.npz")) << "this is not a zip archive";
  EvaluateSettings s = Settings(kModel);
  s.inputs.data_path = Path("garbage.npz");
  auto r = Evaluate(s);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("garbage.npz"));
}

TEST_F(BadDatasetTest, MissingSliceAndOutput) {
  EvaluateSettings s = Settings(kModel);
  s.slice_key = "group";
  s.stability_epsilon = 0;
  EXPECT_THAT(Evaluate(s).status().message(), HasSubstr("--slice group: dataset '" + kData +
                                                        "' has no such array (arrays: image, label)"));
  s.slice_key.clear();
  s.output = "probs";
  EXPECT_THAT(Evaluate(s).status().message(), HasSubstr("--output-name probs: model '" + kModel + "' has no such output"));
}

}  // namespace
}  // namespace hone::check
