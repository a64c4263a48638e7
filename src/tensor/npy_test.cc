#include "tensor/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "tensor/little_endian.h"
#include "tensor/test_util.h"

namespace hone {
namespace {

using ::testing::HasSubstr;
using testing_util::AsBytes;
using testing_util::Fixture;
using testing_util::Patterned;
using testing_util::SameBytes;

// A .npy file by hand: magic, version, header length, `dict` padded to 64 bytes, then `data`.
std::string MakeNpy(std::string_view dict, std::string_view data, int major = 1) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  if (major == 1) {
    le::Append16(out, static_cast<uint16_t>(total - prefix));
  } else {
    le::Append32(out, static_cast<uint32_t>(total - prefix));
  }
  out += dict;
  out.append(total - out.size() - 1, ' ');
  out += '\n';
  out += data;
  return out;
}

std::string Dict(std::string_view descr, std::string_view shape, bool fortran = false) {
  return "{'descr': '" + std::string(descr) + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + std::string(shape) + ", }";
}

Result<Tensor> Parse(std::string_view file) { return ParseNpy(AsBytes(file), "file 't.npy'"); }

std::string Encode(const Tensor& t) {
  auto r = EncodeNpy(t);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::string();
}

TEST(NpyTest, RoundTripsEveryDtypeAndShape) {
  for (DataType type : testing_util::NpyTypes()) {
    for (const Shape& shape : {Shape{2, 3}, Shape{}, Shape{0}, Shape{3, 0, 2}, Shape{5}, Shape{1, 2, 1, 3}}) {
      SCOPED_TRACE(std::string(DataTypeName(type)) + " " + ShapeToString(shape));
      Tensor in = Patterned(type, shape);
      std::string file = Encode(in);
      size_t header_len = le::Load16(reinterpret_cast<const std::byte*>(file.data()) + 8);
      EXPECT_EQ((10 + header_len) % 64, 0u) << "data must start on a 64-byte boundary";
      EXPECT_EQ(file[10 + header_len - 1], '\n');
      EXPECT_EQ(file.size(), 10 + header_len + in.byte_size());
      auto out = Parse(file);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_TRUE(SameBytes(in, *out));
      EXPECT_TRUE(out->owns_data());
    }
  }
}

TEST(NpyTest, WritesTheHeaderNumpyWrites) {
  std::string file = Encode(Patterned(DataType::kFp32, {2, 3}));
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_THAT(file, HasSubstr("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
  EXPECT_THAT(Encode(Patterned(DataType::kInt64, {4})), HasSubstr("'shape': (4,), }"));
  EXPECT_THAT(Encode(Patterned(DataType::kBool, {})),
              HasSubstr("{'descr': '|b1', 'fortran_order': False, 'shape': (), }"));
  EXPECT_THAT(Encode(Patterned(DataType::kFp16, {1})), HasSubstr("'<f2'"));
}

TEST(NpyTest, FileRoundTripAndErrors) {
  std::string path = testing_util::TempPath("round_trip.npy");
  Tensor in = Patterned(DataType::kFp64, {3, 2});
  ASSERT_TRUE(WriteNpy(path, in).ok());
  auto out = ReadNpy(path);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(SameBytes(in, *out));
  std::remove(path.c_str());

  auto missing = ReadNpy(path);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr(path));
  EXPECT_EQ(ReadNpy(::testing::TempDir()).status().code(), StatusCode::kNotFound);  // a directory
  EXPECT_EQ(WriteNpy("/nonexistent-dir/x.npy", in).code(), StatusCode::kNotFound);
}

TEST(NpyTest, RefusesToWriteWhatNumpyCannotHold) {
  auto bf16 = EncodeNpy(Patterned(DataType::kBf16, {2}));
  EXPECT_EQ(bf16.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(bf16.status().message(), HasSubstr("BF16"));
  EXPECT_EQ(WriteNpy(testing_util::TempPath("bf16.npy"), Patterned(DataType::kBf16, {2})).code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(EncodeNpy(Tensor()).status().code(), StatusCode::kInvalidArgument);
}

TEST(NpyTest, EveryTruncationIsAnError) {
  for (int major : {1, 2}) {
    std::string data(24, '\x5a');
    std::string file = MakeNpy(Dict("<f4", "(2, 3)"), data, major);
    ASSERT_TRUE(Parse(file).ok());
    for (size_t n = 0; n < file.size(); ++n) {
      auto r = Parse(std::string_view(file).substr(0, n));
      ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << n;
      EXPECT_THAT(r.status().message(), HasSubstr("file 't.npy'")) << n;
    }
  }
}

TEST(NpyTest, DataSizeMustMatchTheShape) {
  auto shorter = Parse(MakeNpy(Dict("<f4", "(2, 3)"), std::string(20, '\0')));
  EXPECT_EQ(shorter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(shorter.status().message(), HasSubstr("data is 20 bytes: expected 24 for shape 2x3 of <f4"));
  auto longer = Parse(MakeNpy(Dict("<f4", "(2, 3)"), std::string(25, '\0')));
  EXPECT_EQ(longer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(longer.status().message(), HasSubstr("data is 25 bytes: expected 24"));
  EXPECT_FALSE(Parse(MakeNpy(Dict("<f4", "()"), "")).ok());
  EXPECT_TRUE(Parse(MakeNpy(Dict("<f4", "(0, 5)"), "")).ok());
}

TEST(NpyTest, BadMagicAndVersion) {
  std::string good = Encode(Patterned(DataType::kInt8, {4}));
  for (size_t i = 0; i < 6; ++i) {
    std::string bad = good;
    bad[i] ^= 0x20;
    auto r = Parse(bad);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr("not a .npy file"));
  }
  EXPECT_THAT(Parse("PK\3\4 a zip").status().message(), HasSubstr("got 50 4b 03 04 20 61"));
  EXPECT_THAT(Parse("").status().message(), HasSubstr("got nothing"));
  for (auto [major, minor] : {std::pair{0, 0}, {4, 0}, {1, 1}, {255, 255}}) {
    std::string bad = good;
    bad[6] = static_cast<char>(major);
    bad[7] = static_cast<char>(minor);
    EXPECT_THAT(Parse(bad).status().message(), HasSubstr("expected 1.0, 2.0 or 3.0"));
  }
}

TEST(NpyTest, HeaderLengthBeyondTheFile) {
  std::string file = Encode(Patterned(DataType::kInt8, {4}));
  file[8] = '\xff';
  file[9] = '\xff';
  auto r = Parse(file);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("header length 65535 goes beyond the end of the file"));
}

TEST(NpyTest, BadHeaderDicts) {
  const char* cases[] = {
      "",
      "{",
      "[]",
      "{'descr': '<f4'}",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': 'no', 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': 2}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': ('2',)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,),,}",
      "{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{descr: '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{2: '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': Flase, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-,)}",
  };
  for (const char* dict : cases) {
    auto r = Parse(MakeNpy(dict, std::string(8, '\0')));
    ASSERT_FALSE(r.ok()) << dict;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << dict << ": " << r.status().ToString();
    EXPECT_THAT(r.status().message(), HasSubstr("file 't.npy'"));
  }
  EXPECT_THAT(Parse(MakeNpy("{'descr': '<f4', 'fortran_order': False}", "")).status().message(),
              HasSubstr("has no 'shape'"));
  EXPECT_THAT(Parse(MakeNpy(Dict("<f4", "(-2,)"), "")).status().message(),
              HasSubstr("expected a tuple of non-negative integers, got (-2,)"));
}

TEST(NpyTest, DeepNestingIsRejectedNotRecursedInto) {
  std::string dict = "{'descr': ";
  dict.append(100000, '[');  // appended, not concatenated: GCC 12 warns falsely (-Warray-bounds) on operator+ here
  dict += ", 'fortran_order': False, 'shape': (2,)}";
  auto r = Parse(MakeNpy(dict, "", 2));
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("levels of nesting"));
}

TEST(NpyTest, UnsupportedDtypesAreNamed) {
  // Strings (<U10, |S5) are read as BYTES: npy_strings_test.cc.
  for (const char* descr : {"|O", "<c8", "<c16", "<M8[ns]", "<f16", "<i16", "<f3", "", "f"}) {
    auto r = Parse(MakeNpy(Dict(descr, "(2,)"), std::string(8, '\0')));
    EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented) << descr;
    EXPECT_THAT(r.status().message(), HasSubstr("unsupported dtype '" + std::string(descr) + "'"));
  }
  auto structured = Parse(MakeNpy("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,)}",
                                  std::string(16, '\0')));
  EXPECT_EQ(structured.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(structured.status().message(), HasSubstr("[('a', '<f4'), ('b', '<i4')]"));
}

TEST(NpyTest, AcceptsHeaderVariantsNumpyAccepts) {
  std::string data(8, '\x01');
  for (const char* dict : {
           "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2,)}",
           "{'shape': (2L,), 'fortran_order': False, 'descr': '<i4'}",
           "{'descr':'<i4','fortran_order':False,'shape':(2,)}",
           "{'descr': 'i4', 'fortran_order': False, 'shape': (2,)}",
           "{'descr': '=i4', 'fortran_order': False, 'shape': (2,)}",
       }) {
    auto r = Parse(MakeNpy(dict, data));
    ASSERT_TRUE(r.ok()) << dict << ": " << r.status().ToString();
    EXPECT_EQ(r->type(), DataType::kInt32);
    EXPECT_EQ(r->values<int32_t>()[1], 0x01010101);
  }
  auto v3 = Parse(MakeNpy(Dict("<u2", "(1,)"), std::string("\x02\x01", 2), 3));
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(v3->values<uint16_t>()[0], 0x0102);
}

TEST(NpyTest, BigEndianIsSwappedToNative) {
  auto f8 = Parse(MakeNpy(Dict(">f8", "(1,)"), std::string("\x3f\xf8\0\0\0\0\0\0", 8)));
  ASSERT_TRUE(f8.ok()) << f8.status().ToString();
  EXPECT_EQ(f8->values<double>()[0], 1.5);
  auto u2 = Parse(MakeNpy(Dict(">u2", "(2,)"), std::string("\x01\x02\xff\x00", 4)));
  ASSERT_TRUE(u2.ok());
  EXPECT_EQ(u2->values<uint16_t>()[0], 0x0102);
  EXPECT_EQ(u2->values<uint16_t>()[1], 0xff00);
  auto i1 = Parse(MakeNpy(Dict(">i1", "(1,)"), "\xfe"));
  ASSERT_TRUE(i1.ok());
  EXPECT_EQ(i1->values<int8_t>()[0], -2);
}

TEST(NpyTest, FortranOrderIsTransposedToCOrder) {
  // A 2x3x4 INT16 array with value 100*i + 10*j + k, laid out column-major: (i, j, k) at i + 2*j + 6*k.
  std::string data(2 * 3 * 4 * 2, '\0');
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        int16_t v = static_cast<int16_t>(100 * i + 10 * j + k);
        std::memcpy(&data[2 * (i + 2 * j + 6 * k)], &v, 2);
      }
  auto r = Parse(MakeNpy(Dict("<i2", "(2, 3, 4)", true), data));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto v = r->values<int16_t>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(v[i * 12 + j * 4 + k], 100 * i + 10 * j + k);
  // Fortran and big-endian together; and rank 0, 1 and zero-size, where the orders coincide.
  auto both = Parse(MakeNpy(Dict(">u2", "(2, 2)", true), std::string("\0\1\0\2\0\3\0\4", 8)));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(std::vector<uint16_t>(both->values<uint16_t>().begin(), both->values<uint16_t>().end()),
            (std::vector<uint16_t>{1, 3, 2, 4}));
  EXPECT_TRUE(Parse(MakeNpy(Dict("<i2", "()", true), "ab")).ok());
  EXPECT_TRUE(Parse(MakeNpy(Dict("<i2", "(0, 3)", true), "")).ok());
}

TEST(NpyTest, BoolBytesAreNormalized) {
  auto r = Parse(MakeNpy(Dict("|b1", "(3,)"), std::string("\0\2\xff", 3)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->type(), DataType::kBool);
  EXPECT_EQ(static_cast<int>(r->data()[0]), 0);
  EXPECT_EQ(static_cast<int>(r->data()[1]), 1);
  EXPECT_EQ(static_cast<int>(r->data()[2]), 1);
}

TEST(NpyTest, ReadsFilesNumpyWrote) {
  auto f8 = ReadNpy(Fixture("numpy_f8_v1.npy"));
  ASSERT_TRUE(f8.ok()) << f8.status().ToString();
  EXPECT_EQ(f8->type(), DataType::kFp64);
  EXPECT_EQ(f8->shape(), (Shape{3}));
  EXPECT_EQ(f8->values<double>()[0], 0.1);
  EXPECT_EQ(f8->values<double>()[1], -2.5);
  EXPECT_EQ(f8->values<double>()[2], 1e300);

  auto fortran = ReadNpy(Fixture("numpy_fortran.npy"));
  ASSERT_TRUE(fortran.ok()) << fortran.status().ToString();
  EXPECT_EQ(fortran->shape(), (Shape{2, 3}));
  EXPECT_EQ(std::vector<int32_t>(fortran->values<int32_t>().begin(), fortran->values<int32_t>().end()),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));

  auto big = ReadNpy(Fixture("numpy_big_endian.npy"));
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->type(), DataType::kInt32);
  EXPECT_EQ(std::vector<int32_t>(big->values<int32_t>().begin(), big->values<int32_t>().end()),
            (std::vector<int32_t>{1, 256, -2}));

