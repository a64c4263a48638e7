// A small streaming JSON writer that appends to a std::string: no DOM, commas placed by a nesting stack, numbers
// with the fewest digits that read back to the same value (std::to_chars), strings escaped per RFC 8259 with any
// invalid UTF-8 replaced by U+FFFD, so that whatever a client sent (a path, a name) cannot break the document.
// Non-finite floats are written as NaN, Infinity and -Infinity, as Python's json module (tritonclient) reads them.
//
//   std::string out;
//   JsonWriter w(out);
//   w.BeginObject(); w.Key("error"); w.String(message); w.EndObject();
//
// The writer does not check that the calls form a valid document; the callers are a handful of serializers whose
// tests parse what they write.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hone::client {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key);

  void String(std::string_view s);
  void Int(int64_t v);
  void Uint(uint64_t v);
  void Float(float v);
  void Double(double v);
  void Bool(bool v);
  void Null();
  // A value that is already JSON (a document serialized elsewhere); written as is.
  void Raw(std::string_view json);

  // Shorthands for a key and its value.
  void Field(std::string_view key, std::string_view s) { Key(key); String(s); }
  void Field(std::string_view key, const char* s) { Key(key); String(s); }
  void Field(std::string_view key, int64_t v) { Key(key); Int(v); }
  void Field(std::string_view key, uint64_t v) { Key(key); Uint(v); }
  void Field(std::string_view key, bool v) { Key(key); Bool(v); }

  std::string& out() { return out_; }

 private:
  void Open(char c);
  void Close(char c);
  void BeforeValue();  // writes the comma between siblings

  std::string& out_;
  std::vector<bool> has_member_;  // per open container: whether a value was already written in it
  bool after_key_ = false;
};

// Appends `s` as a JSON string literal (quotes included).
void AppendJsonString(std::string& out, std::string_view s);

// {"error":"<message>"}: the KServe v2 error body.
std::string ErrorJson(std::string_view message);

}  // namespace hone::client
