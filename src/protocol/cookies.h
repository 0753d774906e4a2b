#pragma once

#include <optional>
#include <string_view>

#include "core/http_headers.h"

namespace llmux::protocol {

/// The value of cookie `name` in the request's `Cookie` headers (RFC 6265 section 5.4: pairs
/// separated by "; "), or nullopt when absent. The first occurrence wins; names are
/// case-sensitive, as browsers send them.
std::optional<std::string_view> cookieValue(HeaderList const& headers, std::string_view name);

}  // namespace llmux::protocol
