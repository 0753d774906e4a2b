#pragma once

// A minimal append-only JSON object writer for the encoders: they write text straight into the
// output (no document tree), and copy JSON they already hold (schemas) without re-serialising it.

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::translate::openai_responses {

/// Appends `s` as a JSON string literal (what RFC 8259 requires escaped, UTF-8 copied as is).
/// Same output as core's appendJsonString, but copies unescaped runs in bulk: prompts are long.
void appendString(std::string& out, std::string_view s);

/// The inside of a JSON string literal: `s` escaped, without the quotes.
void appendEscaped(std::string& out, std::string_view s);

/// Appends a number in its shortest round-trip form ("0.7", "1"); "null" when not finite.
void appendNumber(std::string& out, double value);

/// Writes one object: members are separated automatically. `close()` ends it (the destructor does
/// not, so that a writer can be abandoned on an early return without writing half a document).
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }

  ObjectWriter& str(std::string_view key, std::string_view value);
  ObjectWriter& integer(std::string_view key, std::int64_t value);
  ObjectWriter& number(std::string_view key, double value);
  ObjectWriter& boolean(std::string_view key, bool value);
  ObjectWriter& null(std::string_view key);
  /// `json` must already be one well-formed JSON value.
  ObjectWriter& raw(std::string_view key, std::string_view json);
  /// Writes `"key":` and returns the buffer for the caller to append the value.
  std::string& key(std::string_view key);
  void close() { out_.push_back('}'); }

 private:
  std::string& out_;
  bool first_ = true;
};

}  // namespace llmux::translate::openai_responses
