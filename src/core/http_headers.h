#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmux {

/// One HTTP header field as received or to be sent.
struct HeaderField {
  std::string name;
  std::string value;
};

/// An ordered list of header fields with case-insensitive lookup. Small on purpose: requests carry
/// a few dozen headers, so a linear scan beats hashing.
class HeaderList {
 public:
  void add(std::string_view name, std::string_view value);
  /// Replaces every field called `name` by one field (or adds it).
  void set(std::string_view name, std::string_view value);
  void remove(std::string_view name);

  /// The first value of `name`, or nullptr.
  std::string const* find(std::string_view name) const;
  std::string_view get(std::string_view name) const;  ///< "" when absent
  bool has(std::string_view name) const { return find(name) != nullptr; }

  std::vector<HeaderField> const& fields() const { return fields_; }
  auto begin() const { return fields_.begin(); }
  auto end() const { return fields_.end(); }
  std::size_t size() const { return fields_.size(); }

 private:
  std::vector<HeaderField> fields_;
};

}  // namespace llmux
