#include "generate/json_schema_grammar.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace hone::generate {
namespace {

// Schemas keep their properties in the order they were written: that is the order the output follows.
using Json = nlohmann::ordered_json;
using RuleId = Grammar::RuleId;
using Symbols = std::vector<Grammar::Symbol>;

constexpr int kMaxSpace = 12;          // whitespace bytes between two tokens of the JSON text
constexpr int64_t kMaxRepeat = 4096;   // the largest minLength/maxLength/minItems/maxItems written out
constexpr int kIntegerDigits = 16;
constexpr int kFractionDigits = 15;
constexpr int kExponentDigits = 2;  // e99 at most: every number stays a finite double

constexpr std::string_view kSupported =
    "type, properties, required, additionalProperties, items, minItems, maxItems, minLength, maxLength, enum, const, "
    "anyOf, $ref, $defs, definitions";
// Keywords that say nothing about which values validate.
const std::set<std::string, std::less<>> kAnnotations = {
    "title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated", "readOnly",
    "writeOnly", "strict", "name"};
const std::set<std::string, std::less<>> kKeywords = {
    "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength",
    "maxLength", "enum", "const", "anyOf", "$ref", "$defs", "definitions"};

enum class JsonType { kObject, kArray, kString, kNumber, kInteger, kBoolean, kNull };

struct SchemaError {
  std::string message;
};

std::string At(const std::string& where) { return where.empty() ? "the JSON schema" : "the JSON schema at " + where; }

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw SchemaError{fmt::format("{}: {}", At(where), what)};
}

std::optional<JsonType> ParseType(const Json& name) {
  if (!name.is_string()) return std::nullopt;
  static const std::map<std::string, JsonType, std::less<>> kTypes = {
      {"object", JsonType::kObject}, {"array", JsonType::kArray},     {"string", JsonType::kString},
      {"number", JsonType::kNumber}, {"integer", JsonType::kInteger}, {"boolean", JsonType::kBoolean},
      {"null", JsonType::kNull}};
  auto it = kTypes.find(name.get<std::string>());
  if (it == kTypes.end()) return std::nullopt;
  return it->second;
}

bool IsOfType(const Json& v, JsonType t) {
  switch (t) {
    case JsonType::kObject: return v.is_object();
    case JsonType::kArray: return v.is_array();
    case JsonType::kString: return v.is_string();
    case JsonType::kNumber: return v.is_number();
    case JsonType::kInteger: {
      if (v.is_number_integer()) return true;
      if (!v.is_number_float()) return false;
      const double x = v.get<double>();
      return std::isfinite(x) && std::trunc(x) == x;
    }
    case JsonType::kBoolean: return v.is_boolean();
    case JsonType::kNull: return v.is_null();
  }
  return false;
}

class Compiler {
 public:
  explicit Compiler(const Json& root) : root_(root) {}

  Grammar Run() {
    g_.set_root(Value(root_, ""));
    return std::move(g_);
  }
  Grammar AnyObjectOnly() {
    g_.set_root(AnyObject());
    return std::move(g_);
  }

 private:
  // --- JSON's lexical pieces, built once each ---

  RuleId Space() {
    if (space_) return *space_;
    // space_k: at most k more bytes; built from the end so each refers to the one after it.
    ByteSet blank;
    for (char c : {' ', '\t', '\n', '\r'}) blank.Add(static_cast<uint8_t>(c));
    RuleId next = g_.NewRule();
    g_.AddAlternative(next, {});
    for (int k = 1; k <= kMaxSpace; ++k) {
      RuleId r = g_.NewRule();
      g_.AddAlternative(r, {});
      g_.AddAlternative(r, {Grammar::Set(blank), Grammar::Ref(next)});
      next = r;
    }
    space_ = next;
    return next;
  }

