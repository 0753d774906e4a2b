#pragma once

#include <boost/json/fwd.hpp>
#include <string>

namespace llmux::mock {

/// Compact JSON text of an arguments object that satisfies `schema`'s required properties with
/// plausible values: enums and consts are honoured, strings are chosen from the property name
/// ("city" -> "Paris", "path" -> a file path) or its format, numbers respect minimum/maximum,
/// arrays get minItems items, nested objects and local $refs are followed. Understands JSON Schema
/// and Gemini's OpenAPI subset (upper-case type names). A null or empty schema gives "{}".
std::string argumentsFromSchema(boost::json::value const* schema);

}  // namespace llmux::mock
