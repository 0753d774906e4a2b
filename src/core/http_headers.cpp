#include "core/http_headers.h"

#include <algorithm>

#include "core/strings.h"

namespace llmux {

void HeaderList::reserve(std::size_t fields, std::size_t bytes) {
  slots_.reserve(fields);
  bytes_.reserve(bytes);
}

void HeaderList::add(std::string_view name, std::string_view value) {
  // The arguments may view this list's own bytes (copying a field within the list): growing the
  // buffer would move them, so such arguments are copied first.
  auto inside = [this](std::string_view s) {
    return !s.empty() && s.data() >= bytes_.data() && s.data() < bytes_.data() + bytes_.size();
  };
  if (inside(name) || inside(value)) {
    std::string copy_name(name), copy_value(value);
    add(copy_name, copy_value);
    return;
  }
  Slot slot{static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(name.size()),
            static_cast<std::uint32_t>(bytes_.size() + name.size()),
            static_cast<std::uint32_t>(value.size())};
  bytes_.append(name);
  bytes_.append(value);
  slots_.push_back(slot);
}

void HeaderList::set(std::string_view name, std::string_view value) {
  std::string copy_value(value);  // `value` may view a field that remove() drops
  std::string copy_name(name);
  remove(copy_name);
  add(copy_name, copy_value);
}

void HeaderList::remove(std::string_view name) {
  // The bytes of removed fields stay in the buffer until the list is dropped: removals are rare
  // and lists short-lived.
  std::erase_if(slots_, [&](Slot const& s) {
    return equalsIgnoreCase(std::string_view(bytes_).substr(s.name_at, s.name_size), name);
  });
}

HeaderField HeaderList::operator[](std::size_t i) const {
  Slot const& s = slots_[i];
  std::string_view bytes(bytes_);
  return HeaderField{bytes.substr(s.name_at, s.name_size), bytes.substr(s.value_at, s.value_size)};
}

std::optional<std::string_view> HeaderList::find(std::string_view name) const {
  std::string_view bytes(bytes_);
  for (Slot const& s : slots_) {
    if (s.name_size == name.size() && equalsIgnoreCase(bytes.substr(s.name_at, s.name_size), name)) {
      return bytes.substr(s.value_at, s.value_size);
    }
  }
  return std::nullopt;
}

std::string_view HeaderList::get(std::string_view name) const {
  return find(name).value_or(std::string_view());
}

}  // namespace llmux
