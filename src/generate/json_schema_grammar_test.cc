// JSON Schema grammars: what they accept and refuse, byte by byte, and the schemas they refuse to compile.
#include "generate/json_schema_grammar.h"

#include <gtest/gtest.h>

namespace hone::generate {
namespace {

Grammar Compile(std::string_view schema) {
  Result<Grammar> g = JsonSchemaGrammar(schema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? std::move(*g) : Grammar();
}

// The whole of `text` is a sentence.
bool Matches(const Grammar& g, std::string_view text) {
  GrammarState s = GrammarState::Start(g);
  return s.AdvanceAll(g, text) && s.accepting();
}

// `text` can be read (it may be the start of a sentence).
bool Readable(const Grammar& g, std::string_view text) {
  GrammarState s = GrammarState::Start(g);
  return s.AdvanceAll(g, text);
}

std::string Error(std::string_view schema) {
  Result<Grammar> g = JsonSchemaGrammar(schema);
  return g.ok() ? "compiled" : g.status().message();
}

constexpr std::string_view kPerson = R"({
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Name"},
    "age": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
  },
  "required": ["name", "age"],
  "additionalProperties": false
})";

TEST(JsonSchemaGrammar, AnObjectTakesItsPropertiesInTheSchemasOrderAndMayLeaveOutOptionalOnes) {
  Grammar g = Compile(kPerson);
  EXPECT_TRUE(Matches(g, R"({"name":"Ann","age":31})"));
  EXPECT_TRUE(Matches(g, R"({ "name" : "Ann",  "age": -4, "tags": ["a", "b"] })"));
  EXPECT_TRUE(Matches(g, "{\n  \"name\": \"Ann\",\n  \"age\": 0,\n  \"tags\": []\n}"));
  EXPECT_FALSE(Matches(g, R"({"name":"Ann"})")) << "age is required";
  EXPECT_FALSE(Readable(g, R"({"age":3)")) << "the schema's order: name first";
  EXPECT_FALSE(Readable(g, R"({"name":"Ann","age":1.5)"));
  EXPECT_FALSE(Readable(g, R"({"name":"Ann","age":01)"));
  EXPECT_FALSE(Readable(g, R"({"name":"Ann","age":1,"tags":["a","b",)")) << "maxItems 2";
  EXPECT_FALSE(Readable(g, R"({"name":"Ann","age":1,"x)")) << "no properties beyond the listed ones";
  EXPECT_FALSE(Readable(g, R"({"name":"Ann","age":1,})"));
  EXPECT_FALSE(Matches(g, R"({"name":"Ann","age":1} )")) << "nothing after the value";
}

TEST(JsonSchemaGrammar, StringLengthsCountCharactersNotBytes) {
  Grammar g = Compile(R"({"type": "string", "minLength": 2, "maxLength": 3})");
  EXPECT_TRUE(Matches(g, R"("ab")"));
  EXPECT_TRUE(Matches(g, "\"h\xC3\xA9\xC3\xA9\""));  // "héé": 3 characters, 5 bytes
  EXPECT_TRUE(Matches(g, R"("a\n")"));               // an escape is one character
  EXPECT_TRUE(Matches(g, R"("\u00e9\u4E2D")"));
  EXPECT_FALSE(Matches(g, R"("a")"));
  EXPECT_FALSE(Readable(g, R"("abcd)"));
  EXPECT_FALSE(Readable(g, R"("\ud800)")) << "a surrogate escape could pair into one character";
  EXPECT_FALSE(Readable(g, "\"a\x01")) << "control characters must be escaped";
  EXPECT_FALSE(Readable(g, "\"\xC0\xAF")) << "an overlong UTF-8 form";
  EXPECT_FALSE(Readable(g, "\"\xED\xA0\x80")) << "a surrogate in UTF-8";
  EXPECT_FALSE(Readable(g, R"("\x)")) << "not a JSON escape";
}

TEST(JsonSchemaGrammar, EnumConstAnyOfAndNull) {
  Grammar g = Compile(R"({"anyOf": [{"type": "null"}, {"enum": ["red", "green", 3, {"a": [1]}]}]})");
  for (std::string_view ok : {"null", R"("red")", R"("green")", "3", R"({"a":[1]})"}) EXPECT_TRUE(Matches(g, ok)) << ok;
  for (std::string_view bad : {R"("blue")", "4", "nul", R"("re")"}) EXPECT_FALSE(Matches(g, bad)) << bad;
  EXPECT_TRUE(Matches(Compile(R"({"type": "integer", "enum": [1e20, 2.0, 2.5]})"), "2.0"));  // no UB on 1e20
  Grammar typed = Compile(R"({"type": ["string", "null"], "enum": ["x", 1, null]})");
  EXPECT_TRUE(Matches(typed, R"("x")"));
  EXPECT_TRUE(Matches(typed, "null"));
  EXPECT_FALSE(Matches(typed, "1")) << "1 is not of the schema's types";
  EXPECT_TRUE(Matches(Compile(R"({"const": "only"})"), R"("only")"));
}

TEST(JsonSchemaGrammar, NumbersAreJsonNumbersOfBoundedLength) {
  Grammar number = Compile(R"({"type": "number"})");
  for (std::string_view ok : {"0", "-0.5e+10", "12", "3.25", "1E-7", "9999999999999999"})
    EXPECT_TRUE(Matches(number, ok)) << ok;
  for (std::string_view bad : {"1.", ".5", "+1", "01", "1e123", "99999999999999999", "NaN", "Infinity"})
    EXPECT_FALSE(Matches(number, bad)) << bad;
  Grammar integer = Compile(R"({"type": "integer"})");
  EXPECT_TRUE(Matches(integer, "-42"));
  EXPECT_FALSE(Matches(integer, "4.0"));
  EXPECT_FALSE(Matches(integer, "4e2"));
}

TEST(JsonSchemaGrammar, ReferencesMayRecurse) {
  Grammar g = Compile(R"({
    "$defs": {"node": {"type": "object",
                       "properties": {"value": {"type": "integer"},
                                      "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                       "required": ["value", "children"]}},
    "$ref": "#/$defs/node"})");
  EXPECT_TRUE(Matches(g, R"({"value":1,"children":[]})"));
  EXPECT_TRUE(Matches(g, R"({"value":1,"children":[{"value":2,"children":[{"value":3,"children":[]}]}]})"));
  EXPECT_FALSE(Matches(g, R"({"value":1,"children":[{"value":2}]})"));
}

TEST(JsonSchemaGrammar, AFreeFormObjectTakesAnyJsonValues) {
  for (const Grammar& g : {JsonObjectGrammar(), Compile(R"({"type": "object"})")}) {
    EXPECT_TRUE(Matches(g, "{}"));
    EXPECT_TRUE(Matches(g, R"({"a": [1, {"b": null}, "c", true], "d": {"e": -1.5}})"));
    EXPECT_FALSE(Matches(g, "[]"));
    EXPECT_FALSE(Matches(g, R"("x")"));
    EXPECT_FALSE(Readable(g, R"({a)")) << "keys are strings";
  }
  Grammar map = Compile(R"({"type": "object", "additionalProperties": {"type": "integer"}})");
  EXPECT_TRUE(Matches(map, R"({"x": 1, "y": 2})"));
  EXPECT_FALSE(Readable(map, R"({"x": "1")"));
  EXPECT_TRUE(Matches(Compile(R"({"type": "object", "additionalProperties": false})"), "{ }"));
  // An object of optional properties only: one run of whitespace when none is written, not two.
  Grammar optional = Compile(R"({"type": "object", "properties": {"a": {"type": "null"}}})");
  EXPECT_TRUE(Matches(optional, "{" + std::string(12, ' ') + "}"));
  EXPECT_FALSE(Readable(optional, "{" + std::string(13, ' ')));
}

TEST(JsonSchemaGrammar, WhitespaceIsBoundedSoTheOutputCannotStallInIt) {
  Grammar g = Compile(R"({"type": "array", "items": {"type": "boolean"}})");
  EXPECT_TRUE(Matches(g, "[" + std::string(12, ' ') + "true]"));
  EXPECT_FALSE(Readable(g, "[" + std::string(13, ' ')));
  EXPECT_TRUE(Matches(g, "[true,\n false]"));
}

TEST(JsonSchemaGrammar, TheEndIsKnownExactly) {
  Grammar g = Compile(kPerson);
  GrammarState s = GrammarState::Start(g);
  ASSERT_TRUE(s.AdvanceAll(g, R"({"name":"A","age":7)"));
  EXPECT_FALSE(s.accepting());
  const ByteSet next = s.NextBytes(g);
  for (char c : std::string_view("0123456789,} \n")) EXPECT_TRUE(next.Has(static_cast<uint8_t>(c))) << c;
  EXPECT_FALSE(next.Has('"'));
  ASSERT_TRUE(s.Advance(g, '}'));
  EXPECT_TRUE(s.accepting());
  EXPECT_TRUE(s.NextBytes(g).empty());
}

TEST(JsonSchemaGrammar, WhatCannotBeEnforcedIsRefusedNamingTheKeywordAndWhere) {
  EXPECT_EQ(Error(R"({"type": "object", "properties": {"id": {"type": "string", "pattern": "^a"}}})"),
            "the JSON schema at /properties/id: 'pattern' is not supported by constrained decoding (supported: type, "
            "properties, required, additionalProperties, items, minItems, maxItems, minLength, maxLength, enum, "
            "const, anyOf, $ref, $defs, definitions)");
  EXPECT_NE(Error(R"({"type": "string", "format": "date-time"})").find("'format' is not supported"), std::string::npos);
  EXPECT_NE(Error(R"({"type": "integer", "minimum": 0})").find("'minimum'"), std::string::npos);
  EXPECT_NE(Error(R"({"oneOf": [{"type": "string"}]})").find("'oneOf'"), std::string::npos);
  EXPECT_NE(Error(R"({"$ref": "https://example.com/s.json"})").find("only references within the schema"),
            std::string::npos);
  EXPECT_NE(Error(R"({"$ref": "#/$defs/missing"})").find("points at nothing"), std::string::npos);
  EXPECT_EQ(Error(R"({"type": "object", "properties": {}, "required": ["a"]})"),
            "the JSON schema at /required: required property \"a\" has no schema in 'properties' (add it there)");
  EXPECT_NE(Error(R"({"type": "string", "minLength": 3, "maxLength": 2})").find("no string validates"),
            std::string::npos);
  EXPECT_NE(Error(R"({"type": "array", "maxItems": 100000})").find("4096 at most"), std::string::npos);
  EXPECT_NE(Error("false").find("admits no value"), std::string::npos);
  EXPECT_NE(Error(R"({"type": "str"})").find("\"str\" is not a JSON Schema type"), std::string::npos);
  EXPECT_NE(Error(R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})").find("refers to itself"),
            std::string::npos);
  // Left recursion through anyOf: the recognizer would expand it without end (2^128 ways at depth 256).
  EXPECT_NE(Error(R"({"anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"type": "null"}]})").find("refers to itself"),
            std::string::npos);
  // Keywords that would narrow enum/const are refused rather than ignored.
  EXPECT_NE(Error(R"({"type": "string", "enum": ["a", "bb", "ccc"], "maxLength": 2})").find("'maxLength' beside"),
            std::string::npos);
  EXPECT_NE(Error(R"({"const": "a", "enum": ["b"]})").find("together"), std::string::npos);
  EXPECT_NE(Error(R"({"const": 1, "anyOf": [{"type": "string"}]})").find("'anyOf' beside"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += R"({"type": "array", "items": )";
  deep += "true";
  for (int i = 0; i < 100; ++i) deep += "}";
  EXPECT_EQ(Error(deep), "the JSON schema nests deeper than 64 levels");
  EXPECT_EQ(Error("{nope"), "the JSON schema is not valid JSON");
}

}  // namespace
}  // namespace hone::generate