  // One character of a JSON string: printable ASCII but '"' and '\', an escape, or a well-formed UTF-8 sequence.
  RuleId Char() {
    if (char_) return *char_;
    RuleId c = g_.NewRule();
    ByteSet plain;
    plain.AddRange(0x20, 0x7F);
    plain.Remove('"');
    plain.Remove('\\');
    g_.AddAlternative(c, {Grammar::Set(plain)});
    ByteSet simple_escape;
    for (char e : std::string_view("\"\\/bfnrt")) simple_escape.Add(static_cast<uint8_t>(e));
    g_.AddAlternative(c, {Grammar::Byte('\\'), Grammar::Set(simple_escape)});
    // \uXXXX outside the surrogates (D800-DFFF), so that every escape is one character.
    ByteSet hex, hex_not_d, octal;
    hex.AddRange('0', '9'), hex.AddRange('a', 'f'), hex.AddRange('A', 'F');
    hex_not_d = hex, hex_not_d.Remove('d'), hex_not_d.Remove('D');
    octal.AddRange('0', '7');
    auto H = Grammar::Set(hex);
    g_.AddAlternative(c, {Grammar::Byte('\\'), Grammar::Byte('u'), Grammar::Set(hex_not_d), H, H, H});
    ByteSet d;
    d.Add('d'), d.Add('D');
    g_.AddAlternative(c, {Grammar::Byte('\\'), Grammar::Byte('u'), Grammar::Set(d), Grammar::Set(octal), H, H});
    // UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
    auto T = Grammar::Bytes(0x80, 0xBF);
    g_.AddAlternative(c, {Grammar::Bytes(0xC2, 0xDF), T});
    g_.AddAlternative(c, {Grammar::Byte(0xE0), Grammar::Bytes(0xA0, 0xBF), T});
    g_.AddAlternative(c, {Grammar::Bytes(0xE1, 0xEC), T, T});
    g_.AddAlternative(c, {Grammar::Byte(0xED), Grammar::Bytes(0x80, 0x9F), T});
    g_.AddAlternative(c, {Grammar::Bytes(0xEE, 0xEF), T, T});
    g_.AddAlternative(c, {Grammar::Byte(0xF0), Grammar::Bytes(0x90, 0xBF), T, T});
    g_.AddAlternative(c, {Grammar::Bytes(0xF1, 0xF3), T, T, T});
    g_.AddAlternative(c, {Grammar::Byte(0xF4), Grammar::Bytes(0x80, 0x8F), T, T});
    char_ = c;
    return c;
  }

  RuleId String(int64_t min_length, std::optional<int64_t> max_length) {
    const bool any = min_length == 0 && !max_length;
    if (any && string_) return *string_;
    RuleId s = g_.NewRule();
    g_.AddAlternative(s, {Grammar::Byte('"'), Grammar::Ref(Repeat(Char(), {}, min_length, max_length)), Grammar::Byte('"')});
    if (any) string_ = s;
    return s;
  }

  // One to `most` digits, the first of them from `first`.
  RuleId Digits(ByteSet first, int most) {
    ByteSet digit;
    digit.AddRange('0', '9');
    RuleId more = Repeat(Terminal(digit), {}, 0, most - 1);
    RuleId r = g_.NewRule();
    g_.AddAlternative(r, {Grammar::Set(first), Grammar::Ref(more)});
    return r;
  }
  RuleId Terminal(const ByteSet& set) {
    RuleId r = g_.NewRule();
    g_.AddAlternative(r, {Grammar::Set(set)});
    return r;
  }

  RuleId Integer() {
    if (integer_) return *integer_;
    ByteSet nonzero;
    nonzero.AddRange('1', '9');
    RuleId magnitude = g_.NewRule();
    g_.AddAlternative(magnitude, {Grammar::Byte('0')});
    g_.AddAlternative(magnitude, {Grammar::Ref(Digits(nonzero, kIntegerDigits))});
    RuleId r = g_.NewRule();
    g_.AddAlternative(r, {Grammar::Ref(magnitude)});
    g_.AddAlternative(r, {Grammar::Byte('-'), Grammar::Ref(magnitude)});
    integer_ = r;
    return r;
  }

  RuleId Number() {
    if (number_) return *number_;
    ByteSet digit, e, sign;
    digit.AddRange('0', '9');
    e.Add('e'), e.Add('E');
    sign.Add('+'), sign.Add('-');
    RuleId fraction = g_.NewRule();
    g_.AddAlternative(fraction, {});
    g_.AddAlternative(fraction, {Grammar::Byte('.'), Grammar::Ref(Digits(digit, kFractionDigits))});
    RuleId exponent = g_.NewRule();
    RuleId exponent_digits = Digits(digit, kExponentDigits);
    g_.AddAlternative(exponent, {});
    g_.AddAlternative(exponent, {Grammar::Set(e), Grammar::Ref(exponent_digits)});
    g_.AddAlternative(exponent, {Grammar::Set(e), Grammar::Set(sign), Grammar::Ref(exponent_digits)});
    RuleId r = g_.NewRule();
    g_.AddAlternative(r, {Grammar::Ref(Integer()), Grammar::Ref(fraction), Grammar::Ref(exponent)});
    number_ = r;
    return r;
  }

