// Grammars whose sentences are JSON texts, for structured output (OpenAI's response_format): any JSON object, or
// the JSON texts that validate against a JSON Schema.
//
// A schema compiles only when every keyword it uses can be enforced by the grammar, so that whatever is generated
// to its end validates. Supported: type (one or a list), properties, required, additionalProperties (false, true
// or a schema), items, minItems, maxItems, minLength, maxLength, enum, const, anyOf, $ref to "#..." with $defs or
// definitions (recursion included), boolean schemas; annotations (title, description, default, examples, ...) are
// ignored. Anything else (pattern, format, minimum, oneOf, allOf, prefixItems, ...), a keyword beside enum/const
// that would narrow them, a schema nested deeper than 64 levels, or a $ref cycle that reads nothing first is an
// InvalidArgument naming the keyword and where it is, never a grammar that lets invalid output through.
//
// What the grammar writes, where a schema leaves it free: properties in the order the schema lists them (optional
// ones may be left out), no properties beyond the listed ones, whitespace only between tokens of the JSON text and
// at most 12 bytes of it at a time, numbers of at most 16 integer, 15 fraction and 2 exponent digits (finite doubles), strings of
// valid UTF-8 without escapes of surrogates. Every such text is valid JSON that validates against the schema.
#pragma once

#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "generate/grammar.h"

namespace hone::generate {

// The JSON texts that validate against `schema_json` (a JSON Schema as text). InvalidArgument naming the keyword
// and its JSON pointer for what it cannot enforce, or when the schema admits no value.
Result<Grammar> JsonSchemaGrammar(std::string_view schema_json);

// Any JSON object (response_format {"type": "json_object"}).
Grammar JsonObjectGrammar();

// How deep `doc` nests (1 for a scalar), counted without recursion and stopping once past `limit`. For callers
// that must refuse a hostile document before anything recurses over it (dump, the schema compiler).
int JsonDepth(const nlohmann::ordered_json& doc, int limit);

// The deepest schema JsonSchemaGrammar compiles.
inline constexpr int kMaxJsonSchemaDepth = 64;

}  // namespace hone::generate
