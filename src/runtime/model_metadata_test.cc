#include "runtime/model_metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/session.h"

namespace hone::runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

IoSpec Input(std::string name, Shape shape, std::vector<std::string> symbols = {}) {
  IoSpec in;
  in.name = std::move(name);
  in.type = DataType::kFp32;
  in.onnx_type = "float";
  in.shape = std::move(shape);
  in.symbols = symbols.empty() ? std::vector<std::string>(in.shape.size()) : std::move(symbols);
  return in;
}

ModelMetadata Inputs(std::vector<IoSpec> inputs) {
  ModelMetadata m;
  m.inputs = std::move(inputs);
  return m;
}

TEST(SharedBatchAxisTest, DynamicFirstDimensionsAreShared) {
  BatchAxis one = Inputs({Input("image", {-1, 1, 28, 28}, {"batch", "", "", ""})}).SharedBatchAxis();
  EXPECT_TRUE(one.shared);
  EXPECT_EQ(one.fixed_size, -1);
  EXPECT_TRUE(one.reason.empty());
  // A named and an unnamed dynamic dimension 0 go together (a server's metadata names none).
  EXPECT_TRUE(Inputs({Input("ids", {-1, -1}, {"batch", "seq"}), Input("mask", {-1, -1})}).SharedBatchAxis().shared);
  EXPECT_TRUE(Inputs({Input("a", {-1, 3}), Input("b", {-1})}).SharedBatchAxis().shared);
}

TEST(SharedBatchAxisTest, OneFixedSizeIsAFixedBatch) {
  BatchAxis axis = Inputs({Input("x", {1, 4}), Input("y", {1, 8, 8})}).SharedBatchAxis();
  EXPECT_TRUE(axis.shared);
  EXPECT_EQ(axis.fixed_size, 1);
}

TEST(SharedBatchAxisTest, AnythingElseIsNotShared) {
  BatchAxis scalar = Inputs({Input("x", {-1, 4}), Input("sr", {})}).SharedBatchAxis();
  EXPECT_FALSE(scalar.shared);
  EXPECT_EQ(scalar.reason, "input 'sr' is a scalar");

  BatchAxis sizes = Inputs({Input("input", {1, -1}), Input("state", {2, 1, 128})}).SharedBatchAxis();
  EXPECT_FALSE(sizes.shared);
  EXPECT_EQ(sizes.reason, "input 'input' has dimension 0 fixed to 1 but input 'state' to 2");

  BatchAxis mixed = Inputs({Input("x", {-1, 4}, {"batch", ""}), Input("state", {2, -1}, {"", "batch"})})
                        .SharedBatchAxis();
  EXPECT_FALSE(mixed.shared);
  EXPECT_THAT(mixed.reason, AllOf(HasSubstr("'state'"), HasSubstr("fixed to 2"), HasSubstr("'x'"),
                                  HasSubstr("dynamic")));

  BatchAxis names = Inputs({Input("audio", {-1, 80}, {"time", ""}), Input("speaker", {-1, 4}, {"batch", ""})})
                        .SharedBatchAxis();
  EXPECT_FALSE(names.shared);
  EXPECT_THAT(names.reason, AllOf(HasSubstr("'audio'"), HasSubstr("'time'"), HasSubstr("'speaker'"),
                                  HasSubstr("'batch'")));

  EXPECT_FALSE(ModelMetadata{}.SharedBatchAxis().shared);
}

TEST(SharedBatchAxisTest, AnOutputOfAnotherFixedSizeIsNotAStackOfSamples) {
  ModelMetadata flatten = Inputs({Input("x", {8, 16})});
  flatten.outputs = {Input("y", {128})};
  BatchAxis axis = flatten.SharedBatchAxis();
  EXPECT_FALSE(axis.shared);
  EXPECT_EQ(axis.reason, "output 'y' has dimension 0 fixed to 128 but input 'x' to 8");

  ModelMetadata reduce = Inputs({Input("x", {-1, 4})});
  reduce.outputs = {Input("sum", {1, 4})};
  EXPECT_THAT(reduce.SharedBatchAxis().reason, HasSubstr("output 'sum' has dimension 0 fixed to 1"));

  // Outputs that agree, are dynamic, scalars or of unknown shape leave the batch shared.
  ModelMetadata fine = Inputs({Input("x", {8, 16})});
  fine.outputs = {Input("y", {8, 2}), Input("z", {-1}), Input("loss", {})};
  EXPECT_TRUE(fine.SharedBatchAxis().shared);
}

TEST(SharedBatchAxisTest, FromLoadedModels) {
  auto stateful = Session::Open(std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/stateful.onnx", {});
  ASSERT_TRUE(stateful.ok()) << stateful.status().ToString();
  EXPECT_FALSE((*stateful)->metadata().SharedBatchAxis().shared);
  auto two = Session::Open(std::string(HONE_SOURCE_DIR) + "/src/runtime/testdata/two_inputs.onnx", {});
  ASSERT_TRUE(two.ok());
  EXPECT_TRUE((*two)->metadata().SharedBatchAxis().shared);
}

}  // namespace
}  // namespace hone::runtime
