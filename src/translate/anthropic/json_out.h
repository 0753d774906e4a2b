#pragma once

// A minimal JSON text writer for the Anthropic encoders: strings are escaped with
// core/json_text.h, JSON text that is already valid (tool arguments, schemas) is copied verbatim.

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::translate::anthropic {

/// Appends JSON to a string. Commas are placed automatically; the caller keeps the nesting
/// balanced. Keys are written as given (escaped).
class JsonOut {
 public:
  explicit JsonOut(std::string& out) : out_(out) {}

  JsonOut& beginObject();
  JsonOut& beginObject(std::string_view key);
  JsonOut& endObject();
  JsonOut& beginArray();
  JsonOut& beginArray(std::string_view key);
  JsonOut& endArray();

  JsonOut& str(std::string_view key, std::string_view value);
  JsonOut& str(std::string_view value);  ///< an array element
  JsonOut& num(std::string_view key, std::int64_t value);
  JsonOut& dbl(std::string_view key, double value);
  JsonOut& boolean(std::string_view key, bool value);
  JsonOut& null(std::string_view key);
  /// `json` must be valid JSON text: it is copied as it is.
  JsonOut& raw(std::string_view key, std::string_view json);
  JsonOut& raw(std::string_view json);  ///< an array element

 private:
  void separate();
  void key(std::string_view key);

  std::string& out_;
  bool comma_ = false;
};

}  // namespace llmux::translate::anthropic
