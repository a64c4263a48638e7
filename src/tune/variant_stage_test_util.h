// The fixture of the variant stages' tests (precision, compression): a model and its data written as tune's input,
// PrepareTune run on them, and the records the last stage left. Header-only, for the tests of this folder.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "onnx/quantize_test_models.h"
#include "runtime/session.h"
#include "tensor/npz.h"
#include "tune/tune_state.h"

namespace hone::tune::testing {

class VariantStageTest : public ::testing::Test {
 protected:
  // Writes `model`, and 400 rows of x of `sample` (without the batch) with labels that are its own FP32 argmax
  // (with_labels), as tune's data.
  void Prepare(const ::onnx::ModelProto& model, bool with_labels, Shape sample = {32}) {
    model_ = dir_.WriteModel("model.onnx", model);
    Shape shape = {400};
    shape.insert(shape.end(), sample.begin(), sample.end());
    Tensor x = onnx::testing::RandomTensor(shape, 5);
    std::vector<NamedTensor> data = {{"x", x}};
    if (with_labels) {
      auto session = runtime::Session::Open(model_, {});
      ASSERT_TRUE(session.ok()) << session.status().message();
      std::vector<Tensor> in = {x};
      auto out = (*session)->Run(in);
      ASSERT_TRUE(out.ok());
      Tensor labels = *Tensor::Allocate(DataType::kInt64, {400});
      auto y = (*out)[0].values<float>();
      const int64_t classes = (*out)[0].shape()[1];
      for (int64_t r = 0; r < 400; ++r) {
        auto row = y.subspan(static_cast<size_t>(r * classes), static_cast<size_t>(classes));
        labels.mutable_values<int64_t>()[static_cast<size_t>(r)] = std::max_element(row.begin(), row.end()) - row.begin();
      }
      data.push_back({"label", labels});
    }
    ASSERT_TRUE(WriteNpz(dir_.File("data.npz"), data, true).ok());
    settings_.model_path = model_;
    settings_.inputs.data_path = dir_.File("data.npz");
    settings_.quick = true;
    settings_.budget_s = 120;
    settings_.out_dir = dir_.str();
    given_.settings = &settings_;
    state_.budget.started = std::chrono::steady_clock::now();
    state_.budget.deadline = state_.budget.started + std::chrono::seconds(120);
    given_.work_dir = dir_.File("work");
    std::filesystem::create_directories(given_.work_dir);
    Status prepared = PrepareTune(given_);
    ASSERT_TRUE(prepared.ok()) << prepared.message();
    state_.ledger.incumbent = given_.baseline;
  }

  const VariantCheckRecord* CheckOf(const std::string& id) const {
    for (const VariantCheckRecord& c : state_.ledger.stages.back().variant_checks) {
      if (c.variant == id) return &c;
    }
    return nullptr;
  }

  // The variant checks the last stage recorded, for failure messages.
  std::string Checks() const {
    std::string s;
    for (const VariantCheckRecord& c : state_.ledger.stages.back().variant_checks) {
      s += c.variant + (c.outcome.passed() ? ": passed" : ": failed");
      for (const std::string& f : c.outcome.failures) s += "; " + f;
      s += "\n";
    }
    return s;
  }

  static bool AnyGateFailed(const harness::VariantOutcome& o) {
    if (!o.evaluate) return false;
    for (const check::GateResult& g : o.evaluate->gates) {
      if (!g.passed) return true;
    }
    return false;
  }

  onnx::testing::TempDir dir_;
  std::string model_;
  TuneSettings settings_;
  TuneGiven given_;
  TuneState state_{given_};
};

}  // namespace hone::tune::testing