  auto u2 = ReadNpy(Fixture("numpy_u2_v2.npy"));
  ASSERT_TRUE(u2.ok()) << u2.status().ToString();
  EXPECT_EQ(u2->shape(), (Shape{2, 2}));
  EXPECT_EQ(std::vector<uint16_t>(u2->values<uint16_t>().begin(), u2->values<uint16_t>().end()),
            (std::vector<uint16_t>{1, 2, 65535, 0}));

  auto f2 = ReadNpy(Fixture("numpy_f2.npy"));  // 1.0, -0.5, 65504.0 as IEEE half bit patterns
  ASSERT_TRUE(f2.ok()) << f2.status().ToString();
  EXPECT_EQ(f2->type(), DataType::kFp16);
  EXPECT_EQ(std::vector<uint16_t>(f2->values<uint16_t>().begin(), f2->values<uint16_t>().end()),
            (std::vector<uint16_t>{0x3C00, 0xB800, 0x7BFF}));

  auto scalar = ReadNpy(Fixture("numpy_bool_scalar.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  EXPECT_EQ(scalar->type(), DataType::kBool);
  EXPECT_TRUE(scalar->shape().empty());
  EXPECT_TRUE(scalar->values<bool>()[0]);
}

TEST(NpyTest, RandomCorruptionNeverCrashes) {
  std::string good = Encode(Patterned(DataType::kInt32, {3, 4}));
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bad = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bad[rng() % 128] = static_cast<char>(rng());  // header bytes only
    auto r = Parse(bad);  // ok or not; it must just not crash or read out of bounds (ASan checks)
    if (r.ok()) {
      EXPECT_LE(r->byte_size(), bad.size());
    }
  }
}

}  // namespace
}  // namespace hone
