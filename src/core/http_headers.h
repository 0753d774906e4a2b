#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmux {

/// One HTTP header field, viewing the bytes of the HeaderList it came from (valid until that
/// list changes).
struct HeaderField {
  std::string_view name;
  std::string_view value;
};

/// An ordered list of header fields with case-insensitive lookup. All names and values live in
/// one byte buffer, so a request's whole head costs two allocations, not two per field. Requests
/// carry a few dozen headers: a linear scan beats hashing.
class HeaderList {
 public:
  /// Room for `fields` fields totalling `bytes` bytes of names and values.
  void reserve(std::size_t fields, std::size_t bytes);

  void add(std::string_view name, std::string_view value);
  /// Replaces every field called `name` by one field (or adds it).
  void set(std::string_view name, std::string_view value);
  void remove(std::string_view name);

  /// The first value of `name`, or nullopt.
  std::optional<std::string_view> find(std::string_view name) const;
  std::string_view get(std::string_view name) const;  ///< "" when absent
  bool has(std::string_view name) const { return find(name).has_value(); }

  std::size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }
  HeaderField operator[](std::size_t i) const;

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = HeaderField;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = HeaderField;
    Iterator(HeaderList const* list, std::size_t i) : list_(list), i_(i) {}
    HeaderField operator*() const { return (*list_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(Iterator const& other) const { return i_ == other.i_; }

   private:
    HeaderList const* list_;
    std::size_t i_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, slots_.size()); }

 private:
  struct Slot {
    std::uint32_t name_at, name_size, value_at, value_size;
  };
  std::string bytes_;
  std::vector<Slot> slots_;
};

}  // namespace llmux
