#pragma once

// JSON Schema in and out of Gemini. Gemini takes a function's parameters either as `parameters`
// (an OpenAPI 3.0 subset: upper-case types such as "OBJECT", `nullable`, `propertyOrdering`; it
// rejects `additionalProperties`, `$schema`, `$ref`, …) or as `parametersJsonSchema` (a full JSON
// Schema, which is what Gemini CLI sends). Going to Gemini we always use `parametersJsonSchema` /
// `responseJsonSchema`, so schemas pass through nearly untouched; coming from a Gemini client we
// turn the OpenAPI subset into standard JSON Schema that the other protocols accept.

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace llmux::translate::gemini::detail {

/// A Gemini `parameters` / `responseSchema` (OpenAPI subset) as standard JSON Schema text:
/// types lower-cased, `nullable: true` folded into the type (["string", "null"]),
/// `propertyOrdering` removed. Applied recursively through properties, items, anyOf, ….
std::string jsonSchemaFromOpenApi(boost::json::value const& schema);

/// A JSON Schema (as JSON text) ready for `parametersJsonSchema` or `responseJsonSchema`:
/// `$schema` members removed wherever a schema sits, and a root without a type but with
/// properties typed "object". nullopt when the text is empty or not a JSON object.
std::optional<boost::json::value> jsonSchemaForGemini(std::string_view schema_text);

}  // namespace llmux::translate::gemini::detail