  // Any JSON value (a schema of `true` or `{}`), and any object.
  RuleId Any() {
    if (any_) return *any_;
    RuleId any = g_.NewRule();
    any_ = any;  // before its parts: objects and arrays hold values
    g_.AddAlternative(any, {Grammar::Ref(AnyObject())});
    g_.AddAlternative(any, {Grammar::Ref(Bracketed('[', any, 0, std::nullopt, ']'))});
    g_.AddAlternative(any, {Grammar::Ref(String(0, std::nullopt))});
    g_.AddAlternative(any, {Grammar::Ref(Number())});
    for (const char* word : {"true", "false", "null"}) g_.AddAlternative(any, {Grammar::Ref(g_.Literal(word))});
    return any;
  }
  RuleId AnyObject() {
    if (any_object_) return *any_object_;
    RuleId r = g_.NewRule();
    any_object_ = r;
    g_.AddAlternative(r, {Grammar::Ref(Map(Any()))});
    return r;
  }

  // An object with any keys, every value matching `value`.
  RuleId Map(RuleId value) {
    RuleId ws = Space();
    RuleId member = g_.NewRule();
    g_.AddAlternative(member, {Grammar::Ref(String(0, std::nullopt)), Grammar::Ref(ws), Grammar::Byte(':'), Grammar::Ref(ws), Grammar::Ref(value)});
    return Bracketed('{', member, 0, std::nullopt, '}');
  }

  // `open`, `lo` to `hi` items separated by commas, `close`, with whitespace between (one run of it when empty).
  RuleId Bracketed(char open, RuleId item, int64_t lo, std::optional<int64_t> hi, char close) {
    RuleId ws = Space();
    RuleId r = g_.NewRule();
    if (lo == 0) g_.AddAlternative(r, {Grammar::Byte(open), Grammar::Ref(ws), Grammar::Byte(close)});
    if (!hi || *hi > 0) {
      RuleId items = Repeat(item, {Grammar::Ref(ws), Grammar::Byte(','), Grammar::Ref(ws)}, std::max<int64_t>(lo, 1), hi);
      g_.AddAlternative(r, {Grammar::Byte(open), Grammar::Ref(ws), Grammar::Ref(items), Grammar::Ref(ws), Grammar::Byte(close)});
    }
    return r;
  }

  // `lo` to `hi` (nullopt: no limit) matches of `item`, with `separator` between two of them.
  RuleId Repeat(RuleId item, const Symbols& separator, int64_t lo, std::optional<int64_t> hi) {
    RuleId r = g_.NewRule();
    if (hi && *hi == 0) {
      g_.AddAlternative(r, {});
      return r;
    }
    if (lo == 0) g_.AddAlternative(r, {});
    // After the first item: max(lo - 1, 0) required (separator item)s, then up to hi - max(lo, 1) optional ones.
    Symbols then = separator;
    then.push_back(Grammar::Ref(item));
    const int64_t required = std::max<int64_t>(lo - 1, 0);
    RuleId optional = g_.NewRule();
    if (!hi) {
      g_.AddAlternative(optional, {});
      Symbols again = then;
      again.push_back(Grammar::Ref(optional));
      g_.AddAlternative(optional, again);
    } else {
      // Built from the last one back, each offering one more (separator item) before the next.
      g_.AddAlternative(optional, {});
      for (int64_t k = 1; k <= *hi - std::max<int64_t>(lo, 1); ++k) {
        RuleId more = g_.NewRule();
        g_.AddAlternative(more, {});
        Symbols again = then;
        again.push_back(Grammar::Ref(optional));
        g_.AddAlternative(more, again);
        optional = more;
      }
    }
    Symbols whole = {Grammar::Ref(item)};
    for (int64_t k = 0; k < required; ++k) whole.insert(whole.end(), then.begin(), then.end());
    whole.push_back(Grammar::Ref(optional));
    g_.AddAlternative(r, whole);
    return r;
  }

  // --- Schemas ---

