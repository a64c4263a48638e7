#include "client/json_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace hone::client {
namespace {

TEST(JsonWriter, EscapesAndReplacesInvalidUtf8) {
  std::string out;
  AppendJsonString(out, std::string("a\"b\\c\n\x01\xc3\xa9\xff", 10));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\\ufffd\"");
  EXPECT_EQ(ErrorJson("x"), R"({"error":"x"})");
  out.clear();
  AppendJsonString(out, "\xed\xa0\x80");  // an encoded UTF-16 surrogate is not valid UTF-8
  EXPECT_EQ(out, "\"\\ufffd\\ufffd\\ufffd\"");
  EXPECT_NO_THROW(nlohmann::json::parse(ErrorJson(std::string("\x80\xfe", 2))));
}

TEST(JsonWriter, CommasAndNesting) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Field("a", int64_t{-1});
  w.Key("b");
  w.BeginArray();
  w.BeginObject();
  w.EndObject();
  w.Null();
  w.Double(NAN);
  w.EndArray();
  w.Key("c");
  w.Raw("{\"x\":1}");
  w.EndObject();
  EXPECT_EQ(out, R"({"a":-1,"b":[{},null,NaN],"c":{"x":1}})");
}

}  // namespace
}  // namespace hone::client
