#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::protocol {

/// The kind of a JSON value, from its first byte.
enum class JsonType : std::uint8_t {
  Object,  ///< `{...}`
  Array,   ///< `[...]`
  String,  ///< `"..."`
  Number,  ///< `-1.5e3`
  True,    ///< `true`
  False,   ///< `false`
  Null,    ///< `null`
};

/// Deepest nesting of objects and arrays the scanner accepts.
inline constexpr std::size_t kJsonMaxDepth = 256;
/// Most top-level members a scanned object may have. Every one is recorded (inspection looks
/// them up), so without a cap a body of `"a":1,` repeated would cost 8 times its size in
/// records; no API request has more than a few dozen.
inline constexpr std::size_t kJsonMaxMembers = 1024;

/// One member of the top-level object, located in the scanned text.
struct JsonMember {
  std::string_view key;      ///< the key as written, between its quotes (escapes not decoded)
  bool key_escaped = false;  ///< `key` contains a backslash escape
  JsonType type = JsonType::Null;
  std::size_t value_begin = 0;  ///< first byte of the value token (a string's opening quote)
  std::size_t value_end = 0;    ///< one past its last byte (a string's closing quote)

  /// Whether the decoded key equals `name` ("mod\u0065l" is "model").
  bool keyIs(std::string_view name) const;
};

/// Where and why a document is not well-formed JSON. `reason` is a static string.
struct JsonScanError {
  std::size_t offset = 0;
  std::string_view reason;
};

/// What a scan found: the root value's kind and span and, for an object root, every top-level
/// member in document order (duplicates included). On error, only `error` is meaningful.
struct JsonScan {
  std::optional<JsonScanError> error;
  JsonType root = JsonType::Null;
  std::size_t root_begin = 0;
  std::size_t root_end = 0;
  std::vector<JsonMember> members;

  bool ok() const { return !error; }
};

/// Validates `text` as one RFC 8259 JSON document (surrounding whitespace allowed, nesting up to
/// kJsonMaxDepth) without building a tree, and locates the top-level members. UTF-8 is not
/// validated: any byte >= 0x80 is accepted inside strings.
JsonScan scanJson(std::string_view text);

/// The last top-level member of the object `text` whose decoded key is one of `keys`, found by a
/// skim: strings and nesting are followed, values are not validated (a third of scanJson's cost).
/// For reading one member of a document relayed as it is, such as the usage of an upstream's
/// answer being metered; whoever uses the member validates it (by parsing it). nullopt when `text`
/// is not an object, is cut short or has no such member.
std::optional<JsonMember> skimTopLevelMember(std::string_view text,
                                             std::initializer_list<std::string_view> keys);

/// Decodes the content of a JSON string token that scanJson accepted (the bytes between the
/// quotes). Surrogate pairs become one UTF-8 code point; a lone surrogate becomes U+FFFD.
std::string decodeJsonString(std::string_view content);

}  // namespace llmux::protocol
