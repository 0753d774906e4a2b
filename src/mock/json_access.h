#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <string_view>

namespace llmux::mock {

// Null-tolerant lookups into parsed request bodies. Every accessor takes an object pointer (null
// allowed) and returns null / empty / a default when the member is absent or has another type.

inline boost::json::value const* field(boost::json::object const* o, std::string_view key) {
  return o ? o->if_contains(key) : nullptr;
}

inline boost::json::object const* objectField(boost::json::object const* o, std::string_view key) {
  auto const* v = field(o, key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

inline boost::json::array const* arrayField(boost::json::object const* o, std::string_view key) {
  auto const* v = field(o, key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

inline std::string_view stringField(boost::json::object const* o, std::string_view key) {
  auto const* v = field(o, key);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

inline bool hasString(boost::json::object const* o, std::string_view key) {
  auto const* v = field(o, key);
  return v && v->is_string();
}

inline bool boolField(boost::json::object const* o, std::string_view key, bool fallback) {
  auto const* v = field(o, key);
  return v && v->is_bool() ? v->get_bool() : fallback;
}

inline boost::json::object const* asObject(boost::json::value const& v) {
  return v.is_object() ? &v.get_object() : nullptr;
}

/// Gemini accepts camelCase and snake_case field names: the first one present wins.
inline boost::json::value const* field2(boost::json::object const* o, std::string_view camel,
                                        std::string_view snake) {
  auto const* v = field(o, camel);
  return v ? v : field(o, snake);
}

inline boost::json::object const* objectField2(boost::json::object const* o, std::string_view camel,
                                               std::string_view snake) {
  auto const* v = field2(o, camel, snake);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

}  // namespace llmux::mock
