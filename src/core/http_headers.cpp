#include "core/http_headers.h"

#include <algorithm>

#include "core/strings.h"

namespace llmux {

void HeaderList::add(std::string_view name, std::string_view value) {
  fields_.push_back(HeaderField{std::string(name), std::string(value)});
}

void HeaderList::set(std::string_view name, std::string_view value) {
  remove(name);
  add(name, value);
}

void HeaderList::remove(std::string_view name) {
  std::erase_if(fields_, [&](HeaderField const& f) { return equalsIgnoreCase(f.name, name); });
}

std::string const* HeaderList::find(std::string_view name) const {
  for (auto const& f : fields_) {
    if (equalsIgnoreCase(f.name, name)) return &f.value;
  }
  return nullptr;
}

std::string_view HeaderList::get(std::string_view name) const {
  auto const* v = find(name);
  return v ? std::string_view(*v) : std::string_view();
}

}  // namespace llmux
