#include "translate/gemini/schema.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/strings.h"

namespace llmux::translate::gemini::detail {

namespace json = boost::json;

namespace {

/// Members whose value is one schema / an array of schemas / a map of name → schema.
constexpr std::string_view kSchemaMembers[] = {"items",       "not",           "additionalProperties",
                                               "if",          "then",          "else",
                                               "contains",    "propertyNames", "additionalItems",
                                               "unevaluatedItems", "unevaluatedProperties"};
constexpr std::string_view kSchemaArrays[] = {"anyOf", "oneOf", "allOf", "prefixItems", "items"};
constexpr std::string_view kSchemaMaps[] = {"properties", "$defs", "definitions",
                                            "patternProperties", "dependentSchemas"};

/// Removes `key` keeping the other members in order (object::erase moves the last member into
/// the hole, which would reorder what the client wrote).
void eraseInOrder(json::object& object, std::string_view key) {
  if (!object.contains(key)) return;
  json::object kept(object.storage());
  kept.reserve(object.size() - 1);
  for (auto& member : object) {
    if (member.key() != key) kept.emplace(member.key(), std::move(member.value()));
  }
  object = std::move(kept);
}

template <class Visit>
void forEachSubschema(json::object& schema, Visit&& visit) {
  for (auto name : kSchemaMembers) {
    if (auto* v = schema.if_contains(name); v && v->is_object()) visit(*v);
  }
  for (auto name : kSchemaArrays) {
    if (auto* v = schema.if_contains(name); v && v->is_array()) {
      for (auto& element : v->get_array()) {
        if (element.is_object()) visit(element);
      }
    }
  }
  for (auto name : kSchemaMaps) {
    if (auto* v = schema.if_contains(name); v && v->is_object()) {
      for (auto& entry : v->get_object()) {
        if (entry.value().is_object()) visit(entry.value());
      }
    }
  }
}

void openApiToJsonSchema(json::value& node, int depth) {
  if (!node.is_object() || depth > 64) return;
  json::object& schema = node.get_object();
  bool nullable = false;
  if (auto* v = schema.if_contains("nullable")) {
    nullable = v->is_bool() && v->get_bool();
    eraseInOrder(schema, "nullable");
  }
  eraseInOrder(schema, "propertyOrdering");
  eraseInOrder(schema, "property_ordering");
  if (auto* type = schema.if_contains("type")) {
    if (type->is_string()) {
      std::string lower = toLower(type->get_string());
      if (nullable && lower != "null") {
        json::array both;
        both.emplace_back(lower);
        both.emplace_back("null");
        *type = std::move(both);
      } else {
        *type = lower;
      }
    } else if (type->is_array()) {
      for (auto& t : type->get_array()) {
        if (t.is_string()) t = toLower(t.get_string());
      }
    }
  }
  // Gemini spells some keywords in snake_case too.
  if (schema.contains("any_of") && !schema.contains("anyOf")) {
    json::object renamed(schema.storage());
    for (auto& member : schema) {
      renamed.emplace(member.key() == "any_of" ? json::string_view("anyOf") : member.key(),
                      std::move(member.value()));
    }
    schema = std::move(renamed);
  }
  forEachSubschema(schema, [&](json::value& sub) { openApiToJsonSchema(sub, depth + 1); });
}

void cleanForGemini(json::value& node, int depth) {
  if (!node.is_object() || depth > 64) return;
  json::object& schema = node.get_object();
  eraseInOrder(schema, "$schema");
  forEachSubschema(schema, [&](json::value& sub) { cleanForGemini(sub, depth + 1); });
}

}  // namespace

std::string jsonSchemaFromOpenApi(json::value const& schema) {
  json::value copy = schema;
  openApiToJsonSchema(copy, 0);
  return json::serialize(copy);
}

std::optional<json::value> jsonSchemaForGemini(std::string_view schema_text) {
  if (schema_text.empty()) return std::nullopt;
  boost::system::error_code ec;
  json::value value = json::parse(schema_text, ec);
  if (ec || !value.is_object()) return std::nullopt;
  cleanForGemini(value, 0);
  json::object& root = value.get_object();
  if (!root.contains("type") && (root.contains("properties") || root.empty())) {
    root["type"] = "object";
  }
  return value;
}

}  // namespace llmux::translate::gemini::detail
