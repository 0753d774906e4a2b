#pragma once

// A minimal JSON text writer for the OpenAI Chat encoders. Bodies are written straight into a
// string: JSON texts the neutral model already holds (tool schemas, response schemas) are copied
// in verbatim instead of being parsed and re-serialised, and stream chunks cost no allocation
// beyond the output buffer.

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::translate::openai_chat {

class JsonOut {
 public:
  explicit JsonOut(std::string& out) : out_(out) {}

  JsonOut& beginObject();
  JsonOut& beginObject(std::string_view key);
  JsonOut& endObject();
  JsonOut& beginArray();
  JsonOut& beginArray(std::string_view key);
  JsonOut& endArray();

  JsonOut& key(std::string_view key);
  JsonOut& str(std::string_view value);
  JsonOut& str(std::string_view key, std::string_view value);
  JsonOut& num(std::string_view key, std::int64_t value);
  JsonOut& num(std::string_view key, double value);
  JsonOut& boolean(std::string_view key, bool value);
  JsonOut& null(std::string_view key);
  /// Copies `json` (already valid JSON text) as the value of `key`.
  JsonOut& raw(std::string_view key, std::string_view json);

  /// Bytes written so far (to tell whether a container got any member).
  std::size_t size() const { return out_.size(); }

 private:
  void separate();

  std::string& out_;
  bool need_comma_ = false;  ///< a value was written at this level: the next one needs a comma
  bool after_key_ = false;   ///< a key was just written: its value follows without a comma
};

/// Appends the shortest text that reads back as `value` (JSON has no NaN or infinity: 0).
void appendJsonNumber(std::string& out, double value);

}  // namespace llmux::translate::openai_chat
