#include "onnx/model_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx/model_info.h"
#include "onnx/onnx_pb.h"
#include "onnx/test_models.h"

namespace hone::onnx {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::TinyModel;

// Every rejected file must say which file and that it is not a model, whichever entry point read it.
void ExpectNotAModel(const std::string& path, const std::string& why) {
  ::onnx::ModelProto model;
  Status status = ReadModelProto(path, &model);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("'" + path + "' is not an ONNX model: "));
  EXPECT_THAT(status.message(), HasSubstr(why));
  Result<ModelInfo> info = ReadModelInfo(path);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr(path));
}

TEST(ReadModelProtoTest, ReadsAModel) {
  TempDir dir;
  std::string path = dir.WriteModel("tiny.onnx", TinyModel());
  ::onnx::ModelProto model;
  ASSERT_TRUE(ReadModelProto(path, &model).ok());
  EXPECT_EQ(model.ir_version(), 8);
  EXPECT_EQ(model.graph().node(0).op_type(), "Identity");
}

TEST(ReadModelProtoTest, MissingFileIsNotFoundNamingThePath) {
  TempDir dir;
  std::string path = dir.File("absent.onnx");
  ::onnx::ModelProto model;
  Status status = ReadModelProto(path, &model);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("'" + path + "'"));
  EXPECT_THAT(status.message(), HasSubstr("No such file"));
  Result<ModelInfo> info = ReadModelInfo(path);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(info.status().message(), HasSubstr(path));
}

TEST(ReadModelProtoTest, UnreadableFileIsNotFound) {
  TempDir dir;
  std::string path = dir.WriteModel("locked.onnx", TinyModel());
  std::filesystem::permissions(path, std::filesystem::perms::none);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::others_exec, std::filesystem::perm_options::add);
  // Root reads files whatever their mode, and the tests run as root on these machines (CI included): the read
  // happens in a child process that first becomes nobody, so the refused open is tested either way. The child
  // prints the status, and exits 0 only when it is NotFound naming the path.
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
          std::fprintf(stderr, "cannot become nobody\n");
          std::_Exit(2);
        }
        ::onnx::ModelProto model;
        Status status = ReadModelProto(path, &model);
        std::fprintf(stderr, "%s\n", status.ToString().c_str());
        std::_Exit(status.code() == StatusCode::kNotFound &&
                           status.message().find("'" + path + "'") != std::string::npos
                       ? 0
                       : 1);
      },
      ::testing::ExitedWithCode(0), "Permission denied");
}

// A path through a regular file cannot be opened by anyone, root included.
TEST(ReadModelProtoTest, APathThroughAFileIsNotFound) {
  TempDir dir;
  std::string file = dir.WriteModel("model.onnx", TinyModel());
  std::string path = file + "/model.onnx";
  ::onnx::ModelProto model;
  Status status = ReadModelProto(path, &model);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("'" + path + "'"));
  EXPECT_THAT(status.message(), HasSubstr("Not a directory"));
  Result<ModelInfo> info = ReadModelInfo(path);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(info.status().message(), HasSubstr(path));
}

TEST(ReadModelProtoTest, RejectsAnEmptyFile) {
  TempDir dir;
  ExpectNotAModel(dir.Write("empty.onnx", ""), "empty");
}

TEST(ReadModelProtoTest, RejectsADirectory) {
  TempDir dir;
  ExpectNotAModel(dir.File(""), "directory");
}

TEST(ReadModelProtoTest, RejectsAText) {
  TempDir dir;
  ExpectNotAModel(dir.Write("readme.onnx", "This is not a model.\nIt is a text file, as people write them.\n"), "");
  // Text that protobuf happens to parse as a message of unknown fields is still not a model.
  ExpectNotAModel(dir.Write("short.onnx", "hi"), "");
}

TEST(ReadModelProtoTest, RejectsAnNpyFile) {
  TempDir dir;
  std::string npy = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }         \n" + std::string(8, '\0');
  ExpectNotAModel(dir.Write("data.npy", npy), "");
}

TEST(ReadModelProtoTest, RejectsRandomBytes) {
  TempDir dir;
  for (uint32_t seed = 0; seed < 64; ++seed) {
    std::mt19937 rng(seed);
    std::string bytes(1 + rng() % 4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectNotAModel(dir.Write("random" + std::to_string(seed) + ".onnx", bytes), "");
  }
}

TEST(ReadModelProtoTest, RejectsATruncatedModel) {
  TempDir dir;
  ::onnx::ModelProto m = TinyModel();
  std::string bytes = m.SerializeAsString();
  ExpectNotAModel(dir.Write("cut.onnx", bytes.substr(0, bytes.size() - 3)), "");
}

TEST(ReadModelProtoTest, RejectsTrailingGarbageAfterAZeroTag) {
  TempDir dir;
  // A zero byte ends a protobuf parse "successfully"; the bytes after it must not be ignored.
  std::string bytes = TinyModel().SerializeAsString() + std::string(1, '\0') + "garbage";
  ExpectNotAModel(dir.Write("trailing.onnx", bytes), "stopped at byte");
}

TEST(ReadModelProtoTest, RejectsProtobufsMissingWhatEveryModelHas) {
  TempDir dir;
  ::onnx::ModelProto no_ir = TinyModel();
  no_ir.clear_ir_version();
  ExpectNotAModel(dir.WriteModel("no_ir.onnx", no_ir), "IR version");

  ::onnx::ModelProto no_graph = TinyModel();
  no_graph.clear_graph();
  ExpectNotAModel(dir.WriteModel("no_graph.onnx", no_graph), "no graph");

  ::onnx::ModelProto no_outputs = TinyModel();
  no_outputs.mutable_graph()->clear_output();
  ExpectNotAModel(dir.WriteModel("no_outputs.onnx", no_outputs), "no outputs");

  ::onnx::ModelProto no_opset = TinyModel();
  no_opset.clear_opset_import();
  ExpectNotAModel(dir.WriteModel("no_opset.onnx", no_opset), "opset_import");
}

TEST(ReadModelProtoTest, ParsesModelsOverProtobufsDefaultLimit) {
  TempDir dir;
  ::onnx::ModelProto m = TinyModel();
  // 80 MiB of weights: over the 64 MiB default limit older protobufs apply.
  testing::AddFloatInitializer(m.mutable_graph(), "big", {20, 1024, 1024});
  std::string path = dir.WriteModel("big.onnx", m);
  ::onnx::ModelProto model;
  Status status = ReadModelProto(path, &model);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(model.graph().initializer(0).raw_data().size(), 80u << 20);
}

}  // namespace
}  // namespace hone::onnx