  static int64_t Count(const Json& schema, const char* key, const std::string& where, int64_t fallback) {
    auto it = schema.find(key);
    if (it == schema.end()) return fallback;
    if (!it->is_number_integer() || it->get<int64_t>() < 0) Fail(where, fmt::format("'{}' must be a non-negative integer", key));
    if (it->get<int64_t>() > kMaxRepeat)
      Fail(where, fmt::format("'{}' of {} is more than constrained decoding writes out ({} at most)", key, it->get<int64_t>(), kMaxRepeat));
    return it->get<int64_t>();
  }
  static std::optional<int64_t> Limit(const Json& schema, const char* key, const std::string& where) {
    if (!schema.contains(key)) return std::nullopt;
    return Count(schema, key, where, 0);
  }

  void CheckKeywords(const Json& schema, const std::string& where) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (kAnnotations.count(it.key()) || kKeywords.count(it.key())) continue;
      Fail(where, fmt::format("'{}' is not supported by constrained decoding (supported: {})", it.key(), kSupported));
    }
  }

  RuleId Value(const Json& schema, const std::string& where) {
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) Fail(where, "the schema false admits no value");
      return Any();
    }
    if (!schema.is_object()) Fail(where, "a schema must be an object or a boolean");
    CheckKeywords(schema, where);
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      for (auto it = schema.begin(); it != schema.end(); ++it)
        if (it.key() != "$ref" && it.key() != "$defs" && it.key() != "definitions" && !kAnnotations.count(it.key()))
          Fail(where, fmt::format("'{}' beside '$ref' is not supported (put it in the schema referred to)", it.key()));
      return Ref(*ref, where);
    }
    std::vector<JsonType> types;
    if (auto t = schema.find("type"); t != schema.end()) {
      const Json names = t->is_array() ? *t : Json::array({*t});
      for (const Json& name : names) {
        auto type = ParseType(name);
        if (!type) Fail(where + "/type", fmt::format("{} is not a JSON Schema type", name.dump()));
        types.push_back(*type);
      }
      if (types.empty()) Fail(where + "/type", "an empty list of types admits no value");
    }
    if (schema.contains("const") || schema.contains("enum")) {
      // The literals are written as they are: a keyword beside them that would narrow them further is refused.
      for (auto it = schema.begin(); it != schema.end(); ++it)
        if (kKeywords.count(it.key()) && it.key() != "const" && it.key() != "enum" && it.key() != "type" &&
            it.key() != "$defs" && it.key() != "definitions")
          Fail(where, fmt::format("'{}' beside 'enum' or 'const' is not supported (list only the values that fit)",
                                  it.key()));
      if (schema.contains("const") && schema.contains("enum"))
        Fail(where, "'const' and 'enum' together are not supported (keep one)");
    }
    if (auto c = schema.find("const"); c != schema.end()) return Literals({*c}, types, where);
    if (auto e = schema.find("enum"); e != schema.end()) {
      if (!e->is_array() || e->empty()) Fail(where + "/enum", "'enum' must be a non-empty array");
      return Literals(std::vector<Json>(e->begin(), e->end()), types, where);
    }
    if (auto any_of = schema.find("anyOf"); any_of != schema.end()) {
      if (!any_of->is_array() || any_of->empty()) Fail(where + "/anyOf", "'anyOf' must be a non-empty array of schemas");
      for (auto it = schema.begin(); it != schema.end(); ++it)
        if (kKeywords.count(it.key()) && it.key() != "anyOf" && it.key() != "$defs" && it.key() != "definitions")
          Fail(where, fmt::format("'{}' beside 'anyOf' is not supported (put it in each alternative)", it.key()));
      RuleId r = g_.NewRule();
      for (size_t i = 0; i < any_of->size(); ++i)
        g_.AddAlternative(r, {Grammar::Ref(Value((*any_of)[i], fmt::format("{}/anyOf/{}", where, i)))});
      return r;
    }
    if (types.empty()) types = InferTypes(schema);
    RuleId r = g_.NewRule();
    for (JsonType t : types) g_.AddAlternative(r, {Grammar::Ref(OfType(t, schema, where))});
    return r;
  }

  // Without "type", the keywords present say which types they constrain (a schema of none of them: any value).
  static std::vector<JsonType> InferTypes(const Json& schema) {
    std::vector<JsonType> types;
    if (schema.contains("properties") || schema.contains("required") || schema.contains("additionalProperties"))
      types.push_back(JsonType::kObject);
    if (schema.contains("items") || schema.contains("minItems") || schema.contains("maxItems"))
      types.push_back(JsonType::kArray);
    if (schema.contains("minLength") || schema.contains("maxLength")) types.push_back(JsonType::kString);
    if (types.empty())
      types = {JsonType::kObject, JsonType::kArray,   JsonType::kString, JsonType::kNumber,
               JsonType::kBoolean, JsonType::kNull};
    return types;
  }

  RuleId OfType(JsonType type, const Json& schema, const std::string& where) {
    switch (type) {
      case JsonType::kObject: return Object(schema, where);
      case JsonType::kArray: return Array(schema, where);
      case JsonType::kString: {
        const int64_t lo = Count(schema, "minLength", where, 0);
        const std::optional<int64_t> hi = Limit(schema, "maxLength", where);
        if (hi && *hi < lo) Fail(where, "'maxLength' is below 'minLength': no string validates");
        return String(lo, hi);
      }
      case JsonType::kNumber: return Number();
      case JsonType::kInteger: return Integer();
      case JsonType::kBoolean: {
        RuleId r = g_.NewRule();
        g_.AddAlternative(r, {Grammar::Ref(g_.Literal("true"))});
        g_.AddAlternative(r, {Grammar::Ref(g_.Literal("false"))});
        return r;
      }
      case JsonType::kNull: return g_.Literal("null");
    }
    return Any();
  }

  // The values in `values` (of `types`, when given), each written as compact JSON.
  RuleId Literals(const std::vector<Json>& values, const std::vector<JsonType>& types, const std::string& where) {
    RuleId r = g_.NewRule();
    int kept = 0;
    for (const Json& v : values) {
      if (!types.empty() && std::none_of(types.begin(), types.end(), [&](JsonType t) { return IsOfType(v, t); }))
        continue;
      g_.AddAlternative(r, {Grammar::Ref(g_.Literal(v.dump()))});
      ++kept;
    }
    if (kept == 0) Fail(where, "no value of 'enum'/'const' is of the schema's 'type'");
    return r;
  }

  RuleId Object(const Json& schema, const std::string& where) {
    const Json empty = Json::object();
    auto p = schema.find("properties");
    if (p != schema.end() && !p->is_object()) Fail(where + "/properties", "'properties' must be an object");
    const Json& properties = p != schema.end() ? *p : empty;
    std::set<std::string> required;
    if (auto r = schema.find("required"); r != schema.end()) {
      if (!r->is_array()) Fail(where + "/required", "'required' must be an array of property names");
      for (const Json& name : *r) {
        if (!name.is_string()) Fail(where + "/required", "'required' must be an array of property names");
        if (!properties.contains(name.get<std::string>()))
          Fail(where + "/required", fmt::format("required property {} has no schema in 'properties' (add it there)", name.dump()));
        required.insert(name.get<std::string>());
      }
    }
    const Json additional = schema.contains("additionalProperties") ? schema["additionalProperties"] : Json(true);
    if (!additional.is_boolean() && !additional.is_object())
      Fail(where + "/additionalProperties", "'additionalProperties' must be a boolean or a schema");
    RuleId ws = Space();
    if (properties.empty()) {
      if (additional.is_boolean() && !additional.get<bool>()) {
        RuleId r = g_.NewRule();
        g_.AddAlternative(r, {Grammar::Byte('{'), Grammar::Ref(ws), Grammar::Byte('}')});
        return r;
      }
      return additional.is_boolean() ? AnyObject() : Map(Value(additional, where + "/additionalProperties"));
    }
    // Listed properties only, in their order (valid whatever additionalProperties says). rest[i][first]: the
    // properties from i on, `first` when none was written yet (so no comma comes before the next one).
    struct Entry {
      RuleId member;
      bool required;
    };
    std::vector<Entry> entries;
    for (auto it = properties.begin(); it != properties.end(); ++it) {
      RuleId member = g_.NewRule();
      RuleId value = Value(it.value(), where + "/properties/" + it.key());
      g_.AddAlternative(member, {Grammar::Ref(g_.Literal(Json(it.key()).dump())), Grammar::Ref(ws), Grammar::Byte(':'),
                                 Grammar::Ref(ws), Grammar::Ref(value)});
      entries.push_back({member, required.count(it.key()) > 0});
    }
    // After a member: whitespace, then '}'; with no member yet, '}' at once (the whitespace after '{' is there).
    RuleId close = g_.NewRule();
    g_.AddAlternative(close, {Grammar::Ref(ws), Grammar::Byte('}')});
    RuleId close_empty = g_.NewRule();
    g_.AddAlternative(close_empty, {Grammar::Byte('}')});
    std::array<RuleId, 2> next = {close, close_empty};  // [not first, first]
    for (size_t i = entries.size(); i-- > 0;) {
      std::array<RuleId, 2> here{};
      for (int first = 0; first < 2; ++first) {
        here[first] = g_.NewRule();
        Symbols with;
        if (!first) with = {Grammar::Ref(ws), Grammar::Byte(','), Grammar::Ref(ws)};
        with.push_back(Grammar::Ref(entries[i].member));
        with.push_back(Grammar::Ref(next[0]));
        g_.AddAlternative(here[first], with);
        if (!entries[i].required) g_.AddAlternative(here[first], {Grammar::Ref(next[first])});
      }
      next = here;
    }
    RuleId r = g_.NewRule();
    g_.AddAlternative(r, {Grammar::Byte('{'), Grammar::Ref(ws), Grammar::Ref(next[1])});
    return r;
  }

  RuleId Array(const Json& schema, const std::string& where) {
    const int64_t lo = Count(schema, "minItems", where, 0);
    const std::optional<int64_t> hi = Limit(schema, "maxItems", where);
    if (hi && *hi < lo) Fail(where, "'maxItems' is below 'minItems': no array validates");
    RuleId item = schema.contains("items") ? Value(schema["items"], where + "/items") : Any();
    return Bracketed('[', item, lo, hi, ']');
  }

  RuleId Ref(const Json& ref, const std::string& where) {
    if (!ref.is_string() || !ref.get<std::string>().starts_with("#"))
      Fail(where + "/$ref", "only references within the schema (\"#/$defs/...\") are supported");
    const std::string target = ref.get<std::string>();
    if (auto it = refs_.find(target); it != refs_.end()) return it->second;
    RuleId r = g_.NewRule();
    refs_.emplace(target, r);  // before compiling the target: it may refer to itself
    const Json* node = &root_;
    if (target != "#") {
      Json::json_pointer pointer;
      try {
        pointer = Json::json_pointer(target.substr(1));
      } catch (const Json::exception&) {
        Fail(where + "/$ref", fmt::format("{} is not a JSON pointer", ref.dump()));
      }
      if (!root_.contains(pointer)) Fail(where + "/$ref", fmt::format("{} points at nothing in the schema", ref.dump()));
      node = &root_.at(pointer);
    }
    g_.AddAlternative(r, {Grammar::Ref(Value(*node, target.substr(1)))});
    return r;
  }

  const Json& root_;
  Grammar g_;
  std::map<std::string, RuleId> refs_;
  std::optional<RuleId> space_, char_, string_, integer_, number_, any_, any_object_;
};

}  // namespace

