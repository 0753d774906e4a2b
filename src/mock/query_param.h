#pragma once

#include <string_view>

#include "core/strings.h"

namespace llmux::mock {

/// The value of `name` in a query string ("a=1&b=2", no leading '?'); "" when absent or valueless.
/// Not percent-decoded: the mock's parameters (`alt`, `key`, `variant`) are plain words or keys.
inline std::string_view queryParam(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    std::string_view item = query;
    if (auto amp = query.find('&'); amp != std::string_view::npos) {
      item = query.substr(0, amp);
      query.remove_prefix(amp + 1);
    } else {
      query = {};
    }
    auto kv = splitOnce(item, '=');
    if (kv ? kv->first == name : item == name) return kv ? kv->second : std::string_view();
  }
  return {};
}

}  // namespace llmux::mock
