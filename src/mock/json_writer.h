#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::mock {

/// How a provider lays out its JSON text. The mock copies each provider's layout so that byte-level
/// consumers (passthrough, SSE relays, parsers that dislike whitespace) meet what they will meet in
/// production.
enum class JsonStyle {
  Compact,     ///< {"a":1,"b":[1,2]}: OpenAI and Anthropic SSE payloads, Anthropic bodies.
  GoogleLine,  ///< {"a": 1,"b": [1,2]}: Gemini SSE payloads (space after ':' only).
  PythonLine,  ///< {"a": 1, "b": [1, 2]}: Anthropic input_json_delta fragments.
  Indent2,     ///< two-space pretty print: OpenAI and Gemini non-stream bodies, Gemini JSON-array
               ///< stream.
  Indent4,     ///< four-space pretty print: OpenAI error bodies.
};

/// Appends JSON text to a string, one token at a time, inserting separators and indentation for
/// the chosen style. No DOM is built: the mock writes tens of thousands of replies per second.
/// Calls must be well nested (begin/end pairs, a key before every value inside an object).
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out, JsonStyle style = JsonStyle::Compact);

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);

  JsonWriter& str(std::string_view value);
  JsonWriter& num(std::int64_t value);
  JsonWriter& num(double value);
  JsonWriter& boolean(bool value);
  JsonWriter& null();
  /// Writes any parsed JSON value (request echoes such as tool schemas) in this writer's style.
  JsonWriter& value(boost::json::value const& value);
  /// Inserts already serialized JSON as one value, unchanged (meant for the Compact style).
  JsonWriter& raw(std::string_view json_text);

  // key + value shorthands
  JsonWriter& str(std::string_view name, std::string_view value) { return key(name).str(value); }
  JsonWriter& num(std::string_view name, std::int64_t value) { return key(name).num(value); }
  JsonWriter& num(std::string_view name, double value) { return key(name).num(value); }
  JsonWriter& boolean(std::string_view name, bool value) { return key(name).boolean(value); }
  JsonWriter& null(std::string_view name) { return key(name).null(); }
  JsonWriter& value(std::string_view name, boost::json::value const& v) {
    return key(name).value(v);
  }
  JsonWriter& beginObject(std::string_view name) { return key(name).beginObject(); }
  JsonWriter& beginArray(std::string_view name) { return key(name).beginArray(); }
  /// An empty array / object as the value of `name`.
  JsonWriter& emptyArray(std::string_view name) { return key(name).beginArray().endArray(); }
  JsonWriter& emptyObject(std::string_view name) { return key(name).beginObject().endObject(); }

 private:
  void beforeValue();
  void newline();

  std::string& out_;
  JsonStyle style_;
  struct Level {
    bool empty = true;
  };
  std::vector<Level> levels_;
  bool after_key_ = false;
};

/// Convenience: `value` serialized in `style`.
std::string toJsonText(boost::json::value const& value, JsonStyle style = JsonStyle::Compact);

}  // namespace llmux::mock