int JsonDepth(const Json& doc, int limit) {
  int deepest = 0;
  std::vector<std::pair<const Json*, int>> todo = {{&doc, 1}};
  while (!todo.empty()) {
    auto [node, depth] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, depth);
    if (deepest > limit) return deepest;
    if (node->is_structured())
      for (const Json& child : *node) todo.emplace_back(&child, depth + 1);
  }
  return deepest;
}

Result<Grammar> JsonSchemaGrammar(std::string_view schema_json) {
  Json schema = Json::parse(schema_json, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) return Status::InvalidArgument("the JSON schema is not valid JSON");
  if (JsonDepth(schema, kMaxJsonSchemaDepth) > kMaxJsonSchemaDepth)
    return Status::InvalidArgument(fmt::format("the JSON schema nests deeper than {} levels", kMaxJsonSchemaDepth));
  Grammar grammar;
  try {
    grammar = Compiler(schema).Run();
  } catch (const SchemaError& e) {
    return Status::InvalidArgument(e.message);
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(std::string("the JSON schema could not be read: ") + e.what());
  }
  if (Status checked = grammar.Check(); !checked.ok())
    return Status::InvalidArgument("the JSON schema refers to itself before anything is written (a $ref cycle "
                                   "through anyOf or $ref alone): no finite JSON starts it");
  if (GrammarState::Start(grammar).dead())
    return Status::InvalidArgument("the JSON schema admits no value (a $ref that refers only to itself?)");
  return grammar;
}

Grammar JsonObjectGrammar() {
  const Json none;
  return Compiler(none).AnyObjectOnly();
}

}  // namespace hone::generate
