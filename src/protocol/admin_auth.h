#pragma once

#include <string_view>

#include "core/http_headers.h"

namespace llmux::protocol {

/// The verdict on an /admin/* request's credentials.
enum class AdminAuth {
  Ok,        ///< a presented token is the admin token
  Missing,   ///< no token presented (401)
  Wrong,     ///< tokens presented, none is the admin token (403)
  Disabled,  ///< no admin token is configured: the admin API is off (404)
};

/// Checks the admin token of an /admin/* request: `Authorization: Bearer <t>` (scheme
/// case-insensitive) or `x-admin-token: <t>`; either may carry it (a client may also send a
/// gateway key as its bearer). Compared in constant time. Gateway keys are never accepted.
AdminAuth checkAdminToken(HeaderList const& headers, std::string_view admin_token);

/// The same check for any operator token (`metrics_token`: `token_header` ""): `Authorization:
/// Bearer <t>`, or the header `token_header` when not empty.
AdminAuth checkOperatorToken(HeaderList const& headers, std::string_view token,
                             std::string_view token_header);

}  // namespace llmux::protocol
